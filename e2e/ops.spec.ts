import { expect, test, type Browser, type Page } from '@playwright/test';
import { DEMO_ADVERTISER_EMAIL, DEMO_PASSWORD } from '../lib/demo/seed';
import { DEMO_BUYER_EMAIL } from '../lib/demo/data-market';
import { opsSignIn } from './helpers/ops';
import { pickDay, search } from './helpers/controls';

/**
 * The operator console (issue 43), in Chromium: in pages, one kind of work each, and every action
 * that moves money asks first in a dialog that states the amount and where it goes. "Go back"
 * leaves everything as it was; confirming does what the dialog said.
 */

async function signedIn(browser: Browser, email: string, path: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(`/signin?callbackUrl=${encodeURIComponent(path)}`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === path);
  return page;
}

/** Opens the dialog a button asks, checks what it says, and goes back. */
async function askedThenBack(page: Page, button: ReturnType<Page['getByRole']>, title: string | RegExp, says: (string | RegExp)[]) {
  await button.click();
  const dialog = page.getByRole('alertdialog', { name: title });
  await expect(dialog).toBeVisible();
  for (const s of says) await expect(dialog).toContainText(s);
  await dialog.getByRole('button', { name: 'Go back' }).click();
  await expect(dialog).toBeHidden();
}

for (const viewport of [
  { name: 'phone', width: 390, height: 844 },
  { name: 'laptop', width: 1280, height: 800 },
]) {
  test(`the operator signs in to a console of pages, and the header knows (${viewport.name})`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.setViewportSize(viewport);
    await opsSignIn(page);
    const nav = page.getByRole('navigation', { name: 'Operator console' });
    await expect(nav.getByRole('link')).toHaveText([
      'Overview',
      'Top-ups',
      'Reviews',
      'Traffic quality',
      'Payouts',
      'Month close',
      'Balances',
      'Pricing',
      'Audit log',
    ]);
    await expect(page.getByRole('banner').getByRole('link', { name: /^Operator console/ })).toBeVisible();
    await expect(page.getByRole('banner').getByRole('link', { name: 'Sign up' })).toHaveCount(0);
    // The ledger's accounts by the names people use.
    await nav.getByRole('link', { name: 'Balances' }).click();
    const accounts = page.getByRole('region', { name: 'Platform accounts' }).first();
    await expect(accounts).toContainText('Platform fees');
    await expect(accounts).not.toContainText('platform_fees');
    await expect(accounts).not.toContainText('payments_in');
  });
}

test('every money action on /ops asks first and states its amount', async ({ browser }) => {
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);

  // An invoice to record, asked for by the demo advertiser.
  const advertiser = await signedIn(browser, DEMO_ADVERTISER_EMAIL, '/dashboard/ads/funds');
  await advertiser.getByLabel('Amount (US dollars)').fill('250');
  await advertiser.getByRole('button', { name: 'Get an invoice' }).click();
  const invoiceHeading = advertiser.getByRole('heading', { level: 1, name: /^Invoice INV-/ });
  await expect(invoiceHeading).toBeVisible();
  const invoice = (await invoiceHeading.textContent())!.replace('Invoice ', '').trim();

  // An exclusive license to review, asked for by the demo buyer: its price reserved.
  const buyer = await signedIn(browser, DEMO_BUYER_EMAIL, '/dashboard/data');
  await buyer.getByRole('link', { name: 'Open the listing AI-interaction rows' }).click();
  await buyer.getByLabel('How many rows').fill('3');
  await buyer.getByRole('checkbox', { name: /^Exclusive license/ }).check();
  await buyer.getByRole('button', { name: 'Get a quote' }).click();
  const quote = buyer.getByRole('heading', { name: /^Exclusive license: \$/ });
  await expect(quote).toBeVisible();
  const price = (await quote.textContent())!.replace('Exclusive license: ', '').trim();
  await buyer.getByRole('button', { name: `Buy for ${price}` }).click();
  await expect(buyer).toHaveURL(/\/dashboard\/data\/licenses\/[0-9a-f-]{36}$/);

  const ops = await (await browser.newContext()).newPage();
  await opsSignIn(ops);

  // Top-ups: crediting says how much and to whom; canceling says nothing is credited.
  await ops.goto('/ops/top-ups');
  const card = ops.getByTestId('open-top-up').filter({ hasText: invoice });
  await card.getByLabel(/^Bank reference/).fill(`Asked twice ${stamp}`);
  await askedThenBack(ops, card.getByRole('button', { name: /^Record the payment/ }), 'Credit $250.00 to Fernway Courses?', [
    `Asked twice ${stamp}`,
    'advertising balance',
  ]);
  await card.getByRole('button', { name: /^Cancel invoice/ }).click();
  const cancel = ops.getByRole('alertdialog', { name: `Cancel invoice ${invoice} of $250.00?` });
  await expect(cancel).toContainText('Nothing is credited');
  await expect(cancel.getByRole('button', { name: 'Cancel the invoice' })).toHaveClass(/destructive/);
  await cancel.getByRole('button', { name: 'Cancel the invoice' }).click();
  await expect(card).toHaveCount(0);
  await advertiser.reload();
  await expect(advertiser.getByText(/canceled/i).first()).toBeVisible();

  // Payouts: the seeded publisher's pending and processing payouts, each action stating its amount.
  await ops.goto('/ops/payouts');
  const payouts = ops.getByTestId('open-payout').filter({ hasText: 'demo2@example.com' });
  await expect(payouts).toHaveCount(2);
  const pending = payouts.filter({ has: ops.getByRole('heading', { name: /: pending$/ }) });
  const amountOf = async (p: ReturnType<Page['getByTestId']>) => (await p.getByRole('heading').textContent())!.split(' to ')[0]!.trim();
  const pendingAmount = await amountOf(pending);
  expect(pendingAmount).toMatch(/^\$[0-9,]+\.[0-9]{2}$/);
  await askedThenBack(
    ops,
    pending.getByRole('button', { name: /^Mark .* processing$/ }),
    `Mark the payout of ${pendingAmount} to demo2@example.com processing?`,
    ['No money moves'],
  );
  await askedThenBack(ops, pending.getByRole('button', { name: /^Cancel the payout/ }), `Cancel the payout of ${pendingAmount} to demo2@example.com?`, [
    `${pendingAmount} goes back to their available balance`,
  ]);
  const processing = payouts.filter({ has: ops.getByRole('heading', { name: /: processing$/ }) });
  const processingAmount = await amountOf(processing);
  await processing.getByLabel(/^Why it failed/).fill('The bank returned it');
  await askedThenBack(
    ops,
    processing.getByRole('button', { name: /^Mark .* failed$/ }),
    `Mark the payout of ${processingAmount} to demo2@example.com failed?`,
    [`${processingAmount} goes back`, 'The bank returned it'],
  );
  await expect(payouts).toHaveCount(2);

  // Reviews: approving charges the reserved price; rejecting releases it.
  await ops.goto('/ops/reviews');
  const license = ops.getByTestId('data-license-to-review').filter({ hasText: price });
  await askedThenBack(ops, license.getByRole('button', { name: /^Approve the exclusive license/ }), /^Charge .* for this exclusive license\?$/, [price]);
  await license.getByLabel(/^Or reject, because/).fill('Not in this quarter');
  await license.getByRole('button', { name: /^Reject the exclusive license/ }).click();
  const reject = ops.getByRole('alertdialog', { name: /exclusive license\?$/ });
  await expect(reject).toContainText(`The ${price} reserved from their balance is released`);
  await reject.getByRole('button', { name: 'Reject and release' }).click();
  await expect(license).toHaveCount(0);

  // Balances: an adjustment says which way, how much and whose.
  await ops.goto('/ops/balances');
  // Nothing chosen: the browser stops the form before any question is asked.
  await ops.getByRole('button', { name: 'Post adjustment' }).click();
  await expect(ops.getByRole('alertdialog')).toHaveCount(0);
  await expect(ops.locator('input[name="user_id"]:invalid')).toHaveCount(1);
  await search(ops, ops.getByLabel('Publisher', { exact: true }), 'demo2', 'demo2@example.com');
  await ops.getByLabel(/^Amount \(USD/).fill('-1.25');
  await pickDay(ops, ops.getByLabel('The day it corrects'), new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
  await ops.getByLabel(/^Reason/).fill(`Invalid clicks found late ${stamp}`);
  await askedThenBack(ops, ops.getByRole('button', { name: 'Post adjustment' }), 'Take $1.25 from demo2@example.com’s earnings?', [
    `Invalid clicks found late ${stamp}`,
  ]);

  // Pricing: the change is stated value by value before it is scheduled.
  await ops.goto('/ops/pricing');
  await ops.getByLabel('Reason (the audit log keeps it)').fill('Checking the dialog');
  await askedThenBack(ops, ops.getByRole('button', { name: 'Schedule the new prices' }), 'Change the prices now?', ['Every value stays as it is']);

  // The month close: nothing due (the roll-up closes months by itself), or the amount it makes available.
  await ops.goto('/ops/months');
  const close = ops.getByRole('button', { name: /^Close the/ });
  if ((await close.count()) > 0) await askedThenBack(ops, close, /^Close /, [/becomes available to/]);
  else await expect(ops.getByText('No month is due now')).toBeVisible();

  // Nothing went back was done: the audit log holds the cancellation and the rejection only.
  await ops.goto('/ops/audit');
  const audit = ops.getByRole('region', { name: 'Audit log' }).first();
  await expect(audit).toContainText(`Asked twice ${stamp}`);
  await expect(audit).not.toContainText(`Invalid clicks found late ${stamp}`);
});
