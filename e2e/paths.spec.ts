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
