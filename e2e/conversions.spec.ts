import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';
import { accountToken } from './helpers/account-token';
import { opsSignIn } from './helpers/ops';
import { search } from './helpers/controls';

/**
 * An advertiser that pays per click and measures what its clicks became, in Chromium, on the
 * production build (issue 44): a new advertiser is funded, makes a campaign paying per click with
 * an inline-text creative, gets it approved, and puts the conversion tag on its own pages (a local
 * test site on the loopback interface, standing for the advertiser's). The demo chat serves the
 * ad; a click goes through the click URL and lands on the test site with its click id; the tag
 * keeps it and, on the thank-you page, records the conversion. Then the advertiser's report and
 * `GET /api/v1/me/campaigns` show one click, what it cost (the bid, and no impression billed), one
 * conversion and the cost per conversion, to the micro-dollar.
 *
 * The creative's landing page is https (as every landing page must be) on a name that does not
 * resolve here; the click URL's answer is passed through unchanged but for its host, which is the
 * test site's: what is checked is the service's own redirect and click id.
 */

const exact = async (page: Page, testId: string) => Number(await page.getByTestId(testId).locator('data').getAttribute('value'));

/** The advertiser's site: a landing page and a thank-you page, each with the conversion tag. */
async function advertiserSite(service: string, tag: () => string): Promise<{ origin: string; visits: string[]; close: () => Promise<void> }> {
  const visits: string[] = [];
  const server: Server = createServer((req, res) => {
    visits.push(req.url ?? '');
    const thanks = req.url?.startsWith('/thanks');
    const script = `<script async src="${service}/sdk/conversion-v1.js" data-tag="${tag()}"${thanks ? ' data-conversion="signup" data-value-usd="49.00"' : ''}></script>`;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      thanks
        ? `<!doctype html><title>Thanks</title>${script}<h1>Thanks for signing up</h1>`
        : `<!doctype html><title>Landing</title>${script}<h1>Try our quiz maker</h1><a href="/thanks">Sign up</a>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    visits,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test('a campaign paying per click is served, clicked, converts through the tag, and reports one click, its cost and one conversion', async ({
  page,
  browser,
  request,
  baseURL,
}) => {
  test.setTimeout(240_000);
  const base = new URL(baseURL!).origin;
  const stamp = Date.now().toString(36);
  const email = `cpc-${stamp}@e2e.example`;
  const password = 'a long advertiser password';
  const headline = `Quizzes that convert ${stamp}`;
  const landing = `https://shop-${stamp}.example/start?ref=ads`;
  let tagId = '';
  const site = await advertiserSite(base, () => tagId);

  try {
    // A new advertiser, funded by an invoice the operator records as paid.
    await page.goto('/signup?as=advertiser');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Name').fill('Cole Clicks');
    await page.getByLabel('Company (optional)').fill(`Per Click ${stamp}`);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('heading', { name: 'Start advertising' })).toBeVisible();
    await page.getByLabel('Name on invoices').fill('Per Click Ltd');
    await page.getByLabel('Billing address').fill('1 Click Street\nLeeds');
    await page.getByLabel('Country (two letters)').fill('GB');
    await search(page, page.getByLabel('Time zone'), 'london', 'Europe/London');
    await page.getByRole('button', { name: 'Start advertising' }).click();
    await expect(page.getByRole('heading', { name: 'Funds and results' })).toBeVisible();
    await page.goto('/dashboard/ads/funds');
    await page.getByLabel('Amount (US dollars)').fill('100');
    await page.getByRole('button', { name: 'Get an invoice' }).click();
    const invoiceHeading = page.getByRole('heading', { level: 1, name: /^Invoice INV-/ });
    await expect(invoiceHeading).toBeVisible();
    const invoice = (await invoiceHeading.textContent())!.replace('Invoice ', '').trim();
    const ops = await (await browser.newContext()).newPage();
    await opsSignIn(ops);
    await ops.goto('/ops/top-ups');
    const open = ops.getByTestId('open-top-up').filter({ hasText: invoice });
    await open.getByLabel(/^Bank reference/).fill(`BANK-${stamp}`);
    await open.getByRole('button', { name: /^Record the payment/ }).click();
    await ops
      .getByRole('alertdialog', { name: /^Credit \$100\.00 to / })
      .getByRole('button', { name: 'Credit $100.00' })
      .click();
    await expect(open).toHaveCount(0);

    // A campaign paying per click: a bid under the floor is refused, then $0.60 (inline text at $5 CPM needs $0.50 at the 1% prior).
    const pricing = (await (await request.get('/api/v1/pricing?audience=advertiser')).json()) as { cpc_floor_usd: number };
    expect(pricing.cpc_floor_usd).toBeGreaterThan(0);
    await page.goto('/dashboard/ads/campaigns/new');
    await page.getByLabel('Campaign name').fill(`Per click ${stamp}`);
    await page.getByRole('checkbox', { name: /^Inline text/ }).check();
    await page.getByRole('radio', { name: /^Per click \(CPC\)/ }).check();
    await page.getByLabel(/^Bid per click/).fill('0.01');
    await page.getByLabel('Budget (US dollars)').fill('50');
    const hint = `glacier hike ${stamp}`;
    await page.getByLabel('Context hints').fill(`${hint}\nglacier walking`);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'The least a campaign may bid per click is' })).toBeVisible();
    await page.getByLabel(/^Bid per click/).fill('0.60');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await expect(page.getByRole('heading', { level: 1, name: `Per click ${stamp}` })).toBeVisible();
    await expect(page.getByTestId('campaign-clicks')).toHaveText('0');
    await page.getByLabel(/^Headline/).fill(headline);
    await page.getByLabel(/^Landing page/).fill(landing);
    await page.getByRole('button', { name: 'Add creative' }).click();
    await expect(page.getByRole('article', { name: `Creative: ${headline}` })).toBeVisible();
    await page.getByRole('button', { name: /^Send to review/ }).click();
    await ops.goto('/ops/reviews');
    const review = ops.getByTestId('campaign-to-review').filter({ hasText: email });
    await review.getByRole('button', { name: /^Approve the inline_text creative/ }).click();
    await expect(review.getByRole('button', { name: /^Approve the inline_text creative/ })).toHaveCount(0);
    await review.getByRole('button', { name: /^Approve the campaign/ }).click();
    await expect(review).toHaveCount(0);
    const campaignPage = page.url();

    // The conversion tag, from the console: its tag id goes on the test site's pages.
    await page.goto('/dashboard/ads/conversions');
    const snippet = await page.getByRole('figure').filter({ hasText: 'On every page' }).locator('code').textContent();
    tagId = /data-tag="(ct_[A-Za-z0-9]{24})"/.exec(snippet ?? '')![1]!;

    // The demo chat serves the ad for a conversation that names the hint; its impression is sent.
    const viewerContext = await browser.newContext();
    const viewer = await viewerContext.newPage();
    await viewer.route('**/functions/v1/ads**', (route) => route.fulfill({ status: 204 }));
    // The click URL's redirect, unchanged but for its host: the advertiser's site is the test site.
    let clickId = '';
    await viewerContext.route('**/functions/v1/click?**', async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      const location = new URL(answer.headers().location!);
      expect(`${location.origin}${location.pathname}`).toBe(landing.split('?')[0]);
      expect(location.searchParams.get('ref')).toBe('ads');
      clickId = location.searchParams.get('mclid')!;
      await route.fulfill({ status: answer.status(), headers: { location: `${site.origin}${location.pathname}${location.search}` } });
    });
    await viewer.goto('/demo');
    // The impression reaches the service (the SDK sends it within a second of the ad being seen) before the click.
    const impressionSent = viewer.waitForResponse((r) => new URL(r.url()).pathname === '/functions/v1/events' && r.request().method() === 'POST');
    await viewer.getByRole('button', { name: 'New chat' }).click();
    await viewer.getByLabel('Ask Quizly').fill(`Make me a quiz for our ${hint}`);
    await viewer.getByRole('button', { name: 'Send' }).click();
    const ad = viewer.locator('.demo-assistant').last().locator('.mz-ad');
    await expect(ad).toContainText(headline);
    await expect(viewer.getByTestId('sdk-events')).toContainText('viewable: inline_text', { timeout: 10_000 });
    expect((await impressionSent).status()).toBe(200);

    // A click: through the click URL to the landing page, with the click id; on to the thank-you page, where the tag converts.
    const [landed] = await Promise.all([viewerContext.waitForEvent('page'), ad.getByRole('link').first().click()]);
    await landed.waitForLoadState();
    expect(clickId).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}$/);
    expect(new URL(landed.url()).searchParams.get('mclid')).toBe(clickId);
    const recorded = landed.waitForResponse((r) => new URL(r.url()).pathname === '/functions/v1/conversions/tag');
    await landed.getByRole('link', { name: 'Sign up' }).click();
    await expect(landed.getByRole('heading', { name: 'Thanks for signing up' })).toBeVisible();
    // The click id came from the tag's first-party storage: the thank-you page's address has none.
    expect(new URL(landed.url()).searchParams.get('mclid')).toBeNull();
    expect((await recorded).status()).toBe(200);
    expect(site.visits.some((v) => v.startsWith('/start?ref=ads&mclid='))).toBe(true);

    // The console: the conversion counted; after the roll-up, one click at the bid, nothing for the impression, one conversion.
    await page.goto('/dashboard/ads/conversions');
    await expect(page.getByRole('region', { name: 'Last conversions received' }).getByRole('cell', { name: 'Counted', exact: true })).toBeVisible();
    const bidMicro = 600_000;
    await page.goto(campaignPage);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.getByTestId('campaign-clicks').textContent();
        },
        { timeout: 60_000, intervals: [2000] },
      )
      .toBe('1');
    expect(await exact(page, 'campaign-spend')).toBe(bidMicro);
    await page.goto('/dashboard/ads/reports?days=7');
    await expect(page.getByTestId('report-clicks')).toHaveText('1');
    await expect(page.getByTestId('report-conversions')).toHaveText('1');
    expect(await exact(page, 'report-spend')).toBe(bidMicro);
    await expect(page.getByTestId('report-cost-per-conversion')).toHaveText('$0.60');

    // And the account API, to the micro-dollar.
    const reader = await (await browser.newContext()).newPage();
    const token = await accountToken(reader, request, { base, clientName: 'CPC dashboard e2e', scope: 'campaigns:read', signIn: { email, password } });
    const api = (await (await request.get('/api/v1/me/campaigns', { headers: { authorization: `Bearer ${token}` } })).json()) as {
      balance_micro: number;
      campaigns: Record<string, unknown>[];
    };
    expect(api.balance_micro).toBe(100_000_000 - bidMicro);
    expect(api.campaigns).toEqual([
      expect.objectContaining({
        name: `Per click ${stamp}`,
        pricing_model: 'cpc',
        max_cpc_micro: bidMicro,
        impressions: 1,
        clicks: 1,
        spend_micro: bidMicro,
        conversions: 1,
        conversion_value_micro: 49_000_000,
        cost_per_conversion_micro: bidMicro,
      }),
    ]);
  } finally {
    await site.close();
  }
});
