import { z } from 'zod';

export const AUDIENCES = ['all', 'publisher', 'advertiser', 'data_buyer'] as const;
export type Audience = (typeof AUDIENCES)[number];

export const pricingQuery = z.object({
  audience: z
    .enum(AUDIENCES, { message: `must be one of ${AUDIENCES.join(', ')}` })
    .default('all')
    .describe('Whose optional fields to include: all, publisher, advertiser or data_buyer.'),
});

const fraction = z.number().min(0).max(1);

export const pricingBody = z.object({
  currency: z.literal('USD'),
  live: z.boolean().describe('False when the live settings could not be read and the defaults are returned.'),
  publisher_ad_revenue_share: fraction.describe('Fraction of ad revenue paid to the publisher.'),
  platform_ad_fee: fraction.describe('Fraction of ad revenue kept by the service.'),
  publisher_data_revenue_share: fraction.describe('Fraction of data sales paid to the publisher.'),
  advertiser_cpm_usd: z
    .object({
      floating_video: z.number(),
      tooltip: z.number(),
      sponsored_card: z.number(),
      inline_text: z.number(),
      sponsored_follow_up: z.number().describe('The sponsored follow-up, a suggested next question under an answer (added in 2026-12; additive).'),
    })
    .optional()
    .describe('Advertiser price per 1,000 impressions, by placement format (audiences all, advertiser).'),
  dataset_prices_usd: z
    .object({ per_ai_interaction_row: z.number(), per_ux_session_recording: z.number(), per_gb_bundle: z.number() })
    .optional()
    .describe('Prices of consented data sets (audiences all, data_buyer).'),
  exclusive_license_multiplier: z.number().optional().describe('Price multiplier for an exclusive data license (audiences all, data_buyer).'),
  min_payout_usd: z.number().optional().describe('Smallest balance paid out to a publisher (audiences all, publisher).'),
  min_top_up_usd: z
    .number()
    .optional()
    .describe('Smallest amount an advertiser or a data buyer may add to their balance at once (audiences all, advertiser, data_buyer; additive).'),
  cpc_floor_usd: z.number().optional().describe('The least a cost-per-click campaign may bid per click (audiences all, advertiser; additive, 2026-12).'),
  cpc_prior_click_rate: fraction
    .optional()
    .describe(
      "The click rate a cost-per-click campaign's estimate starts from: its clicks per impression on a placement are smoothed toward it (audiences all, advertiser; additive).",
    ),
  cpc_prior_impressions: z
    .number()
    .int()
    .optional()
    .describe('How many impressions the prior weighs as: the estimate is (clicks + rate × this) / (impressions + this) (audiences all, advertiser; additive).'),
  markdown: z.string().url().optional().describe("URL of the pricing page's markdown twin."),
});

export type PricingBody = z.infer<typeof pricingBody>;
