/**
 * The published defaults: what `/api/v1/pricing` answers (with `live: false`) when the
 * pricing settings cannot be read, and what a new database is seeded with.
 */
export const DEFAULT_PRICING = {
  publisher_ad_revenue_share: 0.7,
  platform_ad_fee: 0.3,
  publisher_data_revenue_share: 0.8,
  advertiser_cpm_usd: { floating_video: 12, tooltip: 4, sponsored_card: 8, inline_text: 5 },
  dataset_prices_usd: { per_ai_interaction_row: 0.002, per_ux_session_recording: 0.05, per_gb_bundle: 40 },
  exclusive_license_multiplier: 3,
  min_payout_usd: 50,
} as const;

export type PricingValues = {
  -readonly [K in keyof typeof DEFAULT_PRICING]: (typeof DEFAULT_PRICING)[K] extends object
    ? { -readonly [P in keyof (typeof DEFAULT_PRICING)[K]]: number }
    : number;
};
