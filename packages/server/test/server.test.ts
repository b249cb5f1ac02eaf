import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AD_DATA_PREFIX, adMarkdown, appendAd, createServerClient, DEFAULT_TIMEOUT_MS, latestMessages, type NoAd, type ServerAd } from '../src/index';

/**
 * The server package against a local stand-in for the service (a `node:http` server on a
 * loopback port): what it sends, and that `getAd` answers `null` without throwing whatever goes
 * wrong (down, slow, refusing, nothing to fill, a broken answer). The timeout's bound on the
 * stream is held with fake timers, not measured.
 */

const AD: ServerAd = {
  decision_id: '01937a3c-0000-7000-8000-000000000001',
  placement_id: '5f0c1b9e-8d7a-4c3b-9e21-0a6d5c4b3a29',
  format: 'inline_text',
  ad: {
    id: 'c1',
    advertiser: 'Lumen Notes',
    headline: 'Notes that *write* [themselves]',
    body: 'Capture this idea in one click.',
    cta: 'Try free',
    image_url: null,
    video_url: null,
    label: 'Sponsored',
  },
  click_url: 'https://monetize.example/functions/v1/click?token=t.1',
  token: 't.1',
  expires_at: '2026-12-06T23:00:00.000Z',
  viewability: { min_visible_share: 0.5, min_seconds: 1 },
  relevance: 0.7,
  why: { matched: ['meeting notes'] },
};
const CLIENT = { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' };
const KEY = `sk_live_${'A'.repeat(32)}`;

/** What the stand-in does with the next request, and what it was sent. */
let behaviour: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void = () => {};
const received: { headers: http.IncomingHttpHeaders; body: string }[] = [];
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      behaviour(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  received.length = 0;
  vi.useRealTimers();
});

const answer =
  (status: number, body?: unknown, headers: Record<string, string> = {}) =>
  (_: unknown, res: http.ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  };

function client(extra: Partial<Parameters<typeof createServerClient>[0]> = {}) {
  const why: NoAd[] = [];
  return { why, monetize: createServerClient({ key: KEY, baseUrl: `${base}/`, onNoAd: (w) => why.push(w), ...extra }) };
}

describe('getAd', () => {
  it('sends the server key as a bearer, the placement, the latest messages and the end user’s client, and answers the ad', async () => {
    behaviour = answer(200, AD);
    const { monetize } = client();
    const ad = await monetize.getAd({ placementId: AD.placement_id, messages: [{ role: 'user', content: 'Which notes app works offline?' }], client: CLIENT });
    expect(ad).toEqual(AD);
    expect(received).toHaveLength(1);
    expect(received[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(received[0]!.headers.origin).toBeUndefined();
    expect(JSON.parse(received[0]!.body)).toEqual({
      placement_id: AD.placement_id,
      context: { messages: [{ role: 'user', content: 'Which notes app works offline?' }] },
      client: { ip: CLIENT.ip, user_agent: CLIENT.userAgent },
    });
  });

  it('answers null, and says why, when nothing fills (204)', async () => {
    behaviour = answer(204, undefined, { 'no-fill-reason': 'sensitive' });
    const { monetize, why } = client();
    expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
    expect(why).toEqual([{ reason: 'no_fill', noFillReason: 'sensitive' }]);
  });

  it('answers null, without throwing, when the service refuses (401, 403, 429, 500)', async () => {
    for (const [status, code] of [
      [401, 'invalid_token'],
      [403, 'forbidden'],
      [429, 'rate_limited'],
      [500, 'internal_error'],
    ] as const) {
      behaviour = answer(status, { error: { status, code, message: 'no' } });
      const { monetize, why } = client();
      expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
      expect(why).toEqual([{ reason: 'refused', status, code }]);
    }
    behaviour = answer(502, '<html>bad gateway</html>');
    const { monetize, why } = client();
    expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
    expect(why).toEqual([{ reason: 'refused', status: 502, code: null }]);
  });

  it('answers null when the answer is not an ad', async () => {
    for (const body of ['{not json', { decision_id: 'x' }, []]) {
      behaviour = answer(200, body);
      const { monetize, why } = client();
      expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
      expect(why).toEqual([{ reason: 'invalid_answer' }]);
    }
  });

  it('answers null when the service is down', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const why: NoAd[] = [];
    const monetize = createServerClient({ key: KEY, baseUrl: `http://127.0.0.1:${port}`, onNoAd: (w) => why.push(w) });
    expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
    expect(why).toEqual([{ reason: 'unreachable' }]);
  });

  it('answers null at its timeout when the service is slow, and aborts the request', async () => {
    behaviour = (_, res) => setTimeout(() => answer(200, AD)(_, res), 2_000).unref();
    const { monetize, why } = client({ timeoutMs: 50 });
    expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
    expect(why).toEqual([{ reason: 'timeout' }]);
  });

  it('answers null at its timeout even when fetch never settles, and a logger that throws changes nothing', async () => {
    vi.useFakeTimers();
    const monetize = createServerClient({
      key: KEY,
      baseUrl: base,
      fetch: () => new Promise<Response>(() => {}),
      onNoAd: () => {
        throw new Error('logger down');
      },
    });
    let settled: unknown = 'pending';
    void monetize.getAd({ placementId: 'p', messages: [], client: CLIENT }).then((v) => (settled = v));
    await vi.advanceTimersByTimeAsync(DEFAULT_TIMEOUT_MS - 1);
    expect(settled).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBeNull();
  });

  it('answers null when fetch itself throws', async () => {
    const { monetize, why } = client({
      fetch: () => {
        throw new TypeError('fetch is not a function here');
      },
    });
    expect(await monetize.getAd({ placementId: 'p', messages: [], client: CLIENT })).toBeNull();
    expect(why).toEqual([{ reason: 'unreachable' }]);
  });
});

describe('latestMessages', () => {
  it('keeps the last 6 messages and 4,000 characters, the newest first to fit, a long one by its end', () => {
    const many = Array.from({ length: 9 }, (_, i) => ({ role: i % 2 ? ('assistant' as const) : ('user' as const), content: `message ${i}` }));
    expect(latestMessages(many).map((m) => m.content)).toEqual(['message 3', 'message 4', 'message 5', 'message 6', 'message 7', 'message 8']);
    const long = [
      { role: 'user' as const, content: 'a'.repeat(3000) },
      { role: 'assistant' as const, content: 'b'.repeat(3000) },
      { role: 'user' as const, content: `${'c'.repeat(500)}end` },
    ];
    const kept = latestMessages(long);
    expect(kept.reduce((n, m) => n + m.content.length, 0)).toBe(4000);
    expect(kept.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(kept[0]!.content).toBe('a'.repeat(497));
    expect(kept[1]!.content).toBe('b'.repeat(3000));
    expect(kept[2]!.content.endsWith('end')).toBe(true);
  });

  it('leaves out what is not a message', () => {
    const odd = [{ role: 'system', content: 'x' }, { role: 'user', content: '' }, { role: 'user' }, { role: 'user', content: 'hi' }] as never;
    expect(latestMessages(odd)).toEqual([{ role: 'user', content: 'hi' }]);
  });
});

describe('appendAd', () => {
  const collect = async (stream: ReadableStream<string> | AsyncIterable<string>) => {
    const out: string[] = [];
    for await (const c of stream as AsyncIterable<string>) out.push(c);
    return out;
  };
  const source = () =>
    new ReadableStream<string>({
      start(controller) {
        for (const c of ['Try ', 'a shared ', 'notebook.']) controller.enqueue(c);
        controller.close();
      },
    });
  async function* iterable() {
    yield 'Try ';
    yield 'a shared notebook.';
  }

  it('passes every chunk through, then the ad as the last chunk, for a ReadableStream and an async iterable', async () => {
    const out = await collect(appendAd(source(), Promise.resolve(AD)));
    expect(out.slice(0, 3)).toEqual(['Try ', 'a shared ', 'notebook.']);
    expect(out[3]).toBe(adMarkdown(AD));
    expect(appendAd(source(), null)).toBeInstanceOf(ReadableStream);
    const fromIterable = await collect(appendAd(iterable(), AD));
    expect(fromIterable).toEqual(['Try ', 'a shared notebook.', adMarkdown(AD)]);
  });

  it('adds nothing when there is no ad, or the ad’s promise fails', async () => {
    expect(await collect(appendAd(source(), null))).toEqual(['Try ', 'a shared ', 'notebook.']);
    expect(await collect(appendAd(iterable(), Promise.reject(new Error('no'))))).toEqual(['Try ', 'a shared notebook.']);
  });

  it('ends the stream at getAd’s timeout at the latest, however slow the service', async () => {
    vi.useFakeTimers();
    const monetize = createServerClient({ key: KEY, baseUrl: base, timeoutMs: 200, fetch: () => new Promise<Response>(() => {}) });
    const ad = monetize.getAd({ placementId: 'p', messages: [], client: CLIENT });
    const reader = appendAd(source(), ad).getReader();
    for (const c of ['Try ', 'a shared ', 'notebook.']) expect((await reader.read()).value).toBe(c);
    let end: unknown = 'pending';
    void reader.read().then((r) => (end = r));
    await vi.advanceTimersByTimeAsync(199);
    expect(end).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(end).toEqual({ done: true, value: undefined });
  });
});

describe('adMarkdown', () => {
  it('labels the ad Sponsored, links its headline to the click URL with markdown made literal, and carries its data', () => {
    const md = adMarkdown(AD);
    expect(md).toContain('**Sponsored** · Lumen Notes: [Notes that \\*write\\* \\[themselves\\]](https://monetize.example/functions/v1/click?token=t.1)');
    const data = md.slice(md.indexOf(AD_DATA_PREFIX) + AD_DATA_PREFIX.length, md.lastIndexOf(' -->'));
    expect(data).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(data, 'base64url').toString('utf8'))).toEqual(AD);
  });

  it('keeps text of any script as it was, through the data', () => {
    const ad = { ...AD, ad: { ...AD.ad, headline: 'Notizen, die sich selbst schreiben — 日本語 ✓' } };
    const md = adMarkdown(ad);
    const data = md.slice(md.indexOf(AD_DATA_PREFIX) + AD_DATA_PREFIX.length, md.lastIndexOf(' -->'));
    expect(JSON.parse(Buffer.from(data, 'base64url').toString('utf8')).ad.headline).toBe(ad.ad.headline);
  });
});
