import { expect, test, type Locator, type Page } from '@playwright/test';
import { DEMO_PASSWORD } from '../lib/demo/seed';
import { accountToken } from './helpers/account-token';
import { opsSignIn } from './helpers/ops';
import { search } from './helpers/controls';

/**
 * An advertiser from sign-up to report, in Chromium, on the production build: a new advertiser
 * signs up and sets up billing, asks for a $100 invoice, which the operator (signed in with a TOTP
 * code) records as paid; creates a campaign with an inline-text creative and context hints and
 * sends it to review; the operator approves it and its creative; the demo chat then shows the
 * creative on the first ad request whose conversation fits its hints, however much larger the
 * demo campaigns' budgets (its text as text, never markup), and after its impression the advertiser's
 * campaign page, report and `GET /api/v1/me/campaigns` show one impression and its spend, the
 * balance has fallen by exactly the format's CPM / 1000 and the demo publisher's earnings have
 * risen by exactly the publisher's share of it, to the micro-dollar (the ledger's figures: the
 * console's `<data>` values and the account API's `balance_micro`, `spend_micro` and
 * `ad_revenue_tracked_micro`).
 */

const DEMO = { email: 'demo@example.com', password: DEMO_PASSWORD };

/** The exact figure (micro-dollars) behind a rounded amount in the console. */
const exact = async (page: Page, testId: string) => Number(await page.getByTestId(testId).locator('data').getAttribute('value'));

/** An ad as drawn: its root's classes, its text, and each element inside it with its classes, in order. */
function shapeOf(ad: Locator) {
  return ad.evaluate((root) => ({
    root: root.className,
    text: root.textContent,
    parts: [...root.querySelectorAll('*')].map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
  }));
}

test('an advertiser signs up, is funded, is approved, and pays for exactly the impression the demo app showed', async ({ page, browser, request, baseURL }) => {
  test.setTimeout(240_000);
  const base = new URL(baseURL!).origin;
  const stamp = Date.now().toString(36);
  const email = `advertiser-${stamp}@e2e.example`;
  const headline = `Quiz prep that works <b>${stamp}</b>`;

  // Sign-up as an advertiser lands on the profile that makes the account one.
  await page.goto('/');
  await page.getByRole('link', { name: 'Create an advertiser account' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Create an advertiser account' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('a long advertiser password');
  await page.getByLabel('Name').fill('Eve Advertiser');
  await page.getByLabel('Company (optional)').fill(`E2E Learning ${stamp}`);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expect(page.getByRole('heading', { name: 'Start advertising' })).toBeVisible();
  // The company given at sign-up is not asked again: the profile starts from it.
  await expect(page.getByLabel('Company')).toHaveValue(`E2E Learning ${stamp}`);
  await page.getByLabel('Name on invoices').fill('E2E Learning Ltd');
  await page.getByLabel('Billing address').fill('3 Test Lane\nBristol');
  await page.getByLabel('Country (two letters)').fill('GB');
  await search(page, page.getByLabel('Time zone'), 'london', 'Europe/London');
  await page.getByRole('button', { name: 'Start advertising' }).click();
  await expect(page.getByRole('heading', { name: 'Funds and results' })).toBeVisible();
  expect(await exact(page, 'advertiser-balance')).toBe(0);

  // An invoice for $100 (below the minimum is refused first).
  await page.getByRole('link', { name: 'Add funds' }).click();
  await page.getByLabel('Amount (US dollars)').fill('1');
  await page.getByRole('button', { name: 'Get an invoice' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'A top-up is at least' })).toBeVisible();
  await page.getByLabel('Amount (US dollars)').fill('100');
  await page.getByRole('button', { name: 'Get an invoice' }).click();
  const invoiceHeading = page.getByRole('heading', { level: 1, name: /^Invoice INV-/ });
  await expect(invoiceHeading).toBeVisible();
  const invoice = (await invoiceHeading.textContent())!.replace('Invoice ', '').trim();

  // The operator records the transfer.
  const ops = await (await browser.newContext()).newPage();
  await opsSignIn(ops);
  await ops.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: 'Top-ups' }).click();
  const open = ops.getByTestId('open-top-up').filter({ hasText: invoice });
  await open.getByLabel(/^Bank reference/).fill(`BANK-${stamp}`);
  // A money action asks first, naming the amount and whose balance it credits.
  await open.getByRole('button', { name: /^Record the payment/ }).click();
  const credit = ops.getByRole('alertdialog', { name: /^Credit \$100\.00 to / });
  await expect(credit).toContainText(`BANK-${stamp}`);
  await credit.getByRole('button', { name: 'Credit $100.00' }).click();
  await expect(open).toHaveCount(0);

  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: `Receipt ${invoice}` })).toBeVisible();
  await page.goto('/dashboard/ads/funds');
  expect(await exact(page, 'funds-balance')).toBe(100_000_000);

  // A campaign buying inline text, keyword-targeted at the demo app (a quiz app), with one creative, sent to review.
  await page.goto('/dashboard/ads/campaigns/new');
  await page.getByLabel('Campaign name').fill(`Quiz season ${stamp}`);
  await page.getByRole('checkbox', { name: /^Inline text/ }).check();
  await page.getByLabel('Budget (US dollars)').fill('50000');
  await page.getByLabel('Keywords').fill('quiz, learning');
  // A phrase no other campaign has: where a conversation names it, this campaign is the one that fits.
  const hint = `volcano trip ${stamp}`;
  await page.getByLabel('Context hints').fill(`${hint}\nvolcano field trip`);
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page.getByRole('heading', { level: 1, name: `Quiz season ${stamp}` })).toBeVisible();
  // Without a daily cap a day may take the whole budget, which $100 does not pay for: said before review.
  await expect(page.getByText('Your balance, $100.00, does not pay for a day of this campaign (up to $50,000.00 a day)')).toBeVisible();
  // Before review: what keeps it from serving, and the reach estimate.
  await expect(page.getByTestId('delivery')).toContainText('It does not serve yet: It is not approved yet');
  await expect(page.getByTestId('delivery-estimate')).toContainText(/requests a day over the last week/);
  await page.getByLabel(/^Headline/).fill(headline);
  await page.getByLabel(/^Landing page/).fill('https://e2e-learning.example/quiz');
  await page.getByRole('button', { name: 'Add creative' }).click();
  await expect(page.getByRole('article', { name: `Creative: ${headline}` })).toBeVisible();
  await page.getByRole('button', { name: /^Send to review/ }).click();
  await expect(page.getByText('Waiting for the operator’s review.')).toBeVisible();

  // The operator approves the creative, then the campaign; it is funded and started, so it is active.
  await ops.goto('/ops/reviews');
  const review = ops.getByTestId('campaign-to-review').filter({ hasText: email });
  // The creative's text is shown as text: the markup in it is not an element.
  await expect(review.getByText(headline)).toBeVisible();
  await expect(review.locator('b')).toHaveCount(0);
  // And as apps will show it: the SDK's own drawing of it, at a phone's width and a desktop's.
  await expect(review.frameLocator('iframe[title="Preview on a phone"]').locator('.mz-ad')).toContainText(headline);
  await expect(review.frameLocator('iframe[title="Preview on a desktop"]').locator('.mz-ad')).toContainText(headline);
  await review.getByRole('button', { name: /^Approve the inline_text creative/ }).click();
  await expect(review.getByRole('button', { name: /^Approve the inline_text creative/ })).toHaveCount(0);
  await review.getByRole('button', { name: /^Approve the campaign/ }).click();
  await expect(review).toHaveCount(0);
  await page.reload();
  await expect(page.getByText('Running: its delivery says what it wins.')).toBeVisible();
  // Its delivery panel: nothing keeps it from the draw, nothing won yet, and a reach estimate.
  const delivery = page.getByTestId('delivery');
  await expect(delivery).toContainText('It takes part in the draw for every request it targets.');
  await expect(delivery.getByTestId('delivery-won')).toHaveText('0');
  await expect(delivery.getByTestId('delivery-estimate')).toContainText('Reach estimate');

  // The demo publisher's exact earnings before, from the account API.
  const publisher = await (await browser.newContext()).newPage();
  const token = await accountToken(publisher, request, { base, clientName: 'Advertiser e2e', scope: 'earnings:read', signIn: DEMO });
  const earned = async () =>
    ((await (await request.get('/api/v1/me/earnings', { headers: { authorization: `Bearer ${token}` } })).json()) as { ad_revenue_tracked_micro: number })
      .ad_revenue_tracked_micro;
  const before = await earned();
  const pricing = (await (await request.get('/api/v1/pricing')).json()) as { advertiser_cpm_usd: { inline_text: number }; publisher_ad_revenue_share: number };
  const costMicro = Math.round(pricing.advertiser_cpm_usd.inline_text * 1000);
  const shareMicro = Math.round(costMicro * pricing.publisher_ad_revenue_share);

  // The demo chat, in a new conversation that names the hint: its answer's ad is this creative, on
  // the first request, not after the demo campaigns (with far larger budgets) are capped. The chat's
  // server asks for it with Quizly's server key, for this browser; every ad request of the page itself
  // is answered "no ad" without asking, so that nothing else is billed: the one impression recorded is
  // this creative's, sent by this browser (an impression counts only from the client its ad was served to).
  const viewer = await (await browser.newContext()).newPage();
  const question = `Make me a quiz to prepare our ${hint}`;
  await viewer.route('**/functions/v1/ads**', (route) => route.fulfill({ status: 204 }));
  await viewer.goto('/demo');
  await viewer.getByRole('button', { name: 'New chat' }).click();
  const answered = viewer.waitForResponse((r) => new URL(r.url()).pathname === '/api/demo/chat' && (r.request().postData() ?? '').includes(question));
  await viewer.getByLabel('Ask Quizly').fill(question);
  await viewer.getByRole('button', { name: 'Send' }).click();
  expect((await answered).status()).toBe(200);
  const ad = viewer.locator('.demo-assistant').last().locator('.mz-ad');
  await expect(ad, 'the first request with a conversation that fits the new campaign is answered with it').toContainText(headline);
  // Its text as text: the `<b>` typed into the headline is not an element in the page.
  await expect(ad.locator('b')).toHaveCount(0);
  const servedShape = await shapeOf(ad);
  // In view for more than a second: its impression is sent.
  await expect(viewer.getByTestId('sdk-events')).toContainText('viewable: inline_text', { timeout: 10_000 });
  // It was chosen for the hint: "Why this ad?" names it.
  await ad.getByRole('button', { name: 'Why this ad?' }).click();
  await expect(viewer.getByRole('dialog', { name: 'Why this ad?' })).toContainText(hint);
  await viewer.keyboard.press('Escape');

  // After the roll-up (every 10 s): one impression, its spend, the balance down by CPM / 1000, the publisher up by their share.
  await page.goto('/dashboard/ads');
  await expect
    .poll(
      async () => {
        await page.reload();
        return exact(page, 'advertiser-balance');
      },
      { timeout: 60_000, intervals: [2000] },
    )
    .toBe(100_000_000 - costMicro);
  await page.getByRole('link', { name: `Quiz season ${stamp}` }).click();
  await expect(page.getByTestId('campaign-impressions')).toHaveText('1');
  // The delivery panel shows the request it won today.
  await expect(page.getByTestId('delivery-won')).toHaveText('1');
  // Its previews, at a phone's and a desktop's width, are drawn as the served ad was: the same elements, classes and text.
  const creative = page.getByRole('article', { name: `Creative: ${headline}` });
  for (const device of ['phone', 'desktop']) {
    expect(await shapeOf(creative.frameLocator(`iframe[title="Preview on a ${device}"]`).locator('.mz-ad'))).toEqual(servedShape);
  }
  expect(await exact(page, 'campaign-spend')).toBe(costMicro);
  await expect(page.getByRole('region', { name: 'Spend per app' })).toContainText('Quizly');
  expect(await earned()).toBe(before + shareMicro);
  const campaignPage = page.url();

  // The report across campaigns says the same.
  await page.goto('/dashboard/ads/reports?days=7');
  await expect(page.getByTestId('report-impressions')).toHaveText('1');
  expect(await exact(page, 'report-spend')).toBe(costMicro);
  await expect(page.getByRole('region', { name: 'Where your ads ran' })).toContainText('Quizly');

  // And so does the read-only API, to a dashboard the advertiser authorized with campaigns:read.
  const reader = await (await browser.newContext()).newPage();
  const campaignsToken = await accountToken(reader, request, {
    base,
    clientName: 'Advertiser dashboard e2e',
    scope: 'campaigns:read',
    signIn: { email, password: 'a long advertiser password' },
  });
  const api = (await (await request.get('/api/v1/me/campaigns', { headers: { authorization: `Bearer ${campaignsToken}` } })).json()) as {
    balance_micro: number;
    campaigns: { name: string; status: string; impressions: number; spend_micro: number; creatives: { headline: string; status: string }[] }[];
  };
  expect(api.balance_micro).toBe(100_000_000 - costMicro);
  expect(api.campaigns).toEqual([
    expect.objectContaining({
      name: `Quiz season ${stamp}`,
      status: 'active',
      impressions: 1,
      spend_micro: costMicro,
      creatives: [expect.objectContaining({ headline, status: 'active' })],
    }),
  ]);
  await page.goto(campaignPage);

  // Paused by its advertiser, it serves nothing more (and leaves the demo page to the demo advertisers).
  await page.getByRole('button', { name: /^Pause: / }).click();
  await expect(page.getByText('Paused by you.')).toBeVisible();
});
