import { z } from 'zod';
import { asStaff } from '../identity/auth/staff';
import type { SignedInUser } from '../identity/auth/users';
import { LISTING_IDS } from '../data/buyers/schemas';
import type { Database } from '../platform/db/roles';
import { call, type Refusals } from '../platform/kit/call';
import { sql } from '../platform/db/sql';
import type { StaffResult } from './advertising';

/**
 * The operator's side of data licenses (/ops): the exclusive licenses waiting for review, with
 * who asks and what for, and the act: approve (the buyer charged, the publishers credited, the
 * records held for the license's term) or reject with a reason the buyer reads (nothing charged,
 * the records released). Each runs as the staff member signed in with both factors; the database
 * checks it and audits it (migration 20261209000000_data_buyers).
 */

const when = z.coerce.date();
const words = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);
const day = z
  .string()
  .nullish()
  .transform((v) => v ?? null);

const queue = z.object({
  licenses: z.array(
    z.object({
      id: z.string(),
      listing: z.enum(LISTING_IDS),
      filter: z
        .object({ categories: words, from: day, to: day, models: words })
        .nullish()
        .transform((f) => f ?? { categories: [], from: null, to: null, models: [] }),
      records: z.coerce.number(),
      bytes: z.coerce.number(),
      price_micro: z.coerce.number(),
      requested_at: when,
      email: z.string(),
      company: z.string().nullable(),
      intended_use: z.string().nullable(),
    }),
  ),
});
export type DataQueue = z.infer<typeof queue>;

/** The exclusive licenses waiting for review, oldest first (at most `limit`). */
export async function dataQueue(db: Database, staff: SignedInUser, limit = 50): Promise<DataQueue> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_data_queue(${limit}::integer) as v`, z.object({ v: queue }));
  return row!.v;
}

/** public.staff_data_license_review's refusals. */
const REVIEW_REFUSALS: Refusals<'not_found' | 'not_in_review' | 'reason_required' | 'insufficient_funds' | 'account_on_hold'> = {
  not_found: 'That license does not exist.',
  not_in_review: 'That license is not waiting for review any more.',
  reason_required: 'Give the reason: the buyer reads it.',
  insufficient_funds: 'The buyer’s balance no longer covers the price: it cannot be approved now.',
  account_on_hold: 'The buyer’s account is on hold (card money was taken back): release it before approving.',
};

/** Approves an exclusive license (charged at once), or rejects it with the reason the buyer reads. */
export function reviewDataLicense(db: Database, staff: SignedInUser, input: { id: string; approve: boolean; reason: string }): Promise<StaffResult> {
  return call(
    asStaff(db, staff),
    sql`select public.staff_data_license_review(${input.id}::uuid, ${input.approve}, ${input.reason}) as v`,
    z.object({ status: z.string() }),
    REVIEW_REFUSALS,
  );
}
