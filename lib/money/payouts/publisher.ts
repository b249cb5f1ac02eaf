import { asConsoleUser } from '../../identity/console';
import { z } from 'zod';
import type { Result } from '../../platform/kit/result';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { call, NOTHING, type Refusals } from '../../platform/kit/call';
import { micro, microAmount, microToUsd, wholeCents, type Micro } from '../../platform/kit/micro';
import { formatUsd } from '../../platform/kit/format';
import { sealDetails, type ManualDetails } from './details';

/**
 * A publisher's payouts, as they act on them in the console (content/docs/payouts.md): where the
 * money goes, a payout request, a cancellation. Each runs as the publisher (role `authenticated`),
 * through the database's functions (migration 20261206000000_payouts), which decide: this code
 * only says their answers in words.
 */

/** Why a payout cannot be requested (public.payout_eligibility, the one rule), with the facts the words need. */
type PayoutRefusal = 'no_method' | 'method_not_ready' | 'below_minimum';
const payoutFacts = z.object({ available_micro: z.coerce.number().pipe(microAmount), minimum_micro: z.coerce.number().pipe(microAmount) });
type PayoutFacts = z.infer<typeof payoutFacts>;

const usd = (amount: Micro) => formatUsd(microToUsd(amount));

/** public.payout_request's and public.payout_preview's refusals, in words. */
export const PAYOUT_REFUSALS: Refusals<PayoutRefusal, PayoutFacts> = {
  no_method: 'Choose where the money goes first: add a payout method.',
  method_not_ready: 'Your payout method is not ready yet: finish setting it up.',
  below_minimum: (r) => {
    // Payouts are in whole cents: what a payout would take, and what it lacks.
    const whole = wholeCents(r.available_micro);
    if (r.minimum_micro <= whole)
      return 'Nothing is available to pay out yet: a month’s earnings become available when it closes, on the 5th of the next month.';
    return `Your available balance is ${usd(whole)}; the minimum payout is ${usd(r.minimum_micro)}: ${usd(micro(Math.max(r.minimum_micro - whole, 0)))} to go.`;
  },
};

/** public.cancel_payout's refusals (public.payout_transition's, for a cancellation). */
const CANCEL_REFUSALS: Refusals<'not_found' | 'invalid_transition'> = {
  not_found: 'That payout does not exist.',
  invalid_transition: 'That payout is being sent: it can no longer be canceled.',
};

/**
 * Whether the publisher may request a payout now, and of how much, or why not in words: the
 * database's judgement (public.payout_preview: the same rule, facts and words as the request),
 * so the console's button says what pressing it would answer.
 */
export function payoutPreview(db: Database, userId: string): Promise<Result<{ amount_micro: Micro }>> {
  return call(
    asConsoleUser(db, userId),
    sql`select public.payout_preview() as answer`,
    z.object({ amount_micro: z.coerce.number().pipe(microAmount) }),
    PAYOUT_REFUSALS,
    { code: 'reason', facts: payoutFacts },
  );
}

/** The manual rail, with these details (sealed here with `key`, lib/money/payouts/details.ts). */
export async function setManualMethod(db: Database, key: Buffer, userId: string, details: ManualDetails): Promise<Result<{ masked: string }>> {
  const { ciphertext, masked } = sealDetails(key, details);
  await asConsoleUser(db, userId).query(sql`select public.payout_method_set_manual(${ciphertext}, ${masked})`);
  return { ok: true, value: { masked } };
}

/** A payout of the whole available balance, or why not. */
export function requestPayout(db: Database, userId: string): Promise<Result<{ id: string; amount: Micro }>> {
  return call(
    asConsoleUser(db, userId),
    sql`select public.request_payout() as answer`,
    z.object({ payout_id: z.string(), amount_micro: z.coerce.number().pipe(microAmount) }).transform((a) => ({ id: a.payout_id, amount: a.amount_micro })),
    PAYOUT_REFUSALS,
    { code: 'reason', facts: payoutFacts },
  );
}

/** Cancels the publisher's own payout while it is pending. */
export function cancelPayout(db: Database, userId: string, payoutId: string): Promise<Result> {
  return call(asConsoleUser(db, userId), sql`select public.cancel_payout(${payoutId}::uuid) as answer`, NOTHING, CANCEL_REFUSALS);
}
