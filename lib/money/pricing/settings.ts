import { z } from 'zod';
import { cacheOff } from '../../platform/cache/lru';
import { as, type Database, type Statements } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { env } from '../../platform/env';
import { log, describeError } from '../../platform/log';
import { microAmount, microAsUsd } from '../../platform/kit/micro';
import { pricingBody, type Audience, type PricingBody } from '../../schemas/pricing';
import { DEFAULT_PRICING, type PricingValues } from './defaults';

/** Which optional fields concern which audience (documented on the pricing page). */
const AUDIENCE_FIELDS: Record<Audience, readonly (keyof PricingValues)[]> = {
  all: [
    'advertiser_cpm_usd',
    'dataset_prices_usd',
    'exclusive_license_multiplier',
    'min_payout_usd',
    'min_top_up_usd',
    'cpc_floor_usd',
    'cpc_prior_click_rate',
    'cpc_prior_impressions',
  ],
  publisher: ['min_payout_usd'],
  advertiser: ['advertiser_cpm_usd', 'min_top_up_usd', 'cpc_floor_usd', 'cpc_prior_click_rate', 'cpc_prior_impressions'],
  data_buyer: ['dataset_prices_usd', 'exclusive_license_multiplier', 'min_top_up_usd'],
};

/** The row in force: shares and the multiplier as fractions, every price and minimum in micro-dollars (its other columns left out). */
const pricingRow = z.object({
  publisher_ad_revenue_share: z.number(),
  platform_ad_fee: z.number(),
  publisher_data_revenue_share: z.number(),
  cpm_floating_video_micro: microAmount,
  cpm_tooltip_micro: microAmount,
  cpm_sponsored_card_micro: microAmount,
  cpm_inline_text_micro: microAmount,
  cpm_sponsored_follow_up_micro: microAmount,
  price_per_ai_interaction_row_micro: microAmount,
  price_per_ux_session_recording_micro: microAmount,
  price_per_gb_bundle_micro: microAmount,
  exclusive_license_multiplier: z.number(),
  min_payout_micro: microAmount,
  min_top_up_micro: microAmount,
  cpc_floor_micro: microAmount,
});

/**
 * The pricing in force as `/api/v1/pricing` publishes it: prices in dollars, not rounded (a CPM
 * or a data price is finer than a cent), each exactly the figure the database keeps.
 */
export async function readPricingSettings(db: Pick<Statements, 'query'>): Promise<PricingValues | null> {
  const [row] = await db.query(sql`select * from public.pricing_settings limit 1`, pricingRow);
  if (!row) return null;
  return {
    publisher_ad_revenue_share: row.publisher_ad_revenue_share,
    platform_ad_fee: row.platform_ad_fee,
    publisher_data_revenue_share: row.publisher_data_revenue_share,
    advertiser_cpm_usd: {
      floating_video: microAsUsd(row.cpm_floating_video_micro),
      tooltip: microAsUsd(row.cpm_tooltip_micro),
      sponsored_card: microAsUsd(row.cpm_sponsored_card_micro),
      inline_text: microAsUsd(row.cpm_inline_text_micro),
      sponsored_follow_up: microAsUsd(row.cpm_sponsored_follow_up_micro),
    },
    dataset_prices_usd: {
      per_ai_interaction_row: microAsUsd(row.price_per_ai_interaction_row_micro),
      per_ux_session_recording: microAsUsd(row.price_per_ux_session_recording_micro),
      per_gb_bundle: microAsUsd(row.price_per_gb_bundle_micro),
    },
    exclusive_license_multiplier: row.exclusive_license_multiplier,
    min_payout_usd: microAsUsd(row.min_payout_micro),
    min_top_up_usd: microAsUsd(row.min_top_up_micro),
    cpc_floor_usd: microAsUsd(row.cpc_floor_micro),
    cpc_prior_click_rate: DEFAULT_PRICING.cpc_prior_click_rate,
    cpc_prior_impressions: DEFAULT_PRICING.cpc_prior_impressions,
  };
}

/**
 * How long a read of the pricing settings, and the answers made from it, are reused (cache
 * 'pricing'). Prices change by hand and rarely; reading them once per request would make a
 * public, cacheable endpoint cost a database transaction (`npm run bench` measures it at half
 * the throughput). A failed read is reused for less, so recovery shows quickly.
 */
const LIVE_TTL_MS = 15_000;
const FAILED_TTL_MS = 2_000;
interface Read {
  at: number;
  ttl: number;
  value: Promise<PricingValues | null>;
  /** The JSON of GET /api/v1/pricing made from this read, by audience. */
  answers: Map<Audience, string>;
}

/** The pricing settings of one database, read as `anon` and reused for LIVE_TTL_MS. */
export class LivePricing {
  private last: Read | undefined;

  constructor(
    private readonly database: () => Promise<Database>,
    private readonly now: () => number,
  ) {}

  private current(): Read {
    const now = this.now();
    if (this.last && now - this.last.at < this.last.ttl && !cacheOff('pricing')) return this.last;
    const read: Read = { at: now, ttl: LIVE_TTL_MS, value: Promise.resolve(null), answers: new Map() };
    read.value = this.database()
      .then((db) => readPricingSettings(as(db, 'anon')))
      .then((values) => {
        // Every database has the row (migration 20261213000100_pricing_in_production): without
        // it nothing could be billed, so the answer must not say these prices are live.
        if (!values) throw new Error('pricing_settings has no row: the database cannot price anything');
        return values;
      })
      .catch((err) => {
        log.warn('pricing settings unreadable; answering with the defaults', describeError(err));
        read.ttl = FAILED_TTL_MS;
        return null;
      });
    this.last = read;
    return read;
  }

  /** Forgets the reused read: the next one reads the database (after staff change the prices here). */
  forget(): void {
    this.last = undefined;
  }

  /**
   * The values in force, as the database bills with them (`live: true`), or `null` when they
   * could not be read (the caller falls back to the defaults, `live: false`).
   */
  values(): Promise<PricingValues | null> {
    return this.current().value;
  }

  /** The body of GET /api/v1/pricing for `audience`, as JSON, made once per read of the settings. */
  async answer(audience: Audience): Promise<string> {
    const read = this.current();
    const values = await read.value;
    let text = read.answers.get(audience);
    if (text === undefined) read.answers.set(audience, (text = JSON.stringify(pricingBody.parse(pricingFor(values, audience)))));
    return text;
  }
}

export function pricingFor(values: PricingValues | null, audience: Audience): PricingBody {
  const v = values ?? (DEFAULT_PRICING as PricingValues);
  const body: PricingBody = {
    currency: 'USD',
    live: values !== null,
    publisher_ad_revenue_share: v.publisher_ad_revenue_share,
    platform_ad_fee: v.platform_ad_fee,
    publisher_data_revenue_share: v.publisher_data_revenue_share,
  };
  for (const field of AUDIENCE_FIELDS[audience]) Object.assign(body, { [field]: v[field] });
  body.markdown = `${env().PUBLIC_BASE_URL}/pricing.md`;
  return body;
}
