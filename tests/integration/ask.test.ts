import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { askBody } from '@/lib/schemas/ask';
import { UNLIMITED } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * `/ask` answers "What is the minimum payout?" with a citation, from
 * the docs alone (no database, no language model); bad questions are 400 in the error envelope.
 */

const ask = handlersOf('/ask');
type Handler = (req: Request, ctx: { params: Promise<Record<string, never>> }) => Response | Promise<Response>;
const ctx = () => ({ params: Promise.resolve({}) });
const base = () => env().PUBLIC_BASE_URL;
const headers = { 'x-forwarded-for': '192.0.2.62' };

const post = (body: string, contentType = 'application/json') =>
  (ask.POST as Handler)(new Request(`${base()}/ask`, { method: 'POST', headers: { ...headers, 'content-type': contentType }, body }), ctx());
const get = (query: string) => (ask.GET as Handler)(new Request(`${base()}/ask${query}`, { headers }), ctx());

beforeAll(() => setTestServices(makeServices({ rateLimiter: UNLIMITED() })));
afterAll(() => setTestServices(undefined));

async function expectAnswerToMinimumPayout(res: Response) {
  expect(res.status).toBe(200);
  expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
  const body = askBody.strict().parse(await res.json());
  expect(body.question).toBe('What is the minimum payout?');
  expect(body.found).toBe(true);
  expect(body.answer).toMatch(/\b50 USD\b/);
  expect(body.answer).toMatch(/\[1\]/);
  expect(body.citations.length).toBeGreaterThan(0);
  for (const c of body.citations) {
    expect(c.url.startsWith(`${base()}/`)).toBe(true);
    expect(c.passage.length).toBeGreaterThan(0);
  }
  // The cited passages say it, and the pages that say it are among them.
  expect(body.citations.some((c) => /50 USD/.test(c.passage))).toBe(true);
  expect(body.citations.map((c) => c.url)).toEqual(expect.arrayContaining([`${base()}/pricing#minimum-payout`, `${base()}/docs/payouts#minimum-payout`]));
  return body;
}

describe('POST /ask', () => {
  it('answers "What is the minimum payout?" with 50 USD and citations on the service', async () => {
    const res = await post(JSON.stringify({ question: 'What is the minimum payout?' }));
    await expectAnswerToMinimumPayout(res);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('trims the question', async () => {
    await expectAnswerToMinimumPayout(await post(JSON.stringify({ question: '  What is the minimum payout?\n' })));
  });

  it.each([
    ['an empty question', '{"question": ""}'],
    ['a question of white space', '{"question": " \\n\\t "}'],
    ['a question over 500 characters', JSON.stringify({ question: `${'why '.repeat(125)}?` })],
    ['no question', '{}'],
    ['a question that is not a string', '{"question": 42}'],
    ['a question that is null', '{"question": null}'],
    ['a body that is not JSON', '{"question": '],
    ['a body that is a JSON string', '"What is the minimum payout?"'],
  ])('refuses %s with 400 invalid_request in the error envelope', async (_, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.any(String) } });
  });

  it('says what a question must be', async () => {
    const res = await post('{"question": 42}');
    expect((await res.json()).error.message).toMatch(/`question`.*1 to 500 characters/);
  });

  it('accepts exactly 500 characters', async () => {
    const question = `${'minimum payout '.repeat(34)}minimum pay`.slice(0, 500);
    expect(question.length).toBe(500);
    expect((await post(JSON.stringify({ question }))).status).toBe(200);
  });

  it('refuses a body that is not JSON with 415', async () => {
    const res = await post('question=What is the minimum payout?', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('unsupported_media_type');
  });
});

describe('GET /ask', () => {
  it('answers ?q= as POST answers the same question', async () => {
    const res = await get(`?q=${encodeURIComponent('What is the minimum payout?')}`);
    const body = await expectAnswerToMinimumPayout(res);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=300');
    const posted = await (await post(JSON.stringify({ question: 'What is the minimum payout?' }))).json();
    expect(body).toEqual(posted);
  });

  it.each([
    ['without q', ''],
    ['with an empty q', '?q='],
    ['with a blank q', '?q=%20%20'],
    ['with q over 500 characters', `?q=${'a'.repeat(501)}`],
    ['with q given twice', '?q=payout&q=token'],
  ])('refuses a request %s with 400', async (_, query) => {
    const res = await get(query);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringMatching(/`q`/) } });
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await (ask.HEAD as Handler)(new Request(`${base()}/ask?q=payout`, { method: 'HEAD', headers }), ctx());
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
  });
});

describe('answers that cannot be found', () => {
  it.each(['Xyzzy plugh frobnicate?', 'What is the capital of France?', 'florp zazzle quux blarg'])('makes up no citation for "%s"', async (question) => {
    const res = await post(JSON.stringify({ question }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ question, found: false, citations: [] });
    expect(body.answer).toMatch(/could not find/);
    expect(body.answer).not.toMatch(/\[\d\]/);
  });
});

describe('the surface', () => {
  it('carries the rate-limit headers and open CORS on every answer, errors included', async () => {
    for (const res of [await get('?q=payout'), await get(''), await post('{}')]) {
      expect(res.headers.get('RateLimit-Policy')).toBe('"default";q=1000000;w=60');
      expect(res.headers.get('RateLimit')).toMatch(/^"default";r=\d+;t=\d+$/);
      expect(res.headers.get('X-RateLimit-Limit')).toBe('1000000');
      expect(res.headers.get('X-RateLimit-Remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('X-RateLimit-Reset')).toMatch(/^\d+$/);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(res.headers.get('X-Request-Id')).toMatch(/^req_/);
    }
  });

  it('is rate limited: the 121st request in the window is 429 with Retry-After', async () => {
    setTestServices(makeServices({ rateLimiter: new MemoryRateLimiter({ max: 120, windowSeconds: 60 }) }));
    try {
      for (let i = 0; i < 120; i++) expect((await get('?q=payout')).status).toBe(200);
      const refused = await post(JSON.stringify({ question: 'What is the minimum payout?' }));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({ error: { status: 429, code: 'rate_limited', message: expect.any(String) } });
    } finally {
      setTestServices(makeServices({ rateLimiter: UNLIMITED() }));
    }
  });

  it('answers other methods with 405 and Allow', async () => {
    const res = await (ask.DELETE as Handler)(new Request(`${base()}/ask`, { method: 'DELETE', headers }), ctx());
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('GET, POST, HEAD, OPTIONS');
  });
});
