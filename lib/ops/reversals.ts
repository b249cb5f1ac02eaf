import { z } from 'zod';
import { asStaff } from '../identity/auth/staff';
import type { SignedInUser } from '../identity/auth/users';
import type { Database } from '../platform/db/roles';
import { call, NOTHING, type Refusals } from '../platform/kit/call';
import { sql } from '../platform/db/sql';
import type { Result } from '../platform/kit/result';
import { REVERSAL_CAUSES } from '../schemas/advertising';

/**
 * Money taken back, on the operator's side (/ops; migration 20261213000500_reversals): the
 * accounts on hold because a card payment of theirs was refunded, disputed or failed (their
 * balances, what was taken back, their paused campaigns), the reversals that moved no money (a
 * payment never credited, or none a top-up knows), and the release of an account, with the reason,
 * once its balances are not below zero. Each runs as the staff member signed in with both factors;
 * the database checks it and audits the release (public.staff_reversals_queue,
 * public.staff_account_release).
 */

const when = z.coerce.date();
const queue = z.object({
  holds: z.array(
    z.object({
      user_id: z.string(),
      opened_at: when,
      cause: z.enum(REVERSAL_CAUSES),
      email: z.string(),
      company: z.string().nullable(),
      advertiser_balance_micro: z.number(),
      buyer_balance_micro: z.number(),
      paused_campaigns: z.number(),
      reversals: z.array(
        z.object({
          cause: z.enum(REVERSAL_CAUSES),
          account_kind: z.enum(['advertiser', 'buyer']).nullable(),
          amount_micro: z.number(),
          reversed_micro: z.number(),
          payment_reference: z.string().nullable(),
          created_at: when,
        }),
      ),
    }),
  ),
  unmoved: z.array(
    z.object({
      id: z.string(),
      cause: z.enum(REVERSAL_CAUSES),
      amount_micro: z.number(),
      payment_reference: z.string().nullable(),
      session_id: z.string().nullable(),
      top_up_id: z.string().nullable(),
      created_at: when,
      email: z.string().nullable(),
    }),
  ),
});
export type ReversalsQueue = z.infer<typeof queue>;

export async function reversalsQueue(db: Database, staff: SignedInUser): Promise<ReversalsQueue> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_reversals_queue(100) as v`, z.object({ v: queue }));
  return row!.v;
}

/** public.staff_account_release's refusals. */
const RELEASE_REFUSALS: Refusals<'reason_required' | 'not_held' | 'balance_negative'> = {
  reason_required: 'Say what settled it: the audit log keeps it.',
  not_held: 'That account is not on hold any more.',
  balance_negative: 'A balance of this account is below zero: record the payment that settles it first.',
};

/** Releases an account on hold: it buys and downloads again, and its campaigns paused for the reversal resume. */
export function releaseAccount(db: Database, staff: SignedInUser, input: { userId: string; reason: string }): Promise<Result> {
  return call(asStaff(db, staff), sql`select public.staff_account_release(${input.userId}::uuid, ${input.reason}) as v`, NOTHING, RELEASE_REFUSALS);
}
