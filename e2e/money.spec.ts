import { expect, test } from '@playwright/test';
import { accountToken } from './helpers/account-token';
import { choose } from './helpers/controls';

/**
 * The money path on the production build, end to end: a new publisher makes an app, a placement
 * and a key in the console; an app with that key gets an ad, sends its impression and its click;
 * and the account API shows exactly one impression's worth more, once the server's own roll-up
 * has run (every 10 s; the issue allows 60). A new publisher, so no other test's figures move.
 */

test('an ad served with a key, its impression and click, show in /api/v1/me/apps and /me/earnings within 60 s', async ({ page, request, baseURL }) => {
  test.setTimeout(120_000);
  const base = new URL(baseURL!).origin;
  const email = `earner-${Date.now()}@example.com`;
  const password = 'a-long-enough-password';

  // Sign up: the new publisher is signed in and lands in the console.
  await page.goto('/signup');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Name').fill('Erin Earner');
  await page.getByLabel('Company').fill('Earner Apps');
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Console' })).toBeVisible();

  // An app, a floating video placement (its impression is worth a cent at the default CPM), a key.
  const create = page.getByRole('region', { name: 'Create an app' });
  await create.getByLabel('Name').fill('Earning App');
  await create.getByLabel('Slug').fill(`earning-app-${Date.now()}`);
  await create.getByRole('button', { name: 'Create app' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Earning App' })).toBeVisible();
  await page.getByLabel('Placement name').fill('Video corner');
  await choose(page, page.getByLabel('Format'), 'Floating video');
  await page.getByRole('button', { name: 'Create placement' }).click();
  await expect(page.getByRole('region', { name: 'Placements of Earning App' }).getByRole('row', { name: /Video corner/ })).toBeVisible();
  await page.getByLabel('Key name').fill('Server');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.getByTestId('new-key').textContent())!;

  // A token for the account API, through the browser flow (the console session signs the consent).
  const token = await accountToken(page, request, { base, clientName: 'Money Checker', scope: 'apps:read earnings:read' });
  const bearer = { authorization: `Bearer ${token}` };
  const placementsOf = async () =>
    (await (await request.get('/api/v1/me/apps', { headers: bearer })).json()) as {
      placements: { id: string; name: string; impressions: number; clicks: number; revenue_usd: number; fill_rate: number }[];
    };
  const placement = (await placementsOf()).placements.find((p) => p.name === 'Video corner')!;
  expect(placement).toMatchObject({ impressions: 0, clicks: 0, revenue_usd: 0 });
  const earningsBefore = await (await request.get('/api/v1/me/earnings', { headers: bearer })).json();

  // The app's side: an ad, its impression once viewable, its click through the click URL.
  const served = await request.get(`/functions/v1/ads?placement_id=${placement.id}&session_id=e2e-session-1`, { headers: { 'x-api-key': key } });
  expect(served.status()).toBe(200);
  const ad = await served.json();
  expect(ad.format).toBe('floating_video');
  // Watched for 2.2 s: no impression counts sooner than its seconds in view after its ad, on the server's clock.
  await page.waitForTimeout(2500);
  const events = await request.post('/functions/v1/events', {
    headers: { 'x-api-key': key },
    data: { events: [{ id: 'e2e-impression-1', type: 'impression', token: ad.token, viewability: { visible_share: 0.9, visible_seconds: 2.2 } }] },
  });
  expect((await events.json()).results).toEqual([{ id: 'e2e-impression-1', status: 'recorded' }]);
  const click = await request.get(new URL(ad.click_url).pathname + new URL(ad.click_url).search, { maxRedirects: 0 });
  expect(click.status()).toBe(302);
  expect(click.headers().location).toMatch(/^https:\/\/[a-z-]+\.example\//);

  // The roll-up runs in the server by itself.
  const pricing = (await (await request.get('/api/v1/pricing')).json()) as {
    publisher_ad_revenue_share: number;
    advertiser_cpm_usd: Record<string, number>;
  };
  const worth = (pricing.advertiser_cpm_usd.floating_video! / 1000) * pricing.publisher_ad_revenue_share;
  const started = Date.now();
  // The impression and the click are counted in two transactions, so a roll-up may run between
  // them and take the click in its next run, 10 s later: wait for both.
  await expect
    .poll(
      async () => {
        const p = (await placementsOf()).placements.find((p) => p.id === placement.id)!;
        return { impressions: p.impressions, clicks: p.clicks };
      },
      { timeout: 60_000, intervals: [1000] },
    )
    .toEqual({ impressions: 1, clicks: 1 });
  test.info().annotations.push({ type: 'roll-up', description: `showed after ${Date.now() - started} ms` });
  expect((await placementsOf()).placements.find((p) => p.id === placement.id)).toMatchObject({
    impressions: 1,
    clicks: 1,
    revenue_usd: Math.round(worth * 100) / 100,
    fill_rate: 1,
  });
  const earningsAfter = await (await request.get('/api/v1/me/earnings', { headers: bearer })).json();
  expect(earningsAfter.impressions - earningsBefore.impressions).toBe(1);
  expect(earningsAfter.clicks - earningsBefore.clicks).toBe(1);
  expect(Math.round((earningsAfter.ad_revenue_tracked_usd - earningsBefore.ad_revenue_tracked_usd) * 100) / 100).toBe(Math.round(worth * 100) / 100);
});
