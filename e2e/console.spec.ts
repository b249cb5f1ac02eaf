import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { formatCount, formatUsd } from '../lib/platform/kit/format';
import { accountToken } from './helpers/account-token';
import { graveViolations } from './helpers/axe';
import { choose } from './helpers/controls';

/**
 * The publisher's way in and what they do there: the header's "Sign in" link, the sign-in
 * form (with and without the page's script), the console's apps, placements and keys, and
 * signing out. Each console page is checked with axe and photographed at desktop and phone
 * widths (test-results/e2e/…).
 */

const PUBLISHERS = [
  { email: 'demo@example.com', password: 'demo-password' },
  { email: 'demo2@example.com', password: 'demo-password' },
];
const DEMO = PUBLISHERS[0]!;

async function signIn(page: Page, who = DEMO, path = '/dashboard') {
  await page.goto(path);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
}

/** No serious or critical accessibility violation, and a screenshot at each width. */
async function audit(page: Page, testInfo: TestInfo, name: string) {
  // After a navigation inside the app, Next sets the new page's title a moment later.
  await expect(page).toHaveTitle(/\S/);
  expect(await graveViolations(page), name).toEqual([]);
  for (const [width, height, label] of [
    [1280, 900, 'desktop'],
    [390, 844, 'phone'],
  ] as const) {
    await page.setViewportSize({ width, height });
    const shot = testInfo.outputPath(`${name}-${label}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    await testInfo.attach(`${name}-${label}`, { path: shot, contentType: 'image/png' });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the sign-in form is a plain form post that signs in and comes back to the console', async ({ page }) => {
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fdashboard$/);
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Refused: the message, the email kept, the password not.
    await expect(page.getByRole('alert')).toHaveText('The email or password is not right.');
    await expect(page.getByLabel('Email')).toHaveValue(DEMO.email);
    await expect(page.getByLabel('Password')).toHaveValue('');

    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
    await expect(page.getByText(`Signed in as ${DEMO.email}`)).toBeVisible();
  });
});

test('the header leads to sign-in, then to the console and out again', async ({ page }) => {
  await page.goto('/pricing');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel('Email').fill(DEMO.email);
  await page.getByLabel('Password').fill(DEMO.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Signed in from the header, without a destination: the console of the account's role.
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();

  const account = page.getByRole('navigation', { name: 'Account' });
  await page.goto('/pricing');
  await account.getByRole('link', { name: 'Console' }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();

  await account.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fdashboard$/);
});

for (const [n, publisher] of PUBLISHERS.entries()) {
  test(`${publisher.email} creates an app, a placement and a key, copies the key, revokes it, and the SDK refuses it`, async ({
    page,
    context,
    request,
  }, testInfo) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await signIn(page, publisher);
    if (n === 0) await audit(page, testInfo, 'console-overview');

    // A slug already taken is refused, and what was typed stays.
    const slug = `e2e-app-${n}-${Date.now()}`;
    const create = page.getByRole('region', { name: 'Create an app' });
    await create.getByLabel('Name').fill('E2E App');
    await create.getByLabel('Slug').fill(slug);
    await create.getByLabel('Allowed web origins').fill('https://e2e.example\nftp://nope.example');
    await create.getByRole('button', { name: 'Create app' }).click();
    await expect(create.getByRole('alert')).toContainText('scheme and host');
    await expect(create.getByLabel('Slug')).toHaveValue(slug);
    await create.getByLabel('Allowed web origins').fill('https://e2e.example');
    await create.getByRole('button', { name: 'Create app' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'E2E App' })).toBeVisible();

    await page.getByLabel('Placement name').fill('Sidebar card');
    await choose(page, page.getByLabel('Format'), 'Sponsored card');
    await page.getByRole('button', { name: 'Create placement' }).click();
    const placements = page.getByRole('region', { name: 'Placements of E2E App' });
    await expect(placements.getByRole('row', { name: /Sidebar card/ })).toContainText('Sponsored card');
    await page.getByRole('button', { name: 'Pause Sidebar card' }).click();
    await expect(placements.getByRole('row', { name: /Sidebar card/ })).toContainText('paused');

    // How relevant an ad must be on the placement, and the app's own rules; both kept after a reload.
    const relevance = page.getByRole('region', { name: 'Relevance and unfilled requests of E2E App' });
    await relevance.getByLabel('Least relevance for Sidebar card').fill('0.5');
    await relevance.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('need a relevance of 0.5 or more')).toBeVisible();
    await page.getByLabel('Excluded topics').fill('crypto\nday trading');
    await page.getByLabel('Blocked advertisers').fill('Fernway Travel');
    await page.getByRole('checkbox', { name: 'Gambling and betting' }).check();
    await page.getByRole('button', { name: 'Save ad rules' }).click();
    await expect(page.getByText('The next ad request of this app follows them')).toBeVisible();
    await page.reload();
    await expect(relevance.getByLabel('Least relevance for Sidebar card')).toHaveValue('0.5');
    await expect(page.getByLabel('Excluded topics')).toHaveValue('crypto\nday trading');
    await expect(page.getByRole('checkbox', { name: 'Gambling and betting' })).toBeChecked();

    const publishable = page.getByRole('region', { name: 'Publishable keys' });
    await publishable.getByLabel('Key name').fill('Web');
    await choose(page, publishable.getByLabel('Environment'), 'Production');
    await publishable.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    expect(key).toMatch(/^pk_live_[A-Za-z0-9]{32}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    const keys = page.getByRole('region', { name: 'API keys of E2E App' });
    await expect(keys.getByRole('row', { name: /Web/ })).toContainText(`${key.slice(0, 16)}…${key.slice(-4)}`);
    if (n === 0) await audit(page, testInfo, 'console-app');

    const validate = () => request.get('/functions/v1/validate-key', { headers: { 'x-api-key': key } });
    expect((await validate()).status()).toBe(200);
    // Revoking asks first, in a dialog (not the browser's confirm()); cancelling changes nothing.
    await page.getByRole('button', { name: 'Revoke Web' }).click();
    const dialog = page.getByRole('alertdialog', { name: /Revoke Web/ });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Go back' }).click();
    await expect(dialog).toBeHidden();
    await expect(keys.getByRole('row', { name: /Web/ })).toContainText('active');
    await page.getByRole('button', { name: 'Revoke Web' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await expect(keys.getByRole('row', { name: /Web/ })).toContainText('revoked');
    const refused = await validate();
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe('forbidden');
    // After a reload the key is masked: the full key was shown once.
    await page.reload();
    await expect(page.getByTestId('new-key')).toHaveCount(0);
    await expect(page.getByText(key)).toHaveCount(0);

    // A server key: shown once, with a server's request filled in with it; a secret that works
    // only as a bearer and never from a page.
    const server = page.getByRole('region', { name: 'Server keys' });
    await server.getByLabel('Name of the server key').fill('Backend');
    await server.getByRole('button', { name: 'Create server key' }).click();
    const secret = (await server.getByTestId('new-key').textContent())!;
    expect(secret).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    await expect(server.getByText('keep it on your server')).toBeVisible();
    await expect(server.getByText(`Authorization: Bearer ${secret}`)).toBeVisible();
    const serverKeys = page.getByRole('region', { name: 'Server keys of E2E App' });
    await expect(serverKeys.getByRole('row', { name: /Backend/ })).toContainText('Server');
    const asServer = await request.get('/functions/v1/validate-key', { headers: { authorization: `Bearer ${secret}` } });
    expect(asServer.status()).toBe(200);
    expect((await asServer.json()).key.kind).toBe('server');
    const fromPage = await request.get('/functions/v1/validate-key', { headers: { authorization: `Bearer ${secret}`, origin: 'https://e2e.example' } });
    expect(fromPage.status()).toBe(403);
    expect((await request.get('/functions/v1/validate-key', { headers: { 'x-api-key': secret } })).status()).toBe(401);
  });
}

test('connected apps lists what the publisher approved, and withdraws it', async ({ page }, testInfo) => {
  await signIn(page, PUBLISHERS[1]);
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Connected apps' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Connected apps' })).toBeVisible();
  await expect(page.getByText('at most one hour after it was issued')).toBeVisible();
  const row = page.getByRole('row', { name: /Reports Example \(demo\)/ });
  await expect(row).toContainText('profile:read, earnings:read');
  await audit(page, testInfo, 'console-connected');
  await row.getByRole('button', { name: 'Withdraw Reports Example (demo)' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Withdraw' }).click();
  await expect(page.getByText('You have not approved any app.')).toBeVisible();
});

test('the site has a favicon and absolute canonical links', async ({ page, request }) => {
  const icon = await request.get('/favicon.ico');
  expect(icon.status()).toBe(200);
  expect(icon.headers()['content-type']).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  await page.goto('/pricing');
  // Static pages are rendered at build time, with the base URL the build was configured with.
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', /^https?:\/\/[^/]+\/pricing$/);
});

test('the pricing page has no serious accessibility violation', async ({ page }) => {
  await page.goto('/pricing');
  expect(await graveViolations(page)).toEqual([]);
});

for (const [n, publisher] of PUBLISHERS.entries()) {
  test(`the console shows what the account API answers ${publisher.email}`, async ({ page, request, baseURL }, testInfo) => {
    const base = new URL(baseURL!).origin;
    // A token through the browser flow, as a third-party dashboard would get one.
    const token = await accountToken(page, request, { base, clientName: 'Totals Checker', scope: 'apps:read earnings:read', signIn: publisher });
    const bearer = { authorization: `Bearer ${token}` };
    const earnings = await (await request.get('/api/v1/me/earnings', { headers: bearer })).json();
    const { apps, placements } = await (await request.get('/api/v1/me/apps', { headers: bearer })).json();

    // The same publisher's console, in the same browser session.
    await page.goto('/dashboard');
    await expect(page.getByTestId('total-revenue')).toHaveText(formatUsd(earnings.ad_revenue_tracked_usd));
    await expect(page.getByTestId('total-impressions')).toHaveText(formatCount(earnings.impressions));
    await expect(page.getByTestId('total-clicks')).toHaveText(formatCount(earnings.clicks));
    for (const app of apps as { id: string; name: string }[]) {
      const table = page.getByRole('region', { name: `Placements of ${app.name}` });
      for (const p of (placements as { app_id: string; name: string; status: string; impressions: number; clicks: number; revenue_usd: number }[]).filter(
        (x) => x.app_id === app.id && x.status !== 'archived',
      )) {
        const cells = table.getByRole('row', { name: new RegExp(`^${p.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }).getByRole('cell');
        await expect(cells.nth(2)).toHaveText(formatCount(p.impressions));
        await expect(cells.nth(3)).toHaveText(formatCount(p.clicks));
        await expect(cells.nth(5)).toHaveText(formatUsd(p.revenue_usd));
      }
    }

    // The earnings page: the same totals, and the daily figures of the same period as the API's.
    const daily = await (await request.get('/api/v1/me/earnings/daily?days=7', { headers: bearer })).json();
    await page.goto('/dashboard/earnings?days=7');
    await expect(page.getByTestId('earnings-revenue')).toHaveText(formatUsd(earnings.ad_revenue_tracked_usd));
    await expect(page.getByTestId('earnings-impressions')).toHaveText(formatCount(earnings.impressions));
    await expect(page.getByTestId('period-revenue')).toHaveText(formatUsd(daily.totals.revenue_usd));
    const csv = decodeURIComponent(
      (await page.getByRole('link', { name: 'figures per day' }).getAttribute('href'))!.replace(/^data:text\/csv;charset=utf-8,/, ''),
    );
    // Exact, as the API's revenue_micro: dollars to the millionth, the figure the rounded revenue_usd is of.
    expect(csv.split('\r\n').filter(Boolean)).toEqual([
      'date,revenue_usd,impressions,clicks',
      ...(daily.daily as { date: string; revenue_micro: number; impressions: number; clicks: number }[]).map(
        (d) => `${d.date},${(d.revenue_micro / 1_000_000).toFixed(6)},${d.impressions},${d.clicks}`,
      ),
    ]);
    // The charts are in the page as served, before any script runs.
    const served = await (await page.request.get('/dashboard/earnings?days=30')).text();
    expect(served.match(/<svg[^>]*role="img"/g)?.length).toBe(3);
    if (n === 0) await audit(page, testInfo, 'console-earnings');
  });
}

test('a server action posted from another origin is refused (the CSRF check every console form relies on)', async ({ request, baseURL }) => {
  const html = await (await request.get('/signin')).text();
  const action = /name="(\$ACTION_ID_[0-9a-f]+)"/.exec(html)?.[1];
  expect(action).toBeTruthy();
  const post = (origin: string, headers: Record<string, string> = {}) =>
    request.post('/signin', {
      headers: { origin, ...headers },
      multipart: { [action!]: '', callbackUrl: '/dashboard', email: DEMO.email, password: DEMO.password },
      maxRedirects: 0,
    });
  const ours = await post(new URL(baseURL!).origin);
  expect(ours.status()).toBe(303);
  expect(ours.headers()['set-cookie']).toMatch(/next-auth\.session-token=/);
  const theirs = await post('https://evil.example');
  // Refused before the action runs: a 403, not Next's 500.
  expect(theirs.status()).toBe(403);
  expect(theirs.headers()['set-cookie'] ?? '').not.toMatch(/session-token/);
  // Naming their own host as the forwarded one changes nothing: only our platform may set it.
  const forged = await post('https://evil.example', { 'x-forwarded-host': 'evil.example' });
  expect(forged.status()).toBe(403);
  expect(forged.headers()['set-cookie'] ?? '').not.toMatch(/session-token/);
});
