import type { ReadConversation } from './conversation';
import { sensitiveCategory, type SensitiveCategory } from './safety';
import { campaignPhrases, fit, mentions, phrases, type CampaignPhrases, type Phrase } from './score';

/**
 * Which campaigns may answer an ad request that came with a conversation, and how well each
 * fits, or why none may. In order:
 *
 * 1. a sensitive conversation (./safety.ts) gets no ad: `sensitive`;
 * 2. nor one that names a topic the app excluded: `blocked`;
 * 3. the campaigns of advertisers or categories the app blocked are left out; when that leaves
 *    none: `blocked`;
 * 4. each campaign left is scored (./score.ts); those at or above the placement's
 *    `min_relevance` may answer. None: `below_relevance`.
 *
 * Campaigns that cannot serve at all (none running for the format, budgets spent, capped) are the
 * database's to find, after this: `no_eligible_campaign`.
 */

/** Why a request got no ad: the `No-Fill-Reason` header of a 204. */
export const NO_FILL_REASONS = ['sensitive', 'below_relevance', 'blocked', 'no_eligible_campaign', 'placement_inactive'] as const;
export type NoFillReason = (typeof NO_FILL_REASONS)[number];

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

/** A campaign as the decision weighs it. */
export interface CampaignToFit {
  id: string;
  advertiserId: string;
  category: string;
  phrases: CampaignPhrases;
}

/** What the app decided about its own ads. */
export interface AppRules {
  minRelevance: number;
  /** Topics (phrases) after which the app shows no ad. */
  excludedTopics: readonly Phrase[];
  blockedAdvertisers: ReadonlySet<string>;
  blockedCategories: ReadonlySet<string>;
}

export interface Relevant {
  id: string;
  relevance: number;
  matched: string[];
}

export type Decision =
  | { ok: true; relevant: Relevant[] }
  | { ok: false; reason: Exclude<NoFillReason, 'no_eligible_campaign' | 'placement_inactive'>; sensitive?: SensitiveCategory }
  | { ok: false; reason: 'no_eligible_campaign' };

/** The app's rules from what it stored. */
export function appRules(
  minRelevance: number,
  excludedTopics: readonly string[],
  blockedAdvertisers: readonly string[],
  blockedCategories: readonly string[],
): AppRules {
  return {
    minRelevance,
    excludedTopics: phrases(excludedTopics),
    blockedAdvertisers: new Set(blockedAdvertisers),
    blockedCategories: new Set(blockedCategories),
  };
}

/** A campaign to fit, from what it stored. */
export function campaignToFit(id: string, advertiserId: string, category: string, hints: readonly string[], excluded: readonly string[]): CampaignToFit {
  return { id, advertiserId, category, phrases: campaignPhrases(hints, excluded) };
}

/** The campaigns that may answer, best first, or why none may (module comment). */
export function decide(conversation: ReadConversation, campaigns: readonly CampaignToFit[], rules: AppRules): Decision {
  const sensitive = sensitiveCategory(conversation);
  if (sensitive) return { ok: false, reason: 'sensitive', sensitive };
  if (rules.excludedTopics.some((topic) => mentions(conversation, topic))) return { ok: false, reason: 'blocked' };
  if (campaigns.length === 0) return { ok: false, reason: 'no_eligible_campaign' };
  const allowed = campaigns.filter((c) => !rules.blockedAdvertisers.has(c.advertiserId) && !rules.blockedCategories.has(c.category));
  if (allowed.length === 0) return { ok: false, reason: 'blocked' };
  const relevant: Relevant[] = [];
  for (const c of allowed) {
    const f = fit(conversation, c.phrases);
    if (reaches(f.relevance, rules.minRelevance)) relevant.push({ id: c.id, relevance: f.relevance, matched: f.matched });
  }
  if (relevant.length === 0) return { ok: false, reason: 'below_relevance' };
  relevant.sort((a, b) => b.relevance - a.relevance || (a.id < b.id ? -1 : 1));
  return { ok: true, relevant };
}
