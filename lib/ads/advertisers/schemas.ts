import { z } from 'zod';
import { dollars, priceDollars } from '../../platform/kit/typed-number';
import { PLACEMENT_FORMATS, type PlacementFormat } from '../../schemas/account';
import { ADVERTISER_CATEGORIES, MEDIA_RULES, PRICING_MODELS } from '../../schemas/advertising';
import { phraseList } from '../relevance/phrase-list';

/**
 * What an advertiser submits, checked before anything is written: the profile, a top-up, a
 * campaign and a creative's words. The database holds wider bounds of its own (migration
 * 20261207000000_advertisers: lengths, https landing pages, statuses); the per-format rules and
 * the messages are here, for the forms.
 */

/** Whether `zone` is a time zone this runtime knows (IANA names such as Europe/Paris). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone.length <= 64;
  } catch {
    return false;
  }
}

const text = (label: string, max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min, min === 1 ? `Give the ${label}.` : `The ${label} needs at least ${min} characters.`)
    .max(max, `The ${label} takes at most ${max} characters.`);

export const profileInput = z.object({
  company: text('company name', 100),
  billing_name: text('name on invoices', 100),
  billing_email: z.string().trim().toLowerCase().email('Give the email address invoices go to.').max(254),
  billing_address: text('billing address', 500),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, 'Give the country as its two-letter code, such as US or DE.'),
  tax_id: z
    .string()
    .trim()
    .max(40, 'The tax number takes at most 40 characters.')
    .transform((v) => (v === '' ? null : v)),
  time_zone: z.string().trim().refine(isTimeZone, 'Choose a time zone such as Europe/Berlin or America/New_York.'),
});
export type ProfileInput = z.output<typeof profileInput>;

/** A list typed with commas (keywords, categories): trimmed, lowercase, without repeats. */
const list = (what: string, max: number) =>
  z
    .string()
    .default('')
    .transform((v) => [
      ...new Set(
        v
          .split(/[,\n]/)
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
      ),
    ])
    .refine((items) => items.length <= max, `At most ${max} ${what}.`)
    .refine((items) => items.every((s) => s.length <= 40), `Each of the ${what} takes at most 40 characters.`);

const day = (what: string) => z.string().regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/, `Give the ${what} as a date.`);

/** The smallest lifetime budget a campaign may have, in dollars (published on the advertisers' docs page). */
export const MIN_CAMPAIGN_BUDGET_USD = 10;

export const campaignInput = z
  .object({
    name: text('campaign name', 100),
    starts_on: day('start date'),
    ends_on: z.union([z.literal(''), day('end date')]).transform((v) => v || null),
    hard_stop: z
      .string()
      .optional()
      .transform((v) => v === 'on' || v === 'true'),
    lifetime_budget_usd: dollars('budget').refine(
      (v) => v >= MIN_CAMPAIGN_BUDGET_USD * 1_000_000,
      `A campaign's budget is at least $${MIN_CAMPAIGN_BUDGET_USD}.`,
    ),
    // Empty for none; otherwise dollars, with their own messages (a union would say only "Invalid input").
    daily_cap_usd: z
      .string()
      .trim()
      .transform((v, ctx) => {
        if (v === '') return null;
        const cap = dollars('daily cap').safeParse(v);
        if (cap.success) return cap.data;
        for (const issue of cap.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
        return z.NEVER;
      }),
    formats: z.array(z.enum(PLACEMENT_FORMATS, 'Choose the formats from the list.')).min(1, 'Choose at least one format to buy.'),
    keywords: list('keywords', 20),
    context_hints: phraseList('context hints'),
    excluded_phrases: phraseList('excluded phrases'),
    // Absent from a form posted before there was a choice: `other`, as the column's default.
    advertiser_category: z.enum(ADVERTISER_CATEGORIES, 'Choose what kind of advertiser this campaign is from.').default('other'),
    include_categories: list('categories to include', 20),
    exclude_categories: list('categories to exclude', 20),
    excluded_apps: z
      .string()
      .default('')
      .transform((v) => [
        ...new Set(
          v
            .split(/[\s,]+/)
            .map((s) => s.trim().toLowerCase())
            .filter(Boolean),
        ),
      ])
      .refine((ids) => ids.length <= 100, 'At most 100 excluded apps.')
      .refine((ids) => ids.every((id) => z.string().uuid().safeParse(id).success), 'Name excluded apps by their ids, one per line.'),
    frequency_cap: z.coerce.number('Give how many times one person may see the ads a day.').int().min(1).max(100, 'At most 100 a day.'),
    // How the campaign pays: per 1,000 impressions at the published CPMs, or per click at its bid
    // (migration 20261221000300_cost_per_click). Absent from a form posted before there was a choice: CPM.
    pricing_model: z.enum(PRICING_MODELS, 'Choose how the campaign pays: per impression or per click.').default('cpm'),
    max_cpc_usd: z.string().trim().default(''),
    // Absent from a form posted before there was a choice: 7, as the column's default.
    attribution_window_days: z.coerce
      .number('Give how many days after a click a conversion counts.')
      .int('A whole number of days.')
      .min(1, 'At least 1 day.')
      .max(30, 'At most 30 days.')
      .default(7),
  })
  .refine((c) => c.ends_on === null || c.ends_on >= c.starts_on, { message: 'The campaign ends on or after the day it starts.', path: ['ends_on'] })
  .refine((c) => !c.hard_stop || c.ends_on !== null, { message: 'A hard stop needs an end date.', path: ['hard_stop'] })
  .refine((c) => c.daily_cap_usd === null || c.daily_cap_usd <= c.lifetime_budget_usd, {
    message: 'The daily cap is at most the whole budget.',
    path: ['daily_cap_usd'],
  })
  .refine((c) => c.include_categories.every((x) => !c.exclude_categories.includes(x)), {
    message: 'A category cannot be both included and excluded.',
    path: ['exclude_categories'],
  })
  .transform((c, ctx) => {
    // A bid only for a campaign that pays per click; read as a price (to the hundredth of a cent).
    if (c.pricing_model === 'cpm') return { ...c, max_cpc_micro: null };
    if (c.max_cpc_usd === '') {
      ctx.addIssue({ code: 'custom', message: 'Give the most you pay per click, in dollars, such as 0.75.', path: ['max_cpc_usd'] });
      return z.NEVER;
    }
    const bid = priceDollars('bid per click').safeParse(c.max_cpc_usd);
    if (!bid.success) {
      for (const issue of bid.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: ['max_cpc_usd'] });
      return z.NEVER;
    }
    if (bid.data <= 0) {
      ctx.addIssue({ code: 'custom', message: 'A bid per click is more than $0.', path: ['max_cpc_usd'] });
      return z.NEVER;
    }
    // A click's price within the budget it is billed from: one click never overruns a day by more than itself.
    const day = c.daily_cap_usd ?? c.lifetime_budget_usd;
    if (bid.data > day) {
      ctx.addIssue({ code: 'custom', message: 'A bid per click is at most the daily cap (or the budget, without one).', path: ['max_cpc_usd'] });
      return z.NEVER;
    }
    return { ...c, max_cpc_micro: bid.data };
  });
export type CampaignInput = z.output<typeof campaignInput>;

/**
 * What each format shows, as the SDK draws it (packages/sdk/src/render.ts, styles.ts): the most
 * characters each line takes before the SDK would cut it, and the media it needs: `image` says
 * whether it takes one (and which rules it follows, IMAGE_RULES), `video` whether it needs one.
 * `clickAction`: the call to action is not words but what a click does, one of FOLLOW_UP_ACTIONS
 * (the sponsored follow-up; the database holds the same, creatives_follow_up_action).
 */
export const CREATIVE_RULES: Record<
  PlacementFormat,
  { headline: number; body: number; cta: number; image: 'none' | 'optional' | 'required'; video: boolean; clickAction?: true; says: string }
> = {
  inline_text: { headline: 90, body: 0, cta: 30, image: 'none', video: false, says: 'One sponsored line inside an answer: a headline and a call to action.' },
  tooltip: {
    headline: 40,
    body: 90,
    cta: 20,
    image: 'optional',
    video: false,
    says: 'A small bar: a headline, a line of text and a call to action, and an image if you give one.',
  },
  sponsored_card: {
    headline: 60,
    body: 140,
    cta: 24,
    image: 'required',
    video: false,
    says: 'A card 120 px high: an image drawn 96 px wide, a headline, two lines of text and a call to action.',
  },
  floating_video: {
    headline: 60,
    body: 120,
    cta: 24,
    image: 'optional',
    video: true,
    says: 'A muted looping 16:9 video of up to 30 seconds in a corner panel, with a line of text under it; an image may stand in until it plays.',
  },
  sponsored_follow_up: {
    headline: 80,
    body: 0,
    cta: 5,
    image: 'none',
    video: false,
    clickAction: true,
    says: 'A suggested next question under an answer, at most 80 characters: a click asks it in the chat or opens your page, as you choose.',
  },
};

/**
 * What a click on a sponsored follow-up does: `ask` puts the question to the app's assistant (the
 * landing page is used where the page has no chat to ask into); `visit` opens the landing page.
 */
export const FOLLOW_UP_ACTIONS = ['ask', 'visit'] as const;
export type FollowUpAction = (typeof FOLLOW_UP_ACTIONS)[number];

/** A creative's call to action as the consoles show it: its words, or what a follow-up's click does. */
export function callToAction(format: PlacementFormat, cta: string): { label: string; text: string } {
  if (!CREATIVE_RULES[format].clickAction) return { label: 'Call to action', text: cta };
  return { label: 'A click', text: cta === 'ask' ? 'asks the question in the chat' : 'opens the landing page' };
}

// What an uploaded file may be, and the creative form's largest body, are contracts the route
// registry reads too: they live in lib/schemas/advertising.ts, below both.
export { MEDIA_RULES, CREATIVE_UPLOAD_MAX_BYTES } from '../../schemas/advertising';

/**
 * What one advertiser may keep (content/docs/advertisers.md, Limits; the database holds each,
 * migration 20261213000700_bounded_storage): a free account could otherwise store without bound.
 */
export const ADVERTISER_LIMITS = {
  /** Campaigns not completed (a draft can be deleted to make room): public.campaigns_within_limit. */
  campaigns: 100,
  /** Creatives in one campaign: public.creatives_within_limit. */
  creativesPerCampaign: 20,
  /** Creatives in all the advertiser's campaigns not completed: public.creatives_within_limit. */
  creatives: 200,
  /** The images and videos stored for the advertiser's creatives, replaced ones not yet deleted included: public.creative_files_reserve. */
  storedBytes: 500 * 1024 * 1024,
  /** A file a creative no longer names is kept this long when an ad may have shown it (an approved creative): public.creative_files_sweepable. */
  keepReplacedHours: 24,
} as const;

export type ImageType = keyof typeof MEDIA_RULES.image.types;
export type VideoType = keyof typeof MEDIA_RULES.video.types;

/** Which image a creative's file is: a card's or a tooltip's picture, or a floating video's poster. */
export type ImageRole = 'card' | 'tooltip' | 'poster';

/**
 * How each image is drawn, and so what it must be: the card draws its image 96 px wide and at
 * most 98 px high, whole (`contain`); the tooltip's follows the card's rules; a poster stands in
 * for the video, drawn 16:9 and cropped, so it follows the video's.
 */
export const IMAGE_RULES: Record<ImageRole, { minWidth: number; minAspect: number; maxAspect: number; shape: string }> = {
  card: { minWidth: 96, minAspect: 1 / 2, maxAspect: 2, shape: 'between 1:2 (tall) and 2:1 (wide)' },
  tooltip: { minWidth: 96, minAspect: 1 / 2, maxAspect: 2, shape: 'between 1:2 (tall) and 2:1 (wide)' },
  poster: {
    minWidth: MEDIA_RULES.video.minWidth,
    minAspect: (16 / 9) * (1 - MEDIA_RULES.video.aspectTolerance),
    maxAspect: (16 / 9) * (1 + MEDIA_RULES.video.aspectTolerance),
    shape: '16:9, as the video',
  },
};

/** The `accept` of a file input: what a browser offers to pick (the server checks the bytes anyway). */
export const IMAGE_ACCEPT = 'image/png,image/jpeg,image/webp,image/gif,.png,.jpg,.jpeg,.webp,.gif';
export const VIDEO_ACCEPT = 'video/mp4,video/webm,.mp4,.webm';

export const landingUrl = z
  .string()
  .trim()
  .max(2000, 'The landing page address takes at most 2,000 characters.')
  .refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'https:' && url.hostname.includes('.') && !url.username && !url.password;
    } catch {
      return false;
    }
  }, 'The landing page must be an https:// address, such as https://example.com/offer.');

/** A creative's words and landing page, checked against its format's rules. */
export const creativeInput = z
  .object({
    format: z.enum(PLACEMENT_FORMATS, 'Choose the format.'),
    headline: z.string().trim().min(1, 'Give the headline.'),
    body: z.string().trim().default(''),
    cta: z.string().trim().min(1, 'Give the call to action, such as “Learn more”.'),
    landing_url: landingUrl,
  })
  .superRefine((c, ctx) => {
    const rules = CREATIVE_RULES[c.format];
    if (c.headline.length > rules.headline)
      ctx.addIssue({ code: 'custom', message: `The headline of this format takes at most ${rules.headline} characters.` });
    if (rules.body === 0 && c.body) ctx.addIssue({ code: 'custom', message: 'This format shows no text besides its headline.' });
    else if (c.body.length > rules.body) ctx.addIssue({ code: 'custom', message: `The text of this format takes at most ${rules.body} characters.` });
    if (rules.clickAction) {
      if (!(FOLLOW_UP_ACTIONS as readonly string[]).includes(c.cta))
        ctx.addIssue({ code: 'custom', message: 'Choose what a click on the question does: ask it in the chat (ask) or open your page (visit).' });
    } else if (c.cta.length > rules.cta) ctx.addIssue({ code: 'custom', message: `The call to action of this format takes at most ${rules.cta} characters.` });
  });
export type CreativeInput = z.output<typeof creativeInput>;

export const CAMPAIGN_MOVES = ['submit', 'pause', 'resume'] as const;
export type CampaignMove = (typeof CAMPAIGN_MOVES)[number];
