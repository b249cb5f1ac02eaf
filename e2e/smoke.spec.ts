import { expect, test } from '@playwright/test';

test('the home page renders in Chromium', async ({ page }, testInfo) => {
  const response = await page.goto('/');
  expect(response?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('home.png'), fullPage: true });
});

test('the pricing API answers through the route kernel with its headers', async ({ request }) => {
  const res = await request.get('/api/v1/pricing');
  expect(res.status()).toBe(200);
  expect(res.headers()['api-version']).toBe('1');
  expect(res.headers()['ratelimit-policy']).toMatch(/^"default";q=\d+;w=60$/);
  expect(await res.json()).toMatchObject({ currency: 'USD', live: true });
});
