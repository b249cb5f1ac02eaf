/**
 * The advertisers' enumerations (migration 20261207000000_advertisers), as the database's CHECK
 * constraints allow them (tests/integration/schema-enums.test.ts holds the two together).
 */

/**
 * A campaign's life: `draft` → `in_review` → `scheduled` → `active` ⇄ `paused` → `completed`, or
 * `rejected` with a reason (which an edit turns back into a draft).
 */
export const CAMPAIGN_STATUSES = ['draft', 'in_review', 'scheduled', 'active', 'paused', 'completed', 'rejected'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/**
 * Why a campaign is paused: its advertiser paused it, its advertiser's funds ran out (it resumes
 * after a top-up), or money its advertiser paid was taken back (a refund, a dispute: it resumes
 * when the operator releases the account; migration 20261213000500_reversals).
 */
export const PAUSE_REASONS = ['advertiser', 'out_of_funds', 'payment_reversed'] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

/** A creative: waiting for review, approved and served, paused by its advertiser, or rejected with a reason. */
export const CREATIVE_STATUSES = ['in_review', 'active', 'paused', 'rejected'] as const;
export type CreativeStatus = (typeof CREATIVE_STATUSES)[number];

/** How money arrives: an invoice paid by bank transfer, which the operator records, or Stripe Checkout. */
export const TOP_UP_RAILS = ['manual', 'stripe'] as const;
export type TopUpRail = (typeof TOP_UP_RAILS)[number];

/** Why money a top-up brought in was taken back (migration 20261213000500_reversals). */
export const REVERSAL_CAUSES = ['refund', 'dispute', 'payment_failed'] as const;
export type ReversalCause = (typeof REVERSAL_CAUSES)[number];

export const TOP_UP_STATUSES = ['requested', 'paid', 'canceled'] as const;
export type TopUpStatus = (typeof TOP_UP_STATUSES)[number];
