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
