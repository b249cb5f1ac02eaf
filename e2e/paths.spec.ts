import { expect, test } from '@playwright/test';

/**
 * Paths with percent-encoded characters, on the production server as `npm start` serves it:
 * an escaped unreserved character is that character (RFC 3986 §6.2.2.2), so each answers as
 * the route it decodes to, never a 500.
 */
test('an encoded path answers as the route it decodes to', async ({ request }) => {
  const search = await request.get('/api/v1/%73earch?q=api');
  expect(search.status()).toBe(200);
  expect(search.headers()['api-version']).toBe('1');
  expect((await search.json()).results.length).toBeGreaterThan(0);

  const token = await request.post('/oauth/%74oken', { form: { grant_type: 'authorization_code', code: 'nope' } });
  expect(token.status()).toBe(401); // no client: the token endpoint's own answer, not a 500
  expect(await token.json()).toMatchObject({ error: expect.any(String) });

  const mcp = await request.post('/docs/%6dcp', {
    headers: { accept: 'application/json, text/event-stream' },
    data: { jsonrpc: '2.0', id: 1, method: 'ping' },
  });
  expect(mcp.status()).toBe(200);

  const dots = await request.get('/api/v1/%2e%2e/v1/pricing');
  expect(dots.status()).toBe(200);
});

test('a path under an API prefix that no route has answers the API 404, not the site page', async ({ request }) => {
  for (const [path, version] of [
    ['/api/v1/nope', '1'],
    ['/functions/v1', '1'],
    ['/oauth/nope', undefined],
    ['/mcp/x', undefined],
    ['/docs/mcp/x', undefined],
    ['/a2a/x', undefined],
    ['/ask/x', undefined],
  ] as const) {
    const res = await request.get(path);
    expect(res.status(), path).toBe(404);
    expect(res.headers()['content-type'], path).toMatch(/^application\/json/);
    expect(res.headers()['api-version'], path).toBe(version);
    expect(res.headers()['ratelimit-policy'], path).toBeDefined();
    expect((await res.json()).error, path).toMatchObject({ status: 404, code: 'not_found' });
  }
  // Site pages beside them are still pages.
  for (const page of ['/docs/mcp-servers', '/docs/quickstart']) {
    const res = await request.get(page);
    expect(res.status(), page).toBe(200);
    expect(res.headers()['content-type'], page).toMatch(/^text\/html/);
  }
});

test('an API path with a trailing slash is answered by its route; a page with one is redirected to its canonical URL', async ({ request }) => {
  const index = await request.get('/api/v1/', { maxRedirects: 0 });
  expect(index.status()).toBe(200);
  expect(index.headers()['api-version']).toBe('1');
  expect(index.headers()['ratelimit']).toMatch(/^"default";r=\d+;t=\d+$/);

  const pricing = await request.get('/api/v1/pricing/', { maxRedirects: 0 });
  expect(pricing.status()).toBe(200);
  expect((await pricing.json()).currency).toBe('USD');

  const unknown = await request.get('/api/v1/nope/', { maxRedirects: 0 });
  expect(unknown.status()).toBe(404);
  expect((await unknown.json()).error.code).toBe('not_found');

  const docs = await request.get('/docs/quickstart/?from=test', { maxRedirects: 0 });
  expect(docs.status()).toBe(308);
  expect(docs.headers()['location']).toBe('/docs/quickstart?from=test');
});

test('a REST path with repeated slashes, or a segment that does not decode, is answered by its route with every API header', async ({ request }) => {
  // Next answered these with a 308 of its own, before any route: no rate-limit or version header.
  for (const [path, status] of [
    ['/api/v1//search?q=api', 200],
    ['/api//v1///pricing', 200],
    ['/api/v1//nope', 404],
    ['/functions/v1//validate-key', 401],
    // A segment that does not percent-decode was Next's own 500, in plain text.
    ['/api/v1/%E0%A4', 404],
  ] as const) {
    const res = await request.get(path, { maxRedirects: 0 });
    expect(res.status(), path).toBe(status);
    expect(res.headers()['api-version'], path).toBe('1');
    expect(res.headers()['ratelimit-policy'], path).toMatch(/^"default";q=\d+;w=\d+$/);
    expect(res.headers()['ratelimit'], path).toMatch(/^"default";r=\d+;t=\d+$/);
    expect(res.headers()['x-ratelimit-remaining'], path).toMatch(/^\d+$/);
    expect(res.headers()['x-request-id'], path).toMatch(/^req_/);
  }
  expect((await (await request.get('/api/v1//search?q=api')).json()).results.length).toBeGreaterThan(0);

  // A preflight carries them too, and is not counted.
  const preflight = await request.fetch('/api/v1/search', {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
  });
  expect(preflight.status()).toBe(204);
  expect(preflight.headers()['api-version']).toBe('1');
  expect(preflight.headers()['ratelimit']).toMatch(/^"default";r=\d+;t=\d+$/);

  // A page with repeated slashes is still redirected to its canonical URL.
  const page = await request.get('/docs//quickstart', { maxRedirects: 0 });
  expect(page.status()).toBe(308);
  expect(page.headers()['location']).toBe('/docs/quickstart');
});
