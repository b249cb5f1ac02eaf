import { z } from 'zod';
import { asStaff } from '../../identity/auth/staff';
import type { SignedInUser } from '../../identity/auth/users';
import { refused, type Result } from '../../platform/kit/result';
import { unseal } from '../../platform/crypto';
import type { Database } from '../../platform/db/roles';
import { answerOf, call, type Refusals } from '../../platform/kit/call';
import { sql } from '../../platform/db/sql';
import { microAmount, type Micro } from '../../platform/kit/micro';
import { manualDetails, PAYOUT_DETAILS_PURPOSE, type ManualDetails } from './details';
import { sendTransfer, type StripeRail } from '../stripe/rail';

/**
 * What staff do in the operator console (/ops; content/docs/payouts.md, The operator), each as
 * themselves through the database's staff functions (migration 20261206000000_payouts), which
 * check public.is_staff and write the audit log. Amounts cross in micro-dollars.
 */

/**
 * The statuses staff can mark a payout with: each is where public.payout_next_statuses lets some
 * status go (tests/integration/payout-marks.test.ts holds the two equal). Which one a payout may
 * take now, and what it needs, is the database's to say.
 */
export const PAYOUT_MARKS = ['processing', 'paid', 'failed', 'canceled'] as const;
export type PayoutMark = (typeof PAYOUT_MARKS)[number];

/** An amount in micro-dollars, as the staff functions answer it. */
const micro = z.coerce.number().pipe(microAmount);
const moment = z.coerce.date();

export const overview = z.object({
  platform: z.array(z.object({ kind: z.string(), balance_micro: micro })),
  publishers: z.array(
    z.object({
      user_id: z.string(),
      email: z.string(),
      name: z.string().nullable(),
      pending_micro: micro,
      available_micro: micro,
      rail: z.string().nullable(),
      destination: z.string().nullable(),
      method_ready: z.boolean(),
    }),
  ),
  payouts: z.array(
    z.object({
      id: z.string(),
      user_id: z.string(),
      email: z.string(),
      period: z.string(),
      amount_micro: micro,
      status: z.string(),
      rail: z.string(),
      destination: z.string().nullable(),
      reference: z.string().nullable(),
      failure_reason: z.string().nullable(),
      requested_at: moment,
      paid_at: moment.nullable(),
      open: z.boolean(),
      /** The statuses staff may mark it with now (public.payout_next_statuses): what the console offers. */
      next: z.array(z.enum(PAYOUT_MARKS)),
    }),
  ),
  months: z.array(z.object({ month: z.string(), closed_at: moment, publishers: z.number().int(), amount_micro: micro })),
  audit: z.array(
    z.object({
      id: z.coerce.number().int(),
      at: moment,
      staff: z.string().nullable(),
      action: z.string(),
      subject: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  ),
});
export type StaffOverview = z.infer<typeof overview>;

export async function staffOverview(db: Database, staff: SignedInUser): Promise<StaffOverview> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_overview(100) as v`, z.object({ v: overview }));
  return row!.v;
}

const NO_SUCH_PAYOUT = 'That payout does not exist.';

/** public.staff_payout_mark's refusals (public.payout_transition's). */
const MARK_REFUSALS: Refusals<'not_found' | 'invalid_transition' | 'reference_required' | 'reason_required'> = {
  not_found: NO_SUCH_PAYOUT,
  invalid_transition: 'That payout cannot move to this status from where it is.',
  reference_required: 'Give the reference of the transfer that paid it.',
  reason_required: 'Give the reason the publisher will read.',
};

/** Moves a payout on (public.staff_payout_mark: processing, paid with a reference, failed with a reason, canceled). */
export function markPayout(
  db: Database,
  staff: SignedInUser,
  input: { id: string; status: PayoutMark; reference?: string; reason?: string },
): Promise<Result<{ status: string }>> {
  return call(
    asStaff(db, staff),
    sql`select public.staff_payout_mark(${input.id}::uuid, ${input.status}, ${input.reference ?? null}, ${input.reason ?? null}, ${input.reason ?? null}) as v`,
    z.object({ status: z.string() }),
    MARK_REFUSALS,
  );
}

export interface PayoutDetails {
  email: string;
  amount_micro: Micro;
  status: string;
  rail: string | null;
  masked: string | null;
  /** The manual rail's details, opened; null for Stripe (it pays the connected account). */
  details: ManualDetails | null;
  stripe_account_id: string | null;
}

const detailsRow = z.object({
  email: z.string(),
  amount_micro: micro,
  status: z.string(),
  rail: z.string().nullable(),
  masked: z.string().nullable(),
  details_ciphertext: z.string().nullable(),
  stripe_account_id: z.string().nullable(),
});
/** public.staff_payout_details's answer: null when there is no such payout. */
const detailsAnswer = z.object({ v: detailsRow.nullable() });

/** A payout's destination in full, to send it by hand (public.staff_payout_details: audited with `why`). */
export async function payoutDetails(db: Database, staff: SignedInUser, key: Buffer, id: string, why: string): Promise<PayoutDetails | null> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_payout_details(${id}::uuid, ${why}) as v`, detailsAnswer);
  if (!row?.v) return null;
  const { details_ciphertext: sealed, ...v } = row.v;
  const details = sealed ? manualDetails.parse(JSON.parse(unseal(key, sealed, PAYOUT_DETAILS_PURPOSE))) : null;
  return { ...v, details };
}

/**
 * Sends a payout whose method is Stripe: `processing`, then the Transfer (the payout's id its
 * Idempotency-Key, lib/money/stripe/rail.ts), then `paid` with the transfer's id, or `failed` with
 * Stripe's reason (the amount back in the publisher's balance). A payout left `processing` by a
 * send that got no answer is sent again the same way (marking it `processing` again changes
 * nothing): Stripe finds the transfer it made. Whether the payout can still be sent is the
 * database's to say, when it is marked `processing`.
 */
export async function sendWithStripe(db: Database, staff: SignedInUser, rail: StripeRail, id: string): Promise<Result<{ status: string }>> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_payout_details(${id}::uuid, ${'sent with Stripe'}) as v`, detailsAnswer);
  if (!row?.v) return refused(NO_SUCH_PAYOUT);
  const payout = row.v;
  if (payout.rail !== 'stripe' || !payout.stripe_account_id) return refused('This publisher is not paid through Stripe.');
  const started = await markPayout(db, staff, { id, status: 'processing' });
  if (!started.ok) return started;
  const sent = await sendTransfer(rail, { id, amountMicro: payout.amount_micro, accountId: payout.stripe_account_id });
  return sent.ok
    ? markPayout(db, staff, { id, status: 'paid', reference: sent.transferId })
    : markPayout(db, staff, { id, status: 'failed', reason: sent.reason });
}

/** public.staff_post_adjustment's refusals. */
const ADJUSTMENT_REFUSALS: Refusals<'not_found' | 'reason_required' | 'amount_required'> = {
  not_found: 'That publisher does not exist.',
  reason_required: 'Give an amount other than zero and a reason.',
  amount_required: 'Give an amount other than zero and a reason.',
};

/** An adjustment of a publisher's earnings (public.staff_post_adjustment), once per `reference`. */
export function postAdjustment(
  db: Database,
  staff: SignedInUser,
  input: { user_id: string; amount_micro: Micro; reason: string; day: string; reference: string },
): Promise<Result<{ transaction_id: string }>> {
  return call(
    asStaff(db, staff),
    sql`select public.staff_post_adjustment(${input.user_id}::uuid, ${input.amount_micro}, ${input.reason}, null,
                                            ${input.day}::date::timestamp at time zone 'UTC', ${input.reference}) as v`,
    z.object({ transaction_id: z.string() }),
    ADJUSTMENT_REFUSALS,
  );
}

/** Closes the months that are due (public.staff_close_months); answers how many it closed. */
export async function closeMonths(db: Database, staff: SignedInUser, why: string): Promise<number> {
  const { closed } = await answerOf(asStaff(db, staff), sql`select public.staff_close_months(${why}) as v`, z.object({ closed: z.number() }));
  return closed;
}
