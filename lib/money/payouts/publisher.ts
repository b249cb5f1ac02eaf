import { asConsoleUser } from '../../identity/console';
import { z } from 'zod';
import type { Result } from '../../platform/kit/result';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { micro, microAmount, microToUsd, type Micro } from '../../platform/kit/micro';
import type { MoneyRow, PayoutMethodRow } from '../../schemas/account';
import { sealDetails, type ManualDetails } from './details';

/**
 * A publisher's payouts, as they act on them in the console (content/docs/payouts.md): where the
 * money goes, a payout request, a cancellation. Each runs as the publisher (role `authenticated`),
 * through the database's functions (migration 20261206000000_payouts), which decide: this code
 * only says their answers in words.
 */

const requestAnswer = z.union([
  z.object({ ok: z.literal(true), payout_id: z.string(), amount_micro: z.coerce.number().pipe(microAmount) }),
  z.object({
    ok: z.literal(false),
    reason: z.enum(['no_method', 'method_not_ready', 'below_minimum']),
    available_micro: z.coerce.number().pipe(microAmount),
    minimum_micro: z.coerce.number().pipe(microAmount),
  }),
]);

const transitionAnswer = z.object({
  ok: z.boolean(),
  status: z.string().nullable(),
  error: z.enum(['not_found', 'invalid_transition', 'reference_required', 'reason_required']).optional(),
});

export type RequestRefusal = z.infer<typeof requestAnswer> & { ok: false };

const usd = (amount: Micro) => `$${microToUsd(amount).toFixed(2)}`;

/** Why a payout cannot be requested, in words (the database's reason, or the console's reading of the same facts). */
export function refusalMessage(r: Pick<RequestRefusal, 'reason' | 'available_micro' | 'minimum_micro'>): string {
  switch (r.reason) {
    case 'no_method':
      return 'Choose where the money goes first: add a payout method.';
    case 'method_not_ready':
      return 'Your payout method is not ready yet: finish setting it up.';
    case 'below_minimum': {
      // Payouts are in whole cents: what a payout would take, and what it lacks.
      const whole = micro(Math.max(r.available_micro - (r.available_micro % 10_000), 0));
      if (r.minimum_micro <= whole)
        return 'Nothing is available to pay out yet: a month’s earnings become available when it closes, on the 5th of the next month.';
      return `Your available balance is ${usd(whole)}; the minimum payout is ${usd(r.minimum_micro)}: ${usd(micro(Math.max(r.minimum_micro - whole, 0)))} to go.`;
    }
  }
}

/**
 * Whether the console offers "Request payout", from what the page read: the same checks as the
 * database's, in the same order, so the button says why before anyone presses it.
 */
export function payoutBlocker(money: MoneyRow, method: PayoutMethodRow | null, minimum: Micro): string | null {
  const facts = { available_micro: money.available_micro, minimum_micro: minimum };
  if (!method) return refusalMessage({ reason: 'no_method', ...facts });
  if (!method.ready) return refusalMessage({ reason: 'method_not_ready', ...facts });
  const whole = money.available_micro - (money.available_micro % 10_000);
  if (whole <= 0 || whole < minimum) return refusalMessage({ reason: 'below_minimum', ...facts });
  return null;
}

/** The manual rail, with these details (sealed here with `key`, lib/money/payouts/details.ts). */
export async function setManualMethod(db: Database, key: Buffer, userId: string, details: ManualDetails): Promise<Result<{ masked: string }>> {
  const { ciphertext, masked } = sealDetails(key, details);
  await asConsoleUser(db, userId).query(sql`select public.payout_method_set_manual(${ciphertext}, ${masked})`);
  return { ok: true, value: { masked } };
}

/** A payout of the whole available balance, or why not. */
export async function requestPayout(db: Database, userId: string): Promise<Result<{ id: string; amount: Micro }>> {
  const [row] = await asConsoleUser(db, userId).query<{ answer: unknown }>(sql`select public.request_payout() as answer`);
  const answer = requestAnswer.parse(row!.answer);
  return answer.ok ? { ok: true, value: { id: answer.payout_id, amount: answer.amount_micro } } : { ok: false, error: refusalMessage(answer) };
}

/** Cancels the publisher's own payout while it is pending. */
export async function cancelPayout(db: Database, userId: string, payoutId: string): Promise<Result> {
  const [row] = await asConsoleUser(db, userId).query<{ answer: unknown }>(sql`select public.cancel_payout(${payoutId}::uuid) as answer`);
  const answer = transitionAnswer.parse(row!.answer);
  if (answer.ok) return { ok: true, value: undefined };
  return {
    ok: false,
    error: answer.error === 'not_found' ? 'That payout does not exist.' : 'That payout is being sent: it can no longer be canceled.',
  };
}
