import { z } from 'zod';
import { asStaff } from '../identity/auth/staff';
import type { SignedInUser } from '../identity/auth/users';
import type { Database } from '../platform/db/roles';
import { call, type Refusals } from '../platform/kit/call';
import { sql } from '../platform/db/sql';
import { microAmount } from '../platform/kit/micro';
import type { Result } from '../platform/kit/result';
import { PLACEMENT_FORMATS } from '../schemas/account';
import { ADVERTISER_CATEGORIES } from '../schemas/advertising';

/**
 * The operator's side of advertising (/ops): what waits (manual top-ups to match against the
 * payments that arrive, data buyers' too, campaigns and creatives to review), and the acts: record a payment (the
 * advertiser credited once), approve or reject with a reason the advertiser reads. Each runs as
 * the staff member signed in with both factors; the database checks it and audits it
 * (migration 20261207000000_advertisers).
 */

const when = z.coerce.date();
const creative = z.object({
  id: z.string(),
  format: z.enum(PLACEMENT_FORMATS),
  headline: z.string(),
  body: z.string(),
  cta: z.string(),
  image_url: z.string().nullable(),
  video_url: z.string().nullable(),
  landing_url: z.string(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  duration_ms: z.number().nullable(),
});
const queue = z.object({
  top_ups: z.array(
    z.object({
      id: z.string(),
      invoice_number: z.string().nullable(),
      amount_micro: z.number(),
      requested_at: when,
      email: z.string(),
      company: z.string().nullable(),
      /** The balance it funds: an advertiser's, or a data buyer's (migration 20261209000000_data_buyers). */
      account_kind: z.enum(['advertiser', 'buyer']).optional(),
    }),
  ),
  campaigns: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      advertiser: z.string(),
      email: z.string(),
      submitted_at: when.nullable(),
      starts_at: when,
      ends_at: when.nullable(),
      /** The advertiser's time zone, in which the run's dates are days. */
      time_zone: z.string().nullable(),
      hard_stop: z.boolean(),
      lifetime_budget_micro: microAmount.nullable(),
      daily_cap_micro: microAmount.nullable(),
      /** Its bid per click when it pays per click (migration 20261221000300_cost_per_click). */
      max_cpc_micro: microAmount.nullable(),
      formats: z.array(z.string()),
      keywords: z.array(z.string()),
      include_categories: z.array(z.string()),
      exclude_categories: z.array(z.string()),
      context_hints: z.array(z.string()),
      excluded_phrases: z.array(z.string()),
      advertiser_category: z.enum(ADVERTISER_CATEGORIES),
      creatives: z.array(creative.extend({ status: z.string() })),
    }),
  ),
  creatives: z.array(creative.extend({ campaign_id: z.string(), campaign: z.string(), advertiser: z.string(), updated_at: when })),
  advertisers: z.array(z.object({ user_id: z.string(), company: z.string(), email: z.string(), balance_micro: z.number(), active_campaigns: z.number() })),
});
export type AdvertisingQueue = z.infer<typeof queue>;

export async function advertisingQueue(db: Database, staff: SignedInUser): Promise<AdvertisingQueue> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_advertising_queue(100) as v`, z.object({ v: queue }));
  return row!.v;
}

/** What a staff act answers: the status it left (a review), or whether it was done already (a payment recorded twice). */
export type StaffResult = Result<{ status?: string; already?: boolean }>;
const done = z.object({ status: z.string().optional(), already: z.boolean().optional() });

/** public.staff_top_up_record's refusals (public.top_up_credit's too, for a payment recorded). */
const TOP_UP_RECORD_REFUSALS: Refusals<'not_found' | 'not_open' | 'reference_required' | 'reversed'> = {
  not_found: 'It does not exist.',
  not_open: 'That top-up is not waiting for payment any more.',
  reference_required: 'Give the payment’s reference.',
  // A payment taken back before it was credited (public.top_up_credit cancels the top-up): the
  // words the console has always shown for it.
  reversed: 'Refused.',
};

/** public.staff_campaign_review's and public.staff_creative_review's refusals. */
const REVIEW_REFUSALS: Refusals<'not_found' | 'not_in_review' | 'reason_required'> = {
  not_found: 'It does not exist.',
  not_in_review: 'It is not waiting for review any more.',
  reason_required: 'Give the reason: the advertiser reads it.',
};

/** Records that a manual top-up was paid (credited once) or will not be (canceled), with the bank's reference or the reason. */
export function recordTopUp(db: Database, staff: SignedInUser, input: { id: string; paid: boolean; reference: string }): Promise<StaffResult> {
  return call(
    asStaff(db, staff),
    sql`select public.staff_top_up_record(${input.id}::uuid, ${input.paid}, ${input.reference}) as v`,
    done,
    TOP_UP_RECORD_REFUSALS,
  );
}

export function reviewCampaign(db: Database, staff: SignedInUser, input: { id: string; approve: boolean; reason: string }): Promise<StaffResult> {
  return call(asStaff(db, staff), sql`select public.staff_campaign_review(${input.id}::uuid, ${input.approve}, ${input.reason}) as v`, done, REVIEW_REFUSALS);
}

export function reviewCreative(db: Database, staff: SignedInUser, input: { id: string; approve: boolean; reason: string }): Promise<StaffResult> {
  return call(asStaff(db, staff), sql`select public.staff_creative_review(${input.id}::uuid, ${input.approve}, ${input.reason}) as v`, done, REVIEW_REFUSALS);
}
