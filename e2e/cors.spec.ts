import { expect, test, type Page } from '@playwright/test';

/**
 * Browser code on another origin reads the API's headers: Chromium enforces CORS, so this is the
 * proof that `Access-Control-Expose-Headers: *` exposes them (the kernel's unit tests only see
 * the header's value). The calling document is served from http://127.0.0.1:<port> and calls
 * http://localhost:<port>: two origins, both on loopback, so no local-network rule gets in the way.
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
