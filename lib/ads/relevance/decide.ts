import type { ReadConversation } from './conversation';
import type { Market, Relevant } from './market';
import { sensitiveCategory, type SensitiveCategory } from './safety';

/**
 * What the conversation of an ad request decides, before the database draws among the campaigns
 * that may serve. In order:
 *
 * 1. a sensitive conversation (./safety.ts) gets no ad: `sensitive`;
 * 2. nor one that names a topic the app excluded: `blocked`;
 * 3. otherwise every campaign that fits at all goes to the database with its relevance and the
 *    hints that matched (./market.ts).
 *
 * The database then keeps the campaigns at or above the placement's `min_relevance` (none:
 * `below_relevance`), leaves out the advertisers and categories the app blocked (all of those
 * left: `blocked`), and draws among those that may fill now (none: `no_eligible_campaign`):
 * supabase/schemas/functions/public.sdk_serve_ad.sql. `decide` below restates only the threshold,
 * for the labelled sets and the console's "try a conversation" box, which have no database.
 */

/**
 * The `min_relevance` of a new placement: chosen on the labelled set (lib/ads/relevance/labelled),
 * where it keeps an ad from at least 95% of the off-topic conversations and lets one through for at
 * least 90% of those written for a campaign (labelled.test.ts measures both). A phrase in the
 * user's latest message (0.7) or in an earlier message of theirs (0.42), or a single word in the
 * latest (0.45), is enough; a single word only in an earlier message (0.27), or a phrase only in
 * the assistant's words (0.21), is not.
 */
export const DEFAULT_MIN_RELEVANCE = 0.3;

/**
 * Among the campaigns that may answer, the draw weighs each by its budget times its relevance to
 * this power: a campaign of relevance 0.91 weighs 2.6 times one of 0.56 of the same budget.
 */
export const DRAW_RELEVANCE_POWER = 2;

/** Whether a campaign of this relevance may answer under `minRelevance`: at or above it, and not 0 (nothing found). */
export function reaches(relevance: number, minRelevance: number): boolean {
  return relevance > 0 && relevance >= minRelevance;
}

/** What the conversation decides (module comment): no ad and why, or the campaigns that fit at all. */
export type Verdict = { ok: true; fits: Relevant[] } | { ok: false; reason: 'sensitive'; sensitive: SensitiveCategory } | { ok: false; reason: 'blocked' };

export function verdict(conversation: ReadConversation, market: Market, appId: string): Verdict {
  const sensitive = sensitiveCategory(conversation);
  if (sensitive) return { ok: false, reason: 'sensitive', sensitive };
  const reading = market.read(conversation);
  if (reading.excludingApps.has(appId)) return { ok: false, reason: 'blocked' };
  return { ok: true, fits: reading.fits };
}

export type Decision = { ok: true; relevant: Relevant[] } | Exclude<Verdict, { ok: true }> | { ok: false; reason: 'below_relevance' };

/** The verdict with the threshold applied: the campaigns that may answer, best first, or why none may. */
export function decide(conversation: ReadConversation, market: Market, app: { appId: string; minRelevance: number }): Decision {
  const v = verdict(conversation, market, app.appId);
  if (!v.ok) return v;
  const relevant = v.fits.filter((f) => reaches(f.relevance, app.minRelevance));
  return relevant.length > 0 ? { ok: true, relevant } : { ok: false, reason: 'below_relevance' };
}
