/**
 * The ledger's enumerations (migration 20261204000000_ledger), as the database's CHECK
 * constraints allow them (tests/integration/schema-enums.test.ts holds the two together).
 */

/**
 * Whose money an account holds: a user's, by side (a publisher's in two: `publisher`, earned and
 * not final yet, and `publisher_available`, final and not paid out; migration
 * 20261206000000_payouts; an advertiser's prepaid funds, migration 20261207000000_advertisers), or
 * the platform's: `ad_sales` (what ads counted before advertisers had accounts cost),
 * `platform_fees`, `payouts` (sent out) and `payments_in` (received through the rails: top-ups).
 */
export const LEDGER_ACCOUNT_KINDS = ['publisher', 'publisher_available', 'advertiser', 'buyer', 'ad_sales', 'platform_fees', 'payouts', 'payments_in'] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/** Each account kind as the operator's console names it, with what its balance is. */
export const LEDGER_ACCOUNT_NAMES: Record<LedgerAccountKind, { name: string; about: string }> = {
  publisher: { name: 'Publishers’ earnings, not final yet', about: 'Earned this month or last; final when the month closes.' },
  publisher_available: { name: 'Publishers’ earnings, available', about: 'Final and not paid out yet.' },
  advertiser: { name: 'Advertisers’ balances', about: 'Prepaid and not spent yet.' },
  buyer: { name: 'Data buyers’ balances', about: 'Prepaid and not spent yet.' },
  ad_sales: { name: 'Ad sales before advertiser accounts', about: 'What ads cost before advertisers had balances of their own.' },
  platform_fees: { name: 'Platform fees', about: 'Our share of what advertisers and buyers spent.' },
  payouts: { name: 'Paid out to publishers', about: 'Sent to publishers, by bank transfer or Stripe.' },
  payments_in: { name: 'Payments received', about: 'Top-ups received by invoice or card.' },
};

/** An account kind's name for people; an unknown kind as it is. */
export function ledgerAccountName(kind: string): string {
  return (LEDGER_ACCOUNT_NAMES as Record<string, { name: string } | undefined>)[kind]?.name ?? kind;
}

/** What a ledger transaction is. */
export const LEDGER_TRANSACTION_KINDS = [
  'ad_revenue',
  'platform_fee',
  'ad_spend',
  'adjustment',
  'month_close',
  'payout',
  'payout_reversal',
  'top_up',
  'data_sale',
  // A withdrawal soon after a sale: the buyer refunded, the publisher and the platform charged back (migration 20261213000400).
  'data_clawback',
  // Card money taken back (a refund, a dispute, a failed payment): out of the account it funded (migration 20261213000500).
  'top_up_reversal',
] as const;
export type LedgerTransactionKind = (typeof LEDGER_TRANSACTION_KINDS)[number];
