import { expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { totpCode } from '../lib/identity/auth/staff-totp';
import { DEMO_OPERATOR_TOTP_SECRET, DEMO_PASSWORD } from '../lib/demo/seed';
import { accountToken } from './helpers/account-token';
import { opsSignIn } from './helpers/ops';

/**
 * A payout from request to paid, as the two people involved do it: the demo publisher gives a bank
 * account and requests a payout of their available balance (the seed closed last month, so it is
 * final); the operator signs in with a password and a TOTP code, looks up the bank details and
 * marks the payout paid; the publisher sees it paid in the console, in GET /api/v1/me/earnings and
 * in MCP get_my_earnings, the balances moved by exactly its amount.
 */

interface Earnings {
  balance_available_usd: number;
  balance_pending_usd: number;
  payouts_paid_usd: number;
  payouts_pending_usd: number;
  ad_revenue_tracked_usd: number;
  payouts: { period: string; amount_usd: number; status: string; paid_at: string | null }[];
}

const cents = (usd: number) => Math.round(usd * 100);

test('the demo publisher requests a payout, the operator pays it, and every surface shows it paid', async ({ page, browser, request, baseURL }) => {
  test.setTimeout(120_000);
  const base = new URL(baseURL!).origin;

  // The publisher, in the console.
  await page.goto('/signin?callbackUrl=/dashboard/payouts');
  await page.getByLabel('Email').fill('demo@example.com');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Payouts' })).toBeVisible();
  const rest = await accountToken(page, request, { base, clientName: 'Payout Watcher', scope: 'earnings:read' });
  const earnings = async () => (await (await request.get('/api/v1/me/earnings', { headers: { authorization: `Bearer ${rest}` } })).json()) as Earnings;
  const before = await earnings();
  expect(before.balance_available_usd).toBeGreaterThan(50);

  await page.goto('/dashboard/payouts');
  await expect(page.getByTestId('balance-available')).toHaveText(`$${before.balance_available_usd.toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
  await page.getByText('Change to another bank account').click();
  await page.getByLabel('Account holder').fill('Demo Labs Ltd');
  await page.getByLabel('IBAN or account number').fill('DE89 3704 0044 0532 0130 00');
  await page.getByRole('button', { name: 'Save payout method' }).click();
  await expect(page.getByRole('status')).toContainText('Payouts will go to Demo Labs Ltd · •••• 3000');
  await page.reload();
  await expect(page.getByTestId('payout-method')).toContainText('Demo Labs Ltd · •••• 3000');
  // Whole cents: what is under a cent stays.
  const amount = Math.floor(before.balance_available_usd * 100 + 1e-6) / 100;
  await page.getByRole('button', { name: /^Request payout of \$/ }).click();
  await expect(page.getByRole('status')).toContainText('requested');
  const requested = await earnings();
  expect(requested.payouts[0]).toMatchObject({ status: 'pending', paid_at: null });
  const paidOut = requested.payouts[0]!.amount_usd;
  expect(Math.abs(cents(paidOut) - cents(amount))).toBeLessThanOrEqual(1);
  expect(cents(requested.balance_available_usd)).toBe(cents(before.balance_available_usd) - cents(paidOut));
  expect(cents(requested.payouts_pending_usd)).toBe(cents(before.payouts_pending_usd) + cents(paidOut));

  // The operator, in a browser of their own.
  const ops = await browser.newContext();
  const opsPage = await ops.newPage();
  await opsPage.goto('/ops');
  await expect(opsPage).toHaveURL(/\/ops\/signin/);
  // Signed in with a password and a code (a code is good once: the helper waits for the next when another test just used this one).
  await opsSignIn(opsPage);
  // The header knows the operator: offered the console, not a sign-up.
  await expect(opsPage.getByRole('banner').getByRole('link', { name: /^Operator console/ })).toBeVisible();
  await expect(opsPage.getByRole('banner').getByRole('link', { name: 'Sign up' })).toHaveCount(0);
  await opsPage.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: 'Payouts' }).click();
  const card = opsPage.getByRole('article', { name: 'Payout to demo@example.com' });
  await expect(card).toContainText(`$${paidOut.toLocaleString('en-US', { minimumFractionDigits: 2 })}`);
  await card.getByRole('button', { name: /^Show the bank details/ }).click();
  await expect(card.getByTestId('payout-details')).toContainText('DE89370400440532013000');
  await card.getByLabel('Transfer reference').fill('E2E-BANK-0001');
  await card.getByRole('button', { name: /^Mark .* paid$/ }).click();
  // It asks first, with the amount and the reference.
  const paidAmount = `$${paidOut.toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
  const confirm = opsPage.getByRole('alertdialog', { name: `Mark ${paidAmount} to demo@example.com paid?` });
  await expect(confirm).toContainText('E2E-BANK-0001');
  await confirm.getByRole('button', { name: `Mark ${paidAmount} paid` }).click();
  // Paid: no longer waiting, in the history with its reference, and in the audit log.
  await expect(card).toHaveCount(0);
  await expect(opsPage.getByRole('region', { name: 'Payouts sent and stopped' }).first()).toContainText('E2E-BANK-0001');
  await opsPage.getByRole('navigation', { name: 'Operator console' }).getByRole('link', { name: 'Audit log' }).click();
  await expect(opsPage.getByRole('region', { name: 'Audit log' }).first()).toContainText('payout.paid');
  await expect(opsPage.getByRole('region', { name: 'Audit log' }).first()).toContainText('payout.details_viewed');
  await ops.close();

  // The publisher sees it paid: the console, the REST API, MCP.
  await page.goto('/dashboard/payouts');
  const row = page
    .getByRole('row')
    .filter({ hasText: `$${paidOut.toLocaleString('en-US', { minimumFractionDigits: 2 })}` })
    .first();
  await expect(row).toContainText('paid');
  const after = await earnings();
  expect(after.payouts[0]).toMatchObject({ status: 'paid', amount_usd: paidOut, paid_at: expect.any(String) });
  expect(cents(after.payouts_paid_usd)).toBe(cents(before.payouts_paid_usd) + cents(paidOut));
  expect(cents(after.payouts_pending_usd)).toBe(cents(before.payouts_pending_usd));
  expect(cents(after.balance_available_usd)).toBe(cents(before.balance_available_usd) - cents(paidOut));
  expect(after.ad_revenue_tracked_usd).toBeGreaterThanOrEqual(before.ad_revenue_tracked_usd);

  const mcpToken = await accountToken(page, request, { base, clientName: 'Payout MCP', scope: 'earnings:read', resource: `${base}/mcp` });
  const client = new Client({ name: 'e2e-payouts', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${mcpToken}` } } }));
  const viaMcp = (await client.callTool({ name: 'get_my_earnings', arguments: { payout_limit: 1 } })).structuredContent as unknown as Earnings;
  await client.close();
  expect(viaMcp.payouts).toEqual([after.payouts[0]]);
  expect(viaMcp.payouts_paid_usd).toBe(after.payouts_paid_usd);
  expect(viaMcp.balance_available_usd).toBe(after.balance_available_usd);
});

test('a publisher never reaches the operator console or its actions', async ({ page }) => {
  await page.goto('/signin?callbackUrl=/dashboard');
  await page.getByLabel('Email').fill('demo2@example.com');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
  await page.goto('/ops');
  await expect(page).toHaveURL(/\/ops\/signin/);
  // Their own password and any code: no staff session.
  await page.getByLabel('Email').fill('demo2@example.com');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByLabel('Authentication code').fill(totpCode(DEMO_OPERATOR_TOTP_SECRET, new Date()));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'That did not work' })).toBeVisible();
  await page.goto('/ops');
  await expect(page).toHaveURL(/\/ops\/signin/);
});
