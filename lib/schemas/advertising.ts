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

/** How a campaign pays: per 1,000 impressions at the published CPMs, or per click at its bid (migration 20261221000300_cost_per_click). */
export const PRICING_MODELS = ['cpm', 'cpc'] as const;
export type PricingModel = (typeof PRICING_MODELS)[number];
export type PauseReason = (typeof PAUSE_REASONS)[number];

/**
 * What kind of advertiser a campaign is from, one of a short fixed list an app may block
 * (migration 20261215000100_campaign_context), with the name the consoles show.
 */
export const ADVERTISER_CATEGORIES = [
  'software',
  'education',
  'finance',
  'travel',
  'retail',
  'food_drink',
  'health_fitness',
  'entertainment',
  'gaming',
  'dating',
  'gambling',
  'alcohol',
  'crypto',
  'other',
] as const;
export type AdvertiserCategory = (typeof ADVERTISER_CATEGORIES)[number];
export const ADVERTISER_CATEGORY_NAMES: Record<AdvertiserCategory, string> = {
  software: 'Software and apps',
  education: 'Education and courses',
  finance: 'Finance, banking and insurance',
  travel: 'Travel',
  retail: 'Shopping and retail',
  food_drink: 'Food and drink',
  health_fitness: 'Health and fitness',
  entertainment: 'Entertainment and media',
  gaming: 'Games',
  dating: 'Dating',
  gambling: 'Gambling and betting',
  alcohol: 'Alcohol',
  crypto: 'Crypto and trading',
  other: 'Something else',
};

/** The most context hints, and excluded phrases, a campaign has; each takes 1 to 60 characters (public.phrases_fit). */
export const CAMPAIGN_PHRASES = { max: 20, maxLength: 60, maxWords: 5 } as const;

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

/**
 * What an uploaded file may be. Each is checked by its bytes, never by its name or the type the
 * browser claimed (lib/ads/advertisers/media.ts). SVG is never accepted: it can carry script.
 */
export const MEDIA_RULES = {
  image: {
    /** The accepted types, each with the content type it is served with and its key's extension. */
    types: {
      png: { contentType: 'image/png', extension: 'png', name: 'PNG' },
      jpeg: { contentType: 'image/jpeg', extension: 'jpg', name: 'JPEG' },
      webp: { contentType: 'image/webp', extension: 'webp', name: 'WebP' },
      gif: { contentType: 'image/gif', extension: 'gif', name: 'GIF' },
    },
    maxBytes: 2 * 1024 * 1024,
    /** The longest side: what a browser decodes stays small. */
    maxSide: 4096,
  },
  video: {
    types: {
      mp4: { contentType: 'video/mp4', extension: 'mp4', name: 'MP4 (H.264)' },
      webm: { contentType: 'video/webm', extension: 'webm', name: 'WebM (VP8 or VP9)' },
    },
    maxBytes: 10 * 1024 * 1024,
    minDurationMs: 1_000,
    maxDurationMs: 30_000,
    minWidth: 320,
    maxWidth: 3840,
    maxHeight: 2160,
    /** 16:9, give or take 2% (854×480 and 1366×768 pass; 4:3 does not): the SDK draws the video 16:9, cropping what does not fit. */
    aspect: 16 / 9,
    aspectTolerance: 0.02,
  },
} as const;

/**
 * The largest body of the creative form (POST /dashboard/ads/creatives/upload): the largest image
 * and the largest video together, and 512 KiB for the words and the multipart envelope, 12.5 MiB
 * in all. A larger one is refused (413) before its files are looked at.
 */
export const CREATIVE_UPLOAD_MAX_BYTES = MEDIA_RULES.image.maxBytes + MEDIA_RULES.video.maxBytes + 512 * 1024;
