import { z } from 'zod';
import type { SignedInUser } from '../identity/auth/users';
import { fields, parse, type FormState } from '../platform/kit/forms';
import type { Database } from '../platform/db/roles';
import { usdToMicro } from '../platform/kit/micro';
import { closeMonths, markPayout, PAYOUT_MARKS, payoutDetails, postAdjustment, sendWithStripe, type PayoutDetails } from '../money/payouts/staff';
import type { StripeRail } from '../money/stripe/rail';
import { recordTopUp, reviewCampaign, reviewCreative } from './advertising';
import { reviewDataLicense } from './data';
import { pricingChange, schedulePricing } from './pricing';
import { releaseAccount } from './reversals';

/**
 * The operator console's forms (/ops), from submitted fields to what the page shows next. Each
 * runs as the signed-in staff member (lib/money/payouts/staff.ts); the database decides whether they
 * may, and audits it.
 */

type Services = {
  database(): Promise<Database>;
  dataKey(): Promise<Buffer>;
  readonly stripe?: StripeRail | null;
  /** Runs the export job now (an approved data license's files are written at once). */
  readonly exports?: { kick(): void };
  /** This instance's reused read of the prices, to forget after a change in force at once. */
  readonly pricing?: { forget(): void };
};

const uuid = (what: string) => z.string().uuid(`Unknown ${what}.`);

/**
 * A payout marked: which status, with the transfer's reference or the reason it failed. Whether
 * the payout may take that status, and what it needs for it (a reference to be paid, a reason to
 * fail), is the database's to say (public.payout_transition): the form only reads the fields.
 */
export const payoutMark = z.object({
  id: uuid('payout'),
  status: z.enum(PAYOUT_MARKS, 'Choose what happened to the payout.'),
  reference: z.string().trim().max(200, 'At most 200 characters.').optional(),
  reason: z.string().trim().max(500, 'At most 500 characters.').optional(),
});

export const adjustment = z.object({
  user_id: uuid('publisher'),
  amount_usd: z
    .string()
    .trim()
    .regex(/^[+-]?[0-9]{1,7}(\.[0-9]{1,6})?$/, 'An amount in dollars, to the millionth: -12.50 takes earnings away, 3.20 adds them.')
    .transform((v) => usdToMicro(Number(v)))
    .refine((v) => v !== 0, 'An adjustment of nothing changes nothing.'),
  day: z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, 'The day it corrects, YYYY-MM-DD.'),
  reason: z.string().trim().min(3, 'Say why: the publisher reads it.').max(500, 'At most 500 characters.'),
  reference: uuid('form').describe('Made when the form was shown: the same form sent twice posts once.'),
});

export const why = z.object({ why: z.string().trim().max(500, 'At most 500 characters.').optional() });
export const detailsRequest = z.object({ id: uuid('payout'), why: z.string().trim().min(3, 'Say why you look at them.').max(500) });

export async function markPayoutForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(payoutMark, form);
  if (!input.ok) return input.state;
  const result = await markPayout(await services.database(), staff, input.data);
  return result.ok ? { notice: `Payout ${result.value.status}.` } : { error: result.error, values: fields(form) };
}

export async function adjustmentForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(adjustment, form);
  if (!input.ok) return input.state;
  const { amount_usd: amountMicro, ...rest } = input.data;
  const result = await postAdjustment(await services.database(), staff, { ...rest, amount_micro: amountMicro });
  return result.ok ? { notice: 'Adjustment posted to the ledger.', id: result.value.transaction_id } : { error: result.error, values: fields(form) };
}

export async function closeMonthsForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(why, form);
  if (!input.ok) return input.state;
  const closed = await closeMonths(await services.database(), staff, input.data.why ?? '');
  return {
    notice: closed === 0 ? 'No month was due: each closes on the 5th of the next month, once its days are in the ledger.' : `Closed ${closed} month(s).`,
  };
}

/** What the details form shows: the details in full, once, for this staff member only. */
export type DetailsState = FormState & { details?: PayoutDetails };

export async function payoutDetailsForm(form: FormData, staff: SignedInUser, services: Services): Promise<DetailsState> {
  const input = parse(detailsRequest, form);
  if (!input.ok) return input.state;
  const details = await payoutDetails(await services.database(), staff, await services.dataKey(), input.data.id, input.data.why);
  return details ? { details } : { error: 'That payout does not exist.' };
}

export const stripeSend = z.object({ id: uuid('payout') });

/** Sends a Stripe payout now (lib/money/payouts/staff.ts, sendWithStripe). */
export async function sendWithStripeForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(stripeSend, form);
  if (!input.ok) return input.state;
  if (!services.stripe) return { error: 'Stripe is not configured on this server.' };
  try {
    const result = await sendWithStripe(await services.database(), staff, services.stripe, input.data.id);
    return result.ok ? { notice: `Payout ${result.value.status}.` } : { error: result.error };
  } catch {
    return { error: 'Stripe did not answer. The payout stays processing: send it again, and Stripe finds the transfer if it made one.' };
  }
}

export const topUpRecord = z
  .object({
    id: uuid('top-up'),
    outcome: z.enum(['paid', 'canceled'], 'Say whether the payment arrived.'),
    reference: z.string().trim().min(1, 'Give the bank’s reference of the payment, or why the invoice is canceled.').max(200, 'At most 200 characters.'),
  })
  .transform((v) => ({ id: v.id, paid: v.outcome === 'paid', reference: v.reference }));

export async function topUpRecordForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(topUpRecord, form);
  if (!input.ok) return input.state;
  const result = await recordTopUp(await services.database(), staff, input.data);
  if (!result.ok) return { error: result.error, values: fields(form) };
  return {
    notice: input.data.paid
      ? result.value.already
        ? 'Already credited: nothing more was.'
        : 'Payment recorded: the balance it funds is credited.'
      : 'Invoice canceled.',
  };
}

export const release = z.object({
  id: uuid('account'),
  reason: z.string().trim().min(3, 'Say what settled it: the audit log keeps it.').max(1000, 'At most 1,000 characters.'),
});

/** Releases an account held for money taken back (lib/ops/reversals.ts), with what settled it. */
export async function releaseForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(release, form);
  if (!input.ok) return input.state;
  const result = await releaseAccount(await services.database(), staff, { userId: input.data.id, reason: input.data.reason });
  if (!result.ok) return { error: result.error, values: fields(form) };
  return { notice: 'Account released: it buys and downloads again, and its campaigns paused for the reversal resume.' };
}

export const review = z
  .object({
    id: z.string().uuid('Unknown item.'),
    kind: z.enum(['campaign', 'creative'], 'Unknown item.'),
    decision: z.enum(['approve', 'reject'], 'Approve or reject.'),
    reason: z.string().trim().max(500, 'At most 500 characters.').default(''),
  })
  .refine((v) => v.decision === 'approve' || v.reason.length >= 3, { message: 'Say why it is rejected: the advertiser reads it.' });

export async function reviewForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(review, form);
  if (!input.ok) return input.state;
  const { id, kind, decision, reason } = input.data;
  const act = kind === 'campaign' ? reviewCampaign : reviewCreative;
  const result = await act(await services.database(), staff, { id, approve: decision === 'approve', reason });
  if (!result.ok) return { error: result.error, values: fields(form) };
  return {
    notice: `${kind === 'campaign' ? 'Campaign' : 'Creative'} ${decision === 'approve' ? `approved${result.value.status ? ` (${result.value.status})` : ''}` : 'rejected'}.`,
  };
}

export const dataLicenseReview = z
  .object({
    id: uuid('license'),
    decision: z.enum(['approve', 'reject'], 'Approve or reject.'),
    reason: z.string().trim().max(500, 'At most 500 characters.').default(''),
  })
  .refine((v) => v.decision === 'approve' || v.reason.length >= 3, { message: 'Say why it is rejected: the buyer reads it.' });

/** An exclusive data license approved (charged, its files written at once) or rejected with the reason the buyer reads. */
export async function dataLicenseReviewForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(dataLicenseReview, form);
  if (!input.ok) return input.state;
  const approve = input.data.decision === 'approve';
  const result = await reviewDataLicense(await services.database(), staff, { id: input.data.id, approve, reason: input.data.reason });
  if (!result.ok) return { error: result.error, values: fields(form) };
  if (approve) services.exports?.kick();
  return { notice: approve ? 'License approved: the buyer is charged and its files are being written.' : 'License rejected: nothing was charged.' };
}

/**
 * New pricing values, effective now (in force at once) or from a later time (lib/ops/pricing.ts).
 * A change in force at once is forgotten from this instance's reused read of the prices
 * (lib/money/pricing/settings.ts), so its pages show it now; other instances within 15 seconds.
 */
export async function pricingForm(form: FormData, staff: SignedInUser, services: Services): Promise<FormState> {
  const input = parse(pricingChange, form);
  if (!input.ok) return input.state;
  const result = await schedulePricing(await services.database(), staff, input.data);
  if (!result.ok) return { error: result.error, values: fields(form) };
  if (result.applied) services.pricing?.forget();
  return {
    notice: result.applied
      ? 'The new prices are in force: what is billed from now on uses them; what was billed keeps its price.'
      : `Scheduled: the new prices take effect from ${result.effectiveAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
  };
}
