import { expect, test } from '@playwright/test';

test('a docs page renders, its search box finds the payouts page, and the twin is linked', async ({ page }, testInfo) => {
  const response = await page.goto('/docs/quickstart');
  expect(response?.status()).toBe(200);
  await expect(page.getByRole('heading', { level: 1, name: 'Quickstart' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Docs' })).toBeVisible();
  // The markdown twin is announced to agents in the head.
  await expect(page.locator('link[rel="alternate"][type="text/markdown"]')).toHaveAttribute('href', /\/docs\/quickstart\.md$/);

  const search = page.getByRole('searchbox', { name: 'Search the docs' });
  await search.fill('minimum payout');
  await page.getByRole('button', { name: 'Search' }).click();
  const results = page.locator('.search-results');
  await expect(results.getByRole('link', { name: 'Payouts and earnings' })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('docs-search.png'), fullPage: true });

  await results.getByRole('link', { name: 'Payouts and earnings' }).click();
  await expect(page).toHaveURL(/\/docs\/payouts$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Payouts and earnings' })).toBeVisible();
});

test('a misspelled search still finds the payouts page', async ({ request }) => {
  const res = await request.get('/api/v1/search?q=payuot%20minimum&limit=3');
  expect(res.status()).toBe(200);
  const body = await res.json();
  expect(body.results.map((r: { url: string }) => new URL(r.url).pathname)).toContain('/docs/payouts');
});

test('pages and their markdown twins are served, by suffix and by Accept header', async ({ request }) => {
  const byPath = await request.get('/docs/payouts.md');
  expect(byPath.status()).toBe(200);
  expect(byPath.headers()['content-type']).toBe('text/markdown; charset=utf-8');
  const byAccept = await request.get('/docs/payouts', { headers: { Accept: 'text/markdown' } });
  expect(byAccept.headers()['content-type']).toBe('text/markdown; charset=utf-8');
  expect(await byAccept.text()).toBe(await byPath.text());
  const home = await request.get('/', { headers: { Accept: 'text/markdown' } });
  expect((await home.text()).startsWith('# ')).toBe(true);
  expect((await request.get('/index.md')).status()).toBe(200);
});
