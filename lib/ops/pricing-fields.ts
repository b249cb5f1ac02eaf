/**
 * The values of a pricing change (lib/ops/pricing.ts), apart from the code that writes them, so
 * that the operator console's form (app/ops/forms.tsx, in the browser) can name them too.
 */

/**
 * The prices of `pricing_settings`: what a change sets, each by the name the form and the console
 * give it, with the column that keeps it and the decimals it is kept to. Prices and minimums are
 * typed and shown in dollars (`…_usd`) and kept in micro-dollars (`…_micro`, migration
 * 20261214001000_money_in_micro_dollars); shares and the multiplier are kept as they are typed.
 */
export const PRICE_FIELDS = [
  { name: 'publisher_ad_revenue_share', column: 'publisher_ad_revenue_share', label: 'Publisher ad revenue share (0 to 1)', decimals: 4 },
  { name: 'platform_ad_fee', column: 'platform_ad_fee', label: 'Platform ad fee (0 to 1; with the publisher’s share, makes 1)', decimals: 4 },
  { name: 'publisher_data_revenue_share', column: 'publisher_data_revenue_share', label: 'Publisher data revenue share (0 to 1)', decimals: 4 },
  { name: 'cpm_floating_video_usd', column: 'cpm_floating_video_micro', label: 'CPM, floating video (USD)', decimals: 4 },
  { name: 'cpm_tooltip_usd', column: 'cpm_tooltip_micro', label: 'CPM, tooltip (USD)', decimals: 4 },
  { name: 'cpm_sponsored_card_usd', column: 'cpm_sponsored_card_micro', label: 'CPM, sponsored card (USD)', decimals: 4 },
  { name: 'cpm_inline_text_usd', column: 'cpm_inline_text_micro', label: 'CPM, inline text (USD)', decimals: 4 },
  { name: 'cpm_sponsored_follow_up_usd', column: 'cpm_sponsored_follow_up_micro', label: 'CPM, sponsored follow-up (USD)', decimals: 4 },
  { name: 'cpc_floor_usd', column: 'cpc_floor_micro', label: 'Least bid per click, CPC campaigns (USD)', decimals: 4 },
  { name: 'price_per_ai_interaction_row_usd', column: 'price_per_ai_interaction_row_micro', label: 'Data: per AI interaction row (USD)', decimals: 4 },
  { name: 'price_per_ux_session_recording_usd', column: 'price_per_ux_session_recording_micro', label: 'Data: per UX session recording (USD)', decimals: 4 },
  { name: 'price_per_gb_bundle_usd', column: 'price_per_gb_bundle_micro', label: 'Data: per GB bundle (USD)', decimals: 4 },
  { name: 'exclusive_license_multiplier', column: 'exclusive_license_multiplier', label: 'Exclusive license multiplier (at least 1)', decimals: 2 },
  { name: 'min_payout_usd', column: 'min_payout_micro', label: 'Minimum payout (USD)', decimals: 2 },
  { name: 'min_top_up_usd', column: 'min_top_up_micro', label: 'Minimum top-up (USD)', decimals: 2 },
] as const;

/**
 * The data market's settings (migration 20261213000400_data_market_trust), changed like the
 * prices (migration 20261213001100_pricing_data_settings): each with the decimals its column keeps
 * (0: a whole number), the least and the most it may be (public.staff_pricing_schedule checks
 * the same), and a line of help for the form. Not in the public pricing API.
 */
export const DATA_MARKET_FIELDS = [
  {
    name: 'data_license_max_app_share',
    column: 'data_license_max_app_share',
    label: 'Largest share of a license one app may supply (above 0, at most 1)',
    decimals: 4,
    least: 0.0001,
    most: 1,
    help: '0.05: no app supplies more than 5% of a license’s records, so one app’s made-up subjects cannot fill it.',
  },
  {
    name: 'data_license_max_publisher_share',
    column: 'data_license_max_publisher_share',
    label: 'Largest share of a license one publisher may supply (above 0, at most 1)',
    decimals: 4,
    least: 0.0001,
    most: 1,
    help: 'The same cap for all of one publisher’s apps together.',
  },
  {
    name: 'data_license_min_share_records',
    column: 'data_license_min_share_records',
    label: 'Records any app or publisher may always supply (at least 1)',
    decimals: 0,
    least: 1,
    most: 9_999_999,
    help: 'When the share above is fewer records than this, the cap is this many: a small license can come from a small market.',
  },
  {
    name: 'data_seller_min_age_days',
    column: 'data_seller_min_age_days',
    label: 'Days an app and its publisher must exist before selling data',
    decimals: 0,
    least: 0,
    most: 3650,
    help: 'Younger apps and accounts are left out of the catalog, samples, quotes and purchases.',
  },
  {
    name: 'data_seller_min_ad_days',
    column: 'data_seller_min_ad_days',
    label: 'Days with billable ad impressions an app needs to sell data',
    decimals: 0,
    least: 0,
    most: 3650,
    help: 'Real use: days on which the app showed ads that passed the invalid-traffic rules.',
  },
  {
    name: 'data_clawback_days',
    column: 'data_clawback_days',
    label: 'Claw-back window (days after a sale)',
    decimals: 0,
    least: 0,
    most: 3650,
    help: 'A withdrawal this soon after a sale refunds the buyer and takes it back from the publisher; a sale’s earnings are held until the window ends. Each license keeps the window in force when it was sold: a change holds for sales made after it, never for earlier ones.',
  },
] as const;

/** Every value of `pricing_settings` a change sets: the prices, then the data market's settings. */
export const PRICING_FIELDS = [...PRICE_FIELDS, ...DATA_MARKET_FIELDS] as const;

export type PricingField = (typeof PRICING_FIELDS)[number]['name'];
export type PricingColumn = (typeof PRICING_FIELDS)[number]['column'];
/** Every value of a change by its field, as the form gives it: prices and minimums in dollars. */
export type PricingColumns = Record<PricingField, number>;
