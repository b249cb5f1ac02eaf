/**
 * The values of a pricing change (lib/ops/pricing.ts), apart from the code that writes them, so
 * that the operator console's form (app/ops/forms.tsx, in the browser) can name them too.
 */

/** The values of `pricing_settings`, by column: what a change sets, each with the decimals its column keeps. */
export const PRICING_FIELDS = [
  { name: 'publisher_ad_revenue_share', label: 'Publisher ad revenue share (0 to 1)', decimals: 4 },
  { name: 'platform_ad_fee', label: 'Platform ad fee (0 to 1; with the publisher’s share, makes 1)', decimals: 4 },
  { name: 'publisher_data_revenue_share', label: 'Publisher data revenue share (0 to 1)', decimals: 4 },
  { name: 'cpm_floating_video_usd', label: 'CPM, floating video (USD)', decimals: 4 },
  { name: 'cpm_tooltip_usd', label: 'CPM, tooltip (USD)', decimals: 4 },
  { name: 'cpm_sponsored_card_usd', label: 'CPM, sponsored card (USD)', decimals: 4 },
  { name: 'cpm_inline_text_usd', label: 'CPM, inline text (USD)', decimals: 4 },
  { name: 'price_per_ai_interaction_row_usd', label: 'Data: per AI interaction row (USD)', decimals: 4 },
  { name: 'price_per_ux_session_recording_usd', label: 'Data: per UX session recording (USD)', decimals: 4 },
  { name: 'price_per_gb_bundle_usd', label: 'Data: per GB bundle (USD)', decimals: 4 },
  { name: 'exclusive_license_multiplier', label: 'Exclusive license multiplier (at least 1)', decimals: 2 },
  { name: 'min_payout_usd', label: 'Minimum payout (USD)', decimals: 2 },
  { name: 'min_top_up_usd', label: 'Minimum top-up (USD)', decimals: 2 },
] as const;

export type PricingField = (typeof PRICING_FIELDS)[number]['name'];
export type PricingColumns = Record<PricingField, number>;
