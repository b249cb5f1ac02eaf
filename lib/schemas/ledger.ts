/**
 * The ledger's enumerations (migration 20261204000000_ledger), as the database's CHECK
 * constraints allow them (tests/integration/schema-enums.test.ts holds the two together).
 */

/**
 * Whose money an account holds: a user's, by side (a publisher's in two: `publisher`, earned and
 * not final yet, and `publisher_available`, final and not paid out; migration
 * 20261206000000_payouts), or the platform's.
 */
export const LEDGER_ACCOUNT_KINDS = ['publisher', 'publisher_available', 'advertiser', 'buyer', 'ad_sales', 'platform_fees', 'payouts'] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/** What a ledger transaction is. */
export const LEDGER_TRANSACTION_KINDS = [
  'ad_revenue',
  'platform_fee',
  'adjustment',
  'month_close',
  'payout',
  'payout_reversal',
  'top_up',
  'data_sale',
] as const;
export type LedgerTransactionKind = (typeof LEDGER_TRANSACTION_KINDS)[number];
