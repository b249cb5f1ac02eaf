import { expect, test, type Page } from '@playwright/test';

/**
 * Browser code on another origin reads the API's headers: Chromium enforces CORS, so this is the
 * proof that `Access-Control-Expose-Headers: *` exposes them (the kernel's unit tests only see
 * the header's value). The calling document is served from http://127.0.0.1:<port> and calls
 * http://localhost:<port>: two origins, both on loopback, so no local-network rule gets in the way.
 * A page on an origin an SDK app does not allow (http://shop.localhost:<port>) reads its refusal,
 * and the SDK tells the console why, once.
 */

/**
 * Opens a document on the other origin; answers the API's origin, for the document to call. The
 * document is a file of ours (`/llms.txt`), not a page: our pages' Content-Security-Policy lets
 * them fetch from their own origin only, as it should, and another site's page has no such rule.
 */
async function fromOtherOrigin(page: Page, baseURL: string | undefined): Promise<string> {
  const api = new URL(baseURL!);
  const other = new URL(baseURL!);
  other.hostname = '127.0.0.1';
  expect(other.origin).not.toBe(api.origin);
  await page.goto(`${other.origin}/llms.txt`);
  return api.origin;
}

test('a page on another origin reads the rate-limit, version and request-id headers', async ({ page, baseURL }) => {
  const api = await fromOtherOrigin(page, baseURL);
  const read = await page.evaluate(async (url) => {
    const res = await fetch(url);
    const names = [
      'api-version',
      'x-request-id',
      'ratelimit',
      'ratelimit-policy',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'cache-control',
    ];
    return { status: res.status, headers: Object.fromEntries(names.map((n) => [n, res.headers.get(n)])) };
  }, `${api}/api/v1/pricing`);

  expect(read.status).toBe(200);
  expect(read.headers['api-version']).toBe('1');
  expect(read.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  expect(read.headers['ratelimit']).toMatch(/^"default";r=\d+;t=\d+$/);
  expect(read.headers['ratelimit-policy']).toMatch(/^"default";q=\d+;w=60$/);
  expect(read.headers['x-ratelimit-limit']).toMatch(/^\d+$/);
  expect(read.headers['x-ratelimit-remaining']).toMatch(/^\d+$/);
  expect(read.headers['x-ratelimit-reset']).toMatch(/^\d+$/);
  expect(read.headers['cache-control']).toBe('public, max-age=60');
});

test('a bearer call from another origin passes the preflight and reads the challenge', async ({ page, baseURL }) => {
  const api = await fromOtherOrigin(page, baseURL);
  // `Authorization` makes this a non-simple request: Chromium sends an OPTIONS preflight first.
  const read = await page.evaluate(async (url) => {
    const res = await fetch(url, { headers: { authorization: 'Bearer not-a-real-token' } });
    return { status: res.status, challenge: res.headers.get('www-authenticate'), requestId: res.headers.get('x-request-id'), body: await res.json() };
  }, `${api}/api/v1/me`);

  expect(read.status).toBe(401);
  expect(read.challenge).toMatch(/^Bearer /);
  expect(read.challenge).toContain('resource_metadata=');
  expect(read.requestId).toMatch(/^req_[0-9a-f]{32}$/);
  expect(read.body).toEqual({ error: { status: 401, code: 'invalid_token', message: expect.any(String) } });
});

/** The script's `window.Monetize`, as much of it as the test below uses. */
interface MonetizeGlobal {
  createClient(options: { key: string; baseUrl: string }): {
    on(listener: (event: { type: string; error?: unknown }) => void): () => void;
    render(target: Element, placementId: string, options: { format: string; fallback: string }): unknown;
    getAd(placementId: string): Promise<unknown>;
  };
}

test('a page on an origin its app does not allow gets no ad, reads the refusal, and the console says once why and how to fix it', async ({
  page,
  request,
  baseURL,
}) => {
  const api = new URL(baseURL!);
  // The demo app's key, from its page (publishable, as every key in a page is). Its app allows
  // the service's own origin (and 127.0.0.1 on its port), nothing else.
  const key = (await (await request.get('/demo')).text()).match(/pk_(?:live|test)_[A-Za-z0-9]{32}/)?.[0];
  expect(key, "the demo page carries its app's key").toBeDefined();
  // Another origin, on loopback (Chromium resolves *.localhost itself), that the app does not list.
  const shop = new URL(baseURL!);
  shop.hostname = 'shop.localhost';
  const said: { type: string; text: string }[] = [];
  page.on('console', (m) => said.push({ type: m.type(), text: m.text() }));
  const thrown: string[] = [];
  page.on('pageerror', (e) => thrown.push(e.message));
  await page.goto(`${shop.origin}/llms.txt`);
  // The script, as a publisher's page loads it from the service.
  await page.evaluate(
    (src) =>
      new Promise<void>((resolve, reject) => {
        const script = document.createElement('script');
        script.src = src;
        script.onload = () => resolve();
        script.onerror = () => reject(new Error(`${src} did not load`));
        document.documentElement.append(script);
      }),
    `${api.origin}/sdk/v1.js`,
  );

  // Three placements and a retry, as a page asks: each one refused.
  const placements = ['0b6a2f4e-5c1d-4e8a-9f3b-7d2c1e0a9b81', '1c7b3a5f-6d2e-4f9b-8a4c-8e3d2f1b0c92', '2d8c4b6a-7e3f-4a0c-9b5d-9f4e3a2c1da3'];
  const asked = await page.evaluate(
    async ({ key, base, placements }) => {
      const monetize = (window as unknown as { Monetize: MonetizeGlobal }).Monetize;
      const client = monetize.createClient({ key, baseUrl: base });
      const errors: string[] = [];
      client.on((e) => {
        if (e.type === 'error') errors.push(String((e.error as Error | undefined)?.message ?? e.error));
      });
      const slots = placements.map((id) => {
        const slot = document.createElement('div');
        document.body.append(slot);
        client.render(slot, id, { format: 'inline_text', fallback: 'No ad here' });
        return slot;
      });
      const again = await client.getAd(placements[0]!);
      for (let waited = 0; errors.length < 4 && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
      // The refusal itself, as any script of the page reads it: its envelope, and no other header.
      const res = await fetch(`${base}/functions/v1/ads?placement_id=${placements[0]}`, { headers: { 'x-api-key': key } });
      return {
        again,
        errors,
        fallbacks: slots.map((s) => s.textContent),
        refusal: { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') },
      };
    },
    { key: key!, base: api.origin, placements },
  );

  expect(asked.again).toBeNull();
  expect(asked.fallbacks).toEqual(['No ad here', 'No ad here', 'No ad here']);
  expect(asked.errors).toHaveLength(4);
  for (const e of asked.errors) expect(e).toContain('ad request answered 403');
  expect(asked.refusal.status).toBe(403);
  expect(asked.refusal.body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringContaining(shop.origin) } });
  expect(asked.refusal.requestId).toBeNull();
  expect(thrown).toEqual([]);

  // One message, an error, for four refusals: the origin, the key as the console lists it, the fix.
  await expect.poll(() => said.filter((m) => m.text.startsWith('Monetize SDK:')).length).toBe(1);
  await page.waitForTimeout(300);
  const told = said.filter((m) => m.text.startsWith('Monetize SDK:'));
  expect(told).toHaveLength(1);
  expect(told[0]!.type).toBe('error');
  expect(told[0]!.text).toContain(`this page may not use key ${key!.slice(0, 16)}…${key!.slice(-4)}: ${shop.origin} is not one of the allowed web origins`);
  expect(told[0]!.text).toContain(`Fix: add ${shop.origin} to "Allowed web origins" in the app's settings, in the console at ${api.origin}/dashboard`);
});
