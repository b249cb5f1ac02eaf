import { z } from 'zod';
import { phraseList } from '../ads/relevance/phrase-list';
import { DEFAULT_MIN_RELEVANCE } from '../ads/relevance/decide';
import { ADVERTISER_CATEGORIES } from '../schemas/advertising';

/**
 * What a publisher decides about the ads of one app and its placements (the console's app page):
 * topics after which the app shows no ad, advertisers and kinds of advertiser it never shows, and
 * how relevant to the conversation an ad must be on each placement. The database keeps the same
 * limits (migration 20261216000000_ad_context) and applies them to every ad request
 * (public.sdk_serve_ad).
 */

/** The most advertisers an app may block, and the longest name. */
export const BLOCKED_ADVERTISERS = { max: 50, maxLength: 100 } as const;

export const adRulesInput = z.object({
  id: z.string().uuid('Unknown app.'),
  excluded_topics: phraseList('excluded topics'),
  blocked_advertisers: z
    .string()
    .default('')
    .transform((v) => {
      const seen = new Set<string>();
      return v
        .split('\n')
        .map((s) => s.trim().replace(/\s+/g, ' '))
        .filter((s) => s && !seen.has(s.toLowerCase()) && seen.add(s.toLowerCase()));
    })
    .refine((names) => names.length <= BLOCKED_ADVERTISERS.max, `At most ${BLOCKED_ADVERTISERS.max} blocked advertisers.`)
    .refine(
      (names) => names.every((n) => n.length <= BLOCKED_ADVERTISERS.maxLength),
      `Each advertiser's name takes at most ${BLOCKED_ADVERTISERS.maxLength} characters.`,
    ),
  // Checkboxes: absent when none is ticked.
  blocked_categories: z.array(z.enum(ADVERTISER_CATEGORIES, 'Choose the categories from the list.')).default([]),
});
export type AdRulesInput = z.output<typeof adRulesInput>;

export const minRelevanceInput = z.object({
  id: z.string().uuid('Unknown placement.'),
  min_relevance: z.coerce
    .number('Give the least relevance as a number from 0 to 1.')
    .min(0, 'The least relevance is from 0 to 1.')
    .max(1, 'The least relevance is from 0 to 1.')
    .transform((v) => Math.round(v * 1000) / 1000),
});
export type MinRelevanceInput = z.output<typeof minRelevanceInput>;

export { DEFAULT_MIN_RELEVANCE };
