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
