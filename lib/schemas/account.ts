import { z } from 'zod';
import { microAmount } from '../platform/kit/micro';
import { ADVERTISER_CATEGORIES, CAMPAIGN_STATUSES, CREATIVE_STATUSES, PAUSE_REASONS, PRICING_MODELS } from './advertising';
import { cursorParam, intParam, pagination, sandboxMarker } from './common';
import { LICENSE_LISTINGS, LICENSE_STATUSES } from './data-buyers';

/**
 * The account API: its query parameters and bodies (what the handlers validate with and the OpenAPI
 * document is generated from), the enumerations of the data model, and the rows the reads return.
 */

/**
 * Every scope, each read-only, in canonical order (the order a token's `scope` lists them in). The
 * interface grows additively: a scope added later (`campaigns:read`, `licenses:read`) goes at the
 * end, and is granted only to a client that asks for it by name (DEFAULT_SCOPES).
 */
export const SCOPES = ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read', 'campaigns:read', 'licenses:read'] as const;
export type Scope = (typeof SCOPES)[number];

/**
 * What an authorization request without `scope` (or with an empty one) asks for: the original
 * four scopes, and never one added since (content/docs/scopes.md). A client that wants
 * `campaigns:read` or `licenses:read` names it.
 */
export const DEFAULT_SCOPES = ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read'] as const satisfies readonly Scope[];

const dateTime = z.string().datetime({ offset: true });

export const profileBody = z.object({
  user_id: z.string(),
  email: z.string().nullable(),
  name: z.string().nullable(),
  company: z.string().nullable(),
  role: z.string().nullable(),
  member_since: dateTime.nullable(),
  sandbox: sandboxMarker,
});

/**
 * The enumerations of the data model, each written once. The database's CHECK constraints list
 * the same values (supabase/migrations/), and an integration test fails when the two differ.
 */
export const PLACEMENT_FORMATS = ['floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up'] as const;
export const PLACEMENT_STATUSES = ['active', 'paused', 'archived'] as const;
export const PAYOUT_STATUSES = ['pending', 'processing', 'paid', 'failed', 'canceled'] as const;
export const PAYOUT_RAILS = ['manual', 'stripe'] as const;
export const KEY_ENVIRONMENTS = ['development', 'production'] as const;
export const KEY_STATUSES = ['active', 'revoked'] as const;
/** What a key is: publishable (in pages, `x-api-key`) or a server's secret (`Authorization: Bearer`). */
export const KEY_KINDS = ['publishable', 'server'] as const;

export type PlacementFormat = (typeof PLACEMENT_FORMATS)[number];
export type PlacementStatus = (typeof PLACEMENT_STATUSES)[number];
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];
export type PayoutRail = (typeof PAYOUT_RAILS)[number];
export type KeyEnvironment = (typeof KEY_ENVIRONMENTS)[number];
export type KeyKind = (typeof KEY_KINDS)[number];
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** The `placement_status` filter: archived placements are never listed. */
export const PLACEMENT_FILTERS = ['all', 'active', 'paused'] as const satisfies readonly ('all' | PlacementStatus)[];
/** The `environment` filter of the API keys. */
export const ENVIRONMENT_FILTERS = ['all', ...KEY_ENVIRONMENTS] as const;

const oneOf = (values: readonly string[]) => ({ message: `must be one of ${values.join(', ')}` });

export const appsQuery = z.object({
  placement_status: z.enum(PLACEMENT_FILTERS, oneOf(PLACEMENT_FILTERS)).default('all').describe('Which placements to return.'),
});

export const app = z.object({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  category: z.array(z.string()),
  allowed_origins: z.array(z.string()).describe('Web origins whose pages may use the app’s keys, as the publisher set them in the console.'),
  excluded_topics: z
    .array(z.string())
    .describe('Phrases after which the app shows no ad: a conversation that names one gets none (`No-Fill-Reason: blocked`).'),
  blocked_advertisers: z.array(z.string()).describe('Advertisers, by name (compared without case), whose ads the app never shows.'),
  blocked_categories: z.array(z.enum(ADVERTISER_CATEGORIES)).describe('Kinds of advertiser whose ads the app never shows (each campaign declares one).'),
  created_at: dateTime,
});

export const placement = z.object({
  id: z.string(),
  app_id: z.string().describe('The app the placement belongs to.'),
  name: z.string(),
  format: z.enum(PLACEMENT_FORMATS),
  status: z.enum(PLACEMENT_STATUSES),
  impressions: z.number().int(),
  clicks: z.number().int(),
  revenue_usd: z.number(),
  revenue_micro: z.number().int().describe('revenue_usd exactly, in micro-dollars (millionths of a dollar), before it is rounded to the cent (additive).'),
  click_revenue_usd: z.number().describe('Of revenue_usd, what clicks on ads paid per click earned (additive, 2026-12); the rest is impressions’.'),
  click_revenue_micro: z.number().int().describe('click_revenue_usd exactly, in micro-dollars (additive).'),
  fill_rate: z.number().min(0).max(1).describe('A fraction from 0 to 1.'),
  rpm_usd: z.number().describe('Revenue per 1,000 impressions.'),
  invalid_share: z
    .number()
    .min(0)
    .max(1)
    .describe('Of the impressions and clicks received, the share refused as invalid traffic (never billed): a fraction from 0 to 1.'),
  min_relevance: z
    .number()
    .min(0)
    .max(1)
    .describe('With a conversation, only campaigns at least this relevant to it are drawn (0 to 1; 0.3 unless the publisher changed it).'),
  created_at: dateTime,
});

export const appsBody = z.object({ apps: z.array(app), placements: z.array(placement), sandbox: sandboxMarker });

export const earningsQuery = z.object({
  payout_limit: intParam(0, 50, 10).describe('How many of the most recent payouts to return, 0 to 50.'),
});

export const payout = z.object({
  period: z.string().describe('The months the payout covers: YYYY-MM, or YYYY-MM/YYYY-MM for several.'),
  amount_usd: z.number(),
  status: z
    .enum(PAYOUT_STATUSES)
    .describe(
      'pending (requested), processing (being sent), paid (paid_at set), failed (failure_reason says why; the amount is back in the available balance), canceled (before it was sent; the amount is back too).',
    ),
  paid_at: dateTime.nullable().describe('Set only when the status is paid.'),
  requested_at: dateTime,
  failure_reason: z.string().nullable().describe('Why the payout failed, when its status is failed; otherwise null.'),
});

export const earningsBody = z.object({
  currency: z.literal('USD'),
  ad_revenue_tracked_usd: z.number(),
  ad_revenue_tracked_micro: z
    .number()
    .int()
    .describe('ad_revenue_tracked_usd exactly, in micro-dollars (millionths of a dollar), as the ledger keeps it: what one impression earns shows here.'),
  impressions: z.number().int(),
  clicks: z.number().int(),
  payouts_paid_usd: z.number(),
  payouts_pending_usd: z.number(),
  balance_available_usd: z.number().describe('Final earnings not paid out yet: what a payout request would take (in whole cents).'),
  balance_pending_usd: z.number().describe('Earnings not final yet: this month, and last month until its close on the 5th.'),
  data_revenue_usd: z.number().describe('What sales of consented data earned, in the balances above.'),
  data_revenue_micro: z.number().int().describe('data_revenue_usd exactly, in micro-dollars, as the ledger keeps it.'),
  payouts: z.array(payout),
  note: z.string(),
  sandbox: sandboxMarker,
});

/** The periods of the daily figures, in days (today included). */
export const DAILY_PERIODS = ['7', '30', '90'] as const;

export const dailyQuery = z.object({
  days: z.enum(DAILY_PERIODS, oneOf(DAILY_PERIODS)).default('30').describe('The period: the last 7, 30 or 90 days, today (UTC) included.'),
  app_id: z.string().uuid({ message: 'must be the id of one of your apps' }).optional().describe('Only the placements of this app.'),
  placement_id: z.string().uuid({ message: 'must be the id of one of your placements' }).optional().describe('Only this placement.'),
});

export const dailyPoint = z.object({
  date: z.string().describe('The day, YYYY-MM-DD (UTC).'),
  revenue_usd: z.number(),
  revenue_micro: z.number().int().describe('revenue_usd exactly, in micro-dollars, before it is rounded to the cent (additive).'),
  impressions: z.number().int(),
  clicks: z.number().int(),
});

export const dailyBody = z.object({
  currency: z.literal('USD'),
  days: z.number().int(),
  from: z.string().describe('The first day of the period, YYYY-MM-DD.'),
  to: z.string().describe('The last day of the period (today, UTC), YYYY-MM-DD.'),
  app_id: z.string().nullable(),
  placement_id: z.string().nullable(),
  totals: z
    .object({ revenue_usd: z.number(), revenue_micro: z.number().int(), impressions: z.number().int(), clicks: z.number().int() })
    .describe('The sums of `daily`.'),
  daily: z.array(dailyPoint).describe('One element per day of the period, oldest first; days without traffic are zeros.'),
  sandbox: sandboxMarker,
});

export const apiKeysQuery = z.object({
  environment: z.enum(ENVIRONMENT_FILTERS, oneOf(ENVIRONMENT_FILTERS)).default('all').describe('Which keys to return, by environment label.'),
});

export const apiKey = z.object({
  id: z.string(),
  app_id: z.string().describe('The app the key belongs to; it reaches only that app.'),
  name: z.string(),
  kind: z
    .enum(KEY_KINDS)
    .describe(
      "`publishable` (`pk_…`, sent in `x-api-key` from pages and apps) or `server` (`sk_…`, a secret of the app's server, sent as `Authorization: Bearer`).",
    ),
  environment: z.enum(KEY_ENVIRONMENTS),
  status: z.enum(KEY_STATUSES),
  masked_key: z.string().describe('The prefix and the last 4 characters only.'),
  created_at: dateTime,
  last_used_at: dateTime.nullable(),
});

export const apiKeysBody = z.object({ api_keys: z.array(apiKey), sandbox: sandboxMarker });

/** The `status` filter of the campaigns: every status, or one (lib/schemas/advertising.ts). */
export const CAMPAIGN_FILTERS = ['all', ...CAMPAIGN_STATUSES] as const;

export const campaignsQuery = z.object({
  status: z.enum(CAMPAIGN_FILTERS, oneOf(CAMPAIGN_FILTERS)).default('all').describe('Only the campaigns of this status; `all` (default) lists every campaign.'),
  limit: intParam(1, 100, 50).describe('Campaigns per page of results, 1 to 100.'),
  cursor: cursorParam,
});

export const campaignCreative = z.object({
  id: z.string(),
  format: z.enum(PLACEMENT_FORMATS),
  status: z
    .enum(CREATIVE_STATUSES)
    .describe('in_review (waiting for review), active (approved, served), paused (by you), rejected (rejection_reason says why).'),
  rejection_reason: z.string().nullable().describe('Why review rejected the creative, when its status is rejected; otherwise null.'),
  headline: z.string(),
});

export const campaign = z.object({
  id: z.string(),
  name: z.string(),
  status: z
    .enum(CAMPAIGN_STATUSES)
    .describe(
      'draft (not sent to review), in_review, scheduled (approved, not started yet), active (serving), paused (pause_reason says why), completed (ended, or its budget spent), rejected (rejection_reason says why).',
    ),
  pause_reason: z
    .enum(PAUSE_REASONS)
    .nullable()
    .describe(
      'When paused: advertiser (you paused it), out_of_funds (it resumes after a top-up) or payment_reversed (a payment was refunded or disputed: it resumes when the operator releases the account); otherwise null.',
    ),
  rejection_reason: z.string().nullable().describe('Why review rejected the campaign, when its status is rejected; otherwise null.'),
  starts_at: dateTime,
  ends_at: dateTime.nullable().describe('Its end, or null for none.'),
  hard_stop: z.boolean().describe('Whether serving stops at ends_at; without a hard stop, ends_at is the planned end.'),
  formats: z.array(z.enum(PLACEMENT_FORMATS)).describe('The ad formats the campaign buys.'),
  context_hints: z.array(z.string()).describe('Up to 20 short phrases for conversations where its ads fit, matched by word stem, as written in the console.'),
  excluded_phrases: z.array(z.string()).describe('Up to 20 phrases after which its ads are never shown.'),
  advertiser_category: z.enum(ADVERTISER_CATEGORIES).describe('What kind of advertiser the campaign is from, which an app may block.'),
  lifetime_budget_usd: z.number().nullable().describe('The most the campaign may spend in all, or null for none.'),
  daily_cap_usd: z.number().nullable().describe('The most it may spend in one day, or null for none.'),
  created_at: dateTime,
  impressions: z.number().int(),
  clicks: z.number().int(),
  ctr: z.number().min(0).max(1).describe('Clicks per impression: a fraction from 0 to 1 (4 decimals), 0 without impressions.'),
  hides: z
    .number()
    .int()
    .describe('Times a user hid one of its ads with "Hide this ad" (never billed): that user is not shown the campaign on that app for 30 days.'),
  spend_usd: z.number().describe('What the campaign’s ads cost, rounded to the cent once.'),
  spend_micro: z.number().int().describe('spend_usd exactly, in micro-dollars (millionths of a dollar), as the ledger debits it.'),
  budget_left_usd: z.number().nullable().describe('lifetime_budget_usd less the spend, never below 0; null without a lifetime budget.'),
  ecpm_usd: z.number().describe('Spend per 1,000 impressions, rounded to the cent; 0 without impressions.'),
  pricing_model: z
    .enum(PRICING_MODELS)
    .describe('cpm (pays per 1,000 impressions at the published CPMs) or cpc (pays max_cpc_usd per counted click, the bid in force when the ad was served).'),
  max_cpc_usd: z.number().nullable().describe('Its bid per click, for a cpc campaign; null for cpm.'),
  max_cpc_micro: z.number().int().nullable().describe('max_cpc_usd exactly, in micro-dollars.'),
  attribution_window_days: z.number().int().describe('How many days after a click a conversion you report counts for this campaign (1 to 30).'),
  conversions: z.number().int().describe('Conversions you reported for its clicks and that counted (content/docs/conversions.md).'),
  conversion_value_usd: z.number().describe('What those conversions were worth, as you reported them, rounded to the cent once.'),
  conversion_value_micro: z.number().int().describe('conversion_value_usd exactly, in micro-dollars.'),
  cost_per_conversion_usd: z.number().nullable().describe('Spend per conversion, rounded to the cent; null without conversions.'),
  cost_per_conversion_micro: z.number().int().nullable().describe('cost_per_conversion_usd to the micro-dollar; null without conversions.'),
  return_on_spend: z.number().nullable().describe('Conversion value per dollar spent (4 decimals); null without spend.'),
  creatives: z.array(campaignCreative).describe('The campaign’s creatives, oldest first.'),
});

export const campaignsBody = z.object({
  currency: z.literal('USD'),
  balance_usd: z.number().describe('Your advertiser balance: what your top-ups put in less what your ads cost, rounded to the cent once.'),
  balance_micro: z.number().int().describe('balance_usd exactly, in micro-dollars, as the ledger keeps it.'),
  campaigns: z.array(campaign).describe('Your campaigns, oldest first (empty when you have none).'),
  pagination,
  note: z.string(),
  sandbox: sandboxMarker,
});

/** The `status` filter of the data licenses: every status, or one (lib/schemas/data-buyers.ts). */
export const LICENSE_FILTERS = ['all', ...LICENSE_STATUSES] as const;

export const licensesQuery = z.object({
  status: z.enum(LICENSE_FILTERS, oneOf(LICENSE_FILTERS)).default('all').describe('Only the licenses of this status; `all` (default) lists every license.'),
  limit: intParam(1, 100, 50).describe('Licenses per page of results, 1 to 100.'),
  cursor: cursorParam,
});

export const licenseFilter = z
  .object({
    categories: z.array(z.string()).describe('App categories the records came from (any of them); empty for every category.'),
    from: z.string().nullable().describe('The first day (UTC, YYYY-MM-DD) the records were received, included; null for no bound.'),
    to: z.string().nullable().describe('The last day (UTC, YYYY-MM-DD) the records were received, included; null for no bound.'),
    models: z.array(z.string()).describe('The AI models that answered (AI interactions only); empty for any model.'),
    min_app_age_days: z.number().int().nullable().describe('Only records of apps at least this many days old when bought; null for apps of any age.'),
  })
  .describe('The filter the license was bought with.');

export const license = z.object({
  id: z.string(),
  listing: z
    .enum(LICENSE_LISTINGS)
    .describe('What was licensed: ai_interactions (rows), ux_sessions (recordings) or gb_bundles (records of both kinds, sold by size).'),
  exclusive: z.boolean().describe('Whether the license is exclusive: its records are held from every other buyer for its term.'),
  status: z
    .enum(LICENSE_STATUSES)
    .describe(
      'pending_review (an exclusive license waiting for review, its price reserved from your funds), active (granted, its data downloadable until expires_at), rejected (review refused it, nothing charged; rejection_reason says why), expired (its term is over).',
    ),
  filter: licenseFilter,
  records: z.number().int().describe('How many records the license covers, as they were when it was bought.'),
  bytes: z.number().int().describe('Their size in bytes.'),
  units: z.number().describe('The units priced: rows or recordings (whole numbers), or GB for a bundle (the bytes it took, in GB).'),
  price_usd: z.number().describe('What the license costs, rounded to the cent once.'),
  price_micro: z
    .number()
    .int()
    .describe('price_usd exactly, in micro-dollars (millionths of a dollar): what the ledger debited, or debits when an exclusive license is approved.'),
  terms_version: z.string().describe('The version of the data license terms in force when it was bought.'),
  requested_at: dateTime,
  starts_at: dateTime.nullable().describe('When the license was granted; null until then (pending review) and when it was rejected.'),
  expires_at: dateTime.nullable().describe('When its term ends; null until it is granted, and when it was rejected.'),
  rejection_reason: z.string().nullable().describe('Why review rejected the license, when its status is rejected; otherwise null.'),
  unacknowledged_deletion_notices: z
    .number()
    .int()
    .min(0)
    .describe('How many of your deletion notices naming this license you have not acknowledged yet: records it covers that you must delete.'),
});

export const licensesBody = z.object({
  currency: z.literal('USD'),
  balance_usd: z.number().describe('Your data buyer balance: what your top-ups put in less what your licenses cost, rounded to the cent once.'),
  balance_micro: z.number().int().describe('balance_usd exactly, in micro-dollars, as the ledger keeps it.'),
  reserved_usd: z.number().describe('What your exclusive licenses waiting for review reserve of the balance, rounded to the cent once.'),
  reserved_micro: z.number().int().describe('reserved_usd exactly, in micro-dollars.'),
  available_usd: z.number().describe('The balance less what is reserved: what you may spend now, rounded to the cent once.'),
  available_micro: z.number().int().describe('available_usd exactly, in micro-dollars.'),
  licenses: z.array(license).describe('Your data licenses, newest first (empty when you have none).'),
  pagination,
  note: z.string(),
  sandbox: sandboxMarker,
});

/**
 * Rows as the account reads receive them, and as the sandbox writes them down: the one
 * definition of their types. A timestamp arrives as a Date from a column of its own and as an
 * ISO 8601 string from inside `json_agg` (PostgreSQL's JSON output of timestamptz); both become
 * a Date. bigint and numeric arrive as numbers either way (the engines' parsers, and JSON).
 */
const timestamp = z.union([z.date(), z.iso.datetime({ offset: true }).transform((s) => new Date(s))]);

export const profileRow = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  company: z.string().nullable(),
  role: z.string().nullable(),
  created_at: timestamp,
});

/** An app as the database has it: the answer's fields, with its time as a Date. */
export const appRow = app.extend({ created_at: timestamp });

/**
 * A placement as the database has it: the answer's own columns, its revenue exactly in
 * micro-dollars, its ad requests and fills (the fill rate), its invalid events (the invalid
 * share), its time as a Date.
 */
export const placementRow = placement.omit({ revenue_usd: true, click_revenue_usd: true, fill_rate: true, rpm_usd: true, invalid_share: true }).extend({
  revenue_micro: microAmount,
  click_revenue_micro: microAmount,
  ad_requests: z.number().int(),
  fills: z.number().int(),
  invalid_events: z.number().int(),
  min_relevance: z.coerce.number(),
  created_at: timestamp,
});

export const payoutRow = z.object({
  id: z.string(),
  period: z.string(),
  amount_micro: microAmount,
  status: z.enum(PAYOUT_STATUSES),
  paid_at: timestamp.nullable(),
  requested_at: timestamp,
  failure_reason: z.string().nullable(),
  rail: z.enum(PAYOUT_RAILS),
  destination: z.string().nullable(),
});

/** A publisher's payout method as they may see it (never its details). */
export const payoutMethodRow = z.object({
  rail: z.enum(PAYOUT_RAILS),
  masked: z.string(),
  ready: z.boolean(),
  status_note: z.string().nullable(),
  updated_at: timestamp,
});

/** A user's money, exactly, in micro-dollars (public.account_earnings). */
export const moneyRow = z.object({
  ad_revenue_micro: microAmount,
  data_revenue_micro: microAmount,
  pending_micro: microAmount,
  available_micro: microAmount,
});

export const apiKeyRow = z.object({
  id: z.string(),
  app_id: z.string(),
  name: z.string(),
  kind: z.enum(KEY_KINDS),
  environment: z.enum(KEY_ENVIRONMENTS),
  status: z.enum(KEY_STATUSES),
  key_prefix: z.string(),
  key_last4: z.string(),
  created_at: timestamp,
  last_used_at: timestamp.nullable(),
});

/** A placement's figures for one day, with the placement's app. */
export const dailyRow = z.object({
  placement_id: z.string(),
  app_id: z.string(),
  day: z.string(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  revenue_micro: microAmount,
});

/** A campaign as the database has it: its own columns, its budget and cap, exact spend and counts, its creatives, its times as Dates. */
export const campaignRow = campaign
  .omit({
    lifetime_budget_usd: true,
    daily_cap_usd: true,
    ctr: true,
    spend_usd: true,
    spend_micro: true,
    budget_left_usd: true,
    ecpm_usd: true,
    conversion_value_usd: true,
    conversion_value_micro: true,
    pricing_model: true,
    max_cpc_usd: true,
    max_cpc_micro: true,
    cost_per_conversion_usd: true,
    cost_per_conversion_micro: true,
    return_on_spend: true,
  })
  .extend({
    lifetime_budget_micro: microAmount.nullable(),
    daily_cap_micro: microAmount.nullable(),
    spend_micro: microAmount,
    conversion_value_micro: microAmount,
    max_cpc_micro: microAmount.nullable(),
    starts_at: timestamp,
    ends_at: timestamp.nullable(),
    created_at: timestamp,
  });

/** A data buyer's funds, exactly, in micro-dollars (public.buyer_funds): all 0 for a user who is not a buyer. */
export const buyerFundsRow = z.object({
  balance_micro: microAmount,
  reserved_micro: microAmount,
  available_micro: microAmount,
});

/**
 * A data license as the database has it: its own columns, the count of its unacknowledged deletion
 * notices, its times as Dates. Its filter is a JSON object that public.data_license_buy always
 * writes whole; a part missing from it is read as no bound.
 */
export const licenseRow = license.omit({ price_usd: true }).extend({
  price_micro: microAmount,
  filter: z.object({
    categories: z.array(z.string()).default([]),
    from: z.string().nullable().default(null),
    to: z.string().nullable().default(null),
    models: z.array(z.string()).default([]),
    min_app_age_days: z.number().int().nullable().default(null),
  }),
  requested_at: timestamp,
  starts_at: timestamp.nullable(),
  expires_at: timestamp.nullable(),
});

export type ProfileRow = z.output<typeof profileRow>;
export type AppRow = z.output<typeof appRow>;
export type PlacementRow = z.output<typeof placementRow>;
export type PayoutRow = z.output<typeof payoutRow>;
export type PayoutMethodRow = z.output<typeof payoutMethodRow>;
export type MoneyRow = z.output<typeof moneyRow>;
export type ApiKeyRow = z.output<typeof apiKeyRow>;
export type DailyRow = z.output<typeof dailyRow>;
export type CampaignRow = z.output<typeof campaignRow>;
export type BuyerFundsRow = z.output<typeof buyerFundsRow>;
export type LicenseRow = z.output<typeof licenseRow>;
