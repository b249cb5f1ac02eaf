import { z } from 'zod';
import { asConsoleUser } from '../identity/console';
import { as, type Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { call, type Refusals } from '../platform/kit/call';
import { micro, microAmount, microToUsd, usdToMicro, type Micro } from '../platform/kit/micro';
import { formatUsd } from '../platform/kit/format';
import type { Result } from '../platform/kit/result';
import { dollars } from '../platform/kit/typed-number';
import { TOP_UP_RAILS, TOP_UP_STATUSES } from '../schemas/advertising';
import { DEFAULT_MIN_TOP_UP_USD } from './pricing/defaults';

/**
 * Prepaid funds, for every side that pays in advance: an advertiser's balance and a data buyer's
 * balance are both funded by top-ups, an invoice paid by bank transfer (the manual rail, credited
 * by the operator when the money arrives) or a card payment through Stripe Checkout
 * (./stripe/checkout.ts). A user who both advertises and buys data has top-ups of both kinds in
 * the same table (`account_kind`); each console reads its own kind only, as the user, so
 * row-level security keeps them to their own. The database judges every request
 * (public.top_up_request); these ask it and say its answer in words.
 */

/** The balances a top-up can fund. */
export type FundedAccount = 'advertiser' | 'buyer';

/** A row of public.top_ups as its user reads it: no invoice for a card top-up, no reference nor payment time until it is paid. */
export const topUpRow = z.object({
  id: z.string(),
  amount_micro: microAmount,
  rail: z.enum(TOP_UP_RAILS),
  status: z.enum(TOP_UP_STATUSES),
  invoice_number: z.string().nullable(),
  payment_reference: z.string().nullable(),
  requested_at: z.date(),
  paid_at: z.date().nullable(),
});
export type TopUp = z.output<typeof topUpRow>;

/** A top-up as a form asks for it: dollars as typed, in micro-dollars. */
export const topUpInput = z.object({ amount_usd: dollars('amount') });

/** Card top-ups (Stripe Checkout sessions) opened in the last 24 hours and not paid: public.top_up_checkout_refusal. */
export const OPEN_CARD_TOP_UPS = 5;

/** public.top_up_request's refusals (public.top_up_refusal, then at most ten invoices waiting), for each balance. */
type TopUpCode = 'not_an_advertiser' | 'not_a_buyer' | 'amount_out_of_range' | 'too_many_open';
const topUpFacts = z.object({ minimum_micro: z.coerce.number().nullish() });
type TopUpFacts = z.infer<typeof topUpFacts>;
/** The refusal of an amount outside what a top-up may be, by invoice or by card (./stripe/checkout.ts). */
export const outOfRange = (a: TopUpFacts) => `A top-up is at least ${formatUsd(microToUsd(micro(a.minimum_micro ?? 0)))} and at most $1,000,000.`;
// A request for one balance is never refused for want of the other's profile: each table has its own.
const TOP_UP_REFUSALS: {
  advertiser: Refusals<Exclude<TopUpCode, 'not_a_buyer'>, TopUpFacts>;
  buyer: Refusals<Exclude<TopUpCode, 'not_an_advertiser'>, TopUpFacts>;
} = {
  advertiser: {
    not_an_advertiser: 'Set up your advertiser profile first: invoices need your billing details.',
    amount_out_of_range: outOfRange,
    too_many_open: 'You have ten invoices waiting to be paid: pay one (or ask the operator to cancel one you will not pay) before asking for another.',
  },
  buyer: {
    not_a_buyer: 'Set up your data buyer profile first: invoices need your billing details.',
    amount_out_of_range: outOfRange,
    too_many_open: 'You have ten invoices waiting to be paid: pay one before asking for another.',
  },
};

/** A manual top-up of `account`'s balance: an invoice paid by bank transfer; the operator credits it when the money arrives. */
export async function requestTopUp(
  db: Database,
  userId: string,
  amountMicro: Micro,
  account: FundedAccount,
): Promise<Result<{ id: string; invoice_number: string }>> {
  const ask = <Code extends TopUpCode>(refusals: Refusals<Code, TopUpFacts>) =>
    call(
      asConsoleUser(db, userId),
      sql`select public.top_up_request(${amountMicro}::bigint, ${account}) as answer`,
      z.object({ top_up_id: z.string(), invoice_number: z.string() }).transform((a) => ({ id: a.top_up_id, invoice_number: a.invoice_number })),
      refusals,
      { facts: topUpFacts },
    );
  return account === 'advertiser' ? ask(TOP_UP_REFUSALS.advertiser) : ask(TOP_UP_REFUSALS.buyer);
}

const COLUMNS = sql`id, amount_micro::float8 as amount_micro, rail, status, invoice_number, payment_reference, requested_at, paid_at`;

/** The user's top-ups of `account`'s balance, newest first (at most `limit`). */
export async function topUps(db: Database, userId: string, account: FundedAccount, limit = 100): Promise<TopUp[]> {
  return asConsoleUser(db, userId).query(
    sql`select ${COLUMNS} from public.top_ups
        where user_id = ${userId}::uuid and account_kind = ${account}
        order by requested_at desc, id limit ${limit}`,
    topUpRow,
  );
}

/** One top-up of the user's `account` balance, or null (not theirs, or one that funds their other balance). */
export async function topUpOf(db: Database, userId: string, account: FundedAccount, id: string): Promise<TopUp | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await asConsoleUser(db, userId).query(
    sql`select ${COLUMNS} from public.top_ups where id = ${id}::uuid and user_id = ${userId}::uuid and account_kind = ${account}`,
    topUpRow,
  );
  return row ?? null;
}

/** The smallest top-up, as the pricing settings publish it (read as anyone may). */
export async function minimumTopUp(db: Database): Promise<Micro> {
  const [row] = await as(db, 'anon').query(sql`select min_top_up_micro as micro from public.pricing_settings limit 1`, z.object({ micro: microAmount }));
  return row?.micro ?? usdToMicro(DEFAULT_MIN_TOP_UP_USD);
}

/** Demo bank details, printed on invoices outside production when none are configured: they move no money. */
const DEMO_BANK_DETAILS = 'Monetize Demo Ltd · IBAN GB00 DEMO 0000 0000 0000 00 · Demo Bank (demo details: no money moves)';

/** Where an invoice is paid: the configured bank details, demo ones outside production, or null (ask the operator). */
export function bankDetails(config: { TOP_UP_BANK_DETAILS?: string; NODE_ENV: string }): string | null {
  return config.TOP_UP_BANK_DETAILS ?? (config.NODE_ENV === 'production' ? null : DEMO_BANK_DETAILS);
}
