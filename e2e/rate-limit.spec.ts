import { expect, test } from '@playwright/test';
import { LIMITED_BASE_URL } from '../playwright.config';

/**
 * Against the real server (scripts/serve.mjs, default budget 120 per 60 s): the 121st request
 * is refused, and a client that sends its own X-Forwarded-For cannot reset its budget.
 */
test('the 121st request in the window gets 429, whatever X-Forwarded-For the client sends', async ({ playwright }) => {
  const api = await playwright.request.newContext({ baseURL: LIMITED_BASE_URL });
  // Playwright's own readiness probe may have spent one unit already: read what is left.
  const first = await api.get('/api/v1/pricing', { headers: { 'X-Forwarded-For': '198.51.100.0' } });
  expect(first.status()).toBe(200);
  expect(first.headers()['ratelimit-policy']).toBe('"default";q=120;w=60');
  let remaining = Number(first.headers()['x-ratelimit-remaining']);
  const spent = 120 - remaining;
  expect(spent).toBeGreaterThanOrEqual(1);
  expect(spent).toBeLessThanOrEqual(3);

  // The window opened at the server's readiness probe, and may end while this runs (the suite
  // before it takes its time): then the budget is whole again, once, and counting goes on.
  let renewed = false;
  for (let i = 0; remaining > 0; i++) {
    const res = await api.get('/api/v1/pricing', { headers: { 'X-Forwarded-For': `198.51.100.${(i % 250) + 1}` } });
    expect(res.status()).toBe(200);
    const next = Number(res.headers()['x-ratelimit-remaining']);
    if (next > remaining) {
      expect(renewed).toBe(false);
      expect(next).toBe(119);
      renewed = true;
    } else {
      expect(next).toBe(remaining - 1);
    }
    remaining = next;
  }

  const refused = await api.get('/api/v1/pricing', { headers: { 'X-Forwarded-For': '203.0.113.250' } });
  expect(refused.status()).toBe(429);
  const h = refused.headers();
  expect(h['retry-after']).toMatch(/^[1-9]\d*$/);
  expect(Number(h['retry-after'])).toBeLessThanOrEqual(60);
  expect(h['ratelimit']).toMatch(/^"default";r=0;t=\d+$/);
  expect(h['x-ratelimit-limit']).toBe('120');
  expect(h['x-ratelimit-remaining']).toBe('0');
  expect(Number(h['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
  expect(await refused.json()).toEqual({ error: { status: 429, code: 'rate_limited', message: expect.any(String) } });
  await api.dispose();
});
