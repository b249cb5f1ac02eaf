/**
 * The published defaults: what `/api/v1/pricing` answers (with `live: false`) when the
 * pricing settings cannot be read, and what every new database starts with (migration
 * 20261213000100_pricing_in_production writes them; tests/integration/pricing-in-production.test.ts
 * holds the two equal).
 */
export const DEFAULT_PRICING = {
  publisher_ad_revenue_share: 0.7,
  platform_ad_fee: 0.3,
  publisher_data_revenue_share: 0.8,
  advertiser_cpm_usd: { floating_video: 12, tooltip: 4, sponsored_card: 8, inline_text: 5, sponsored_follow_up: 6 },
  dataset_prices_usd: { per_ai_interaction_row: 0.002, per_ux_session_recording: 0.05, per_gb_bundle: 40 },
  exclusive_license_multiplier: 3,
  min_payout_usd: 50,
  min_top_up_usd: 50,
  /** The least a cost-per-click campaign may bid per click (`pricing_settings.cpc_floor_micro`). */
  cpc_floor_usd: 0.1,
  /**
   * The prior a cost-per-click campaign's click rate is smoothed toward until it has data: 1%,
   * weighted as 1,000 impressions (public.sdk_cpc_clears holds the same two numbers). Fixed.
   */
  cpc_prior_click_rate: 0.01,
  cpc_prior_impressions: 1000,
} as const;

export type PricingValues = {
  -readonly [K in keyof typeof DEFAULT_PRICING]: (typeof DEFAULT_PRICING)[K] extends object
    ? { -readonly [P in keyof (typeof DEFAULT_PRICING)[K]]: number }
    : number;
};

/** The smallest top-up an advertiser or data buyer may ask for, in dollars (`pricing_settings.min_top_up_micro` in micro-dollars). */
export const DEFAULT_MIN_TOP_UP_USD = DEFAULT_PRICING.min_top_up_usd;

/**
 * The data market's settings every new database starts with (`pricing_settings`, the column
 * defaults of migration 20261213000400_data_market_trust; tests/integration/pricing-in-production.test.ts
 * holds the two equal). Staff change them from /ops like the prices; not in the pricing API.
 */
export const DEFAULT_DATA_MARKET = {
  data_license_max_app_share: 0.05,
  data_license_max_publisher_share: 0.05,
  data_license_min_share_records: 10,
  data_seller_min_age_days: 14,
  data_seller_min_ad_days: 7,
  data_clawback_days: 30,
} as const;
