import { z } from 'zod';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { Market, type AppTopics, type MarketCampaign } from '../relevance/market';

/**
 * The market an ad request's conversation is read against (lib/ads/relevance/market.ts), kept in
 * this process with the version it was read at (public.ad_market, moved by the database whenever
 * a running campaign's hints, a campaign's status or an app's excluded topics change). Every
 * request with a conversation sends that version to the decision (public.sdk_serve_ad), which
 * answers `stale` if it has moved; the request then reads the market again and asks again. So
 * the market is read once per change, not per request, and no request is decided on an old one:
 * a campaign that starts is drawn on the first request it fits.
 *
 * `CACHES_OFF=market` reads it for every request instead (the bench measures what keeping it is worth).
 */

/** The market's rows at one version, as the database gave them, and the index built from them on first use. */
export interface MarketAt {
  version: number;
  campaigns: readonly MarketCampaign[];
  topics: readonly AppTopics[];
  market(): Market;
}

const stored = z.object({
  version: z.number().int(),
  campaigns: z.array(z.object({ id: z.string(), hints: z.array(z.string()), excluded: z.array(z.string()) })),
  topics: z.array(z.object({ app_id: z.string(), topics: z.array(z.string()) })),
});

/** The market at `version` from its rows. */
export function marketAt(version: number, campaigns: readonly MarketCampaign[], topics: readonly AppTopics[]): MarketAt {
  let built: Market | undefined;
  return { version, campaigns, topics, market: () => (built ??= new Market(campaigns, topics)) };
}

/**
 * Reads the market at its current version (public.sdk_ad_market), as the service: it holds every
 * app's excluded topics, which no app's own session may read. It stays in the server's memory.
 */
export async function readMarket(db: Database): Promise<MarketAt> {
  const [row] = await asService(db).query(sql`select public.sdk_ad_market() as market`, z.object({ market: stored }));
  const m = row!.market;
  return marketAt(
    m.version,
    m.campaigns,
    m.topics.map((t) => ({ appId: t.app_id, topics: t.topics })),
  );
}
