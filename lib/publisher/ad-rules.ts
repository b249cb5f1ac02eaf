import { z } from 'zod';
import { phraseList } from '../ads/relevance/phrase-list';
import { DEFAULT_MIN_RELEVANCE } from '../ads/relevance/decide';
import { asConsoleUser } from '../identity/console';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { ADVERTISER_CATEGORIES } from '../schemas/advertising';
import { NO_FILL_REASONS, type NoFillReason } from '../schemas/sdk';

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

/** How many days the console counts unfilled requests over. */
export const UNFILLED_DAYS = 30;

const unfilledRow = z.object({
  placement_id: z.string(),
  requests: z.coerce.number(),
  fills: z.coerce.number(),
  hides: z.coerce.number(),
  ...Object.fromEntries(NO_FILL_REASONS.map((r) => [r, z.coerce.number()])),
});

export type Unfilled = { requests: number; fills: number; hides: number } & Record<NoFillReason, number>;

/**
 * Each placement of the app's requests over the last UNFILLED_DAYS UTC days (today's rolled up so
 * far): how many, how many filled, and the others by why nothing filled (`No-Fill-Reason`); and how
 * many of its ads users hid ("Hide this ad"). Read as the publisher: row-level security keeps it to their own placements.
 */
export async function unfilledRequests(db: Database, userId: string, appId: string): Promise<Map<string, Unfilled>> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select s.placement_id, sum(s.ad_requests) as requests, sum(s.fills) as fills, sum(s.hides) as hides,
               sum(s.unfilled_sensitive) as sensitive, sum(s.unfilled_below_relevance) as below_relevance,
               sum(s.unfilled_blocked) as blocked, sum(s.unfilled_no_eligible_campaign) as no_eligible_campaign,
               sum(s.unfilled_placement_inactive) as placement_inactive
        from public.daily_stats s join public.placements p on p.id = s.placement_id
        where p.app_id = ${appId}::uuid and s.day > (now() at time zone 'UTC')::date - ${UNFILLED_DAYS}::integer
        group by s.placement_id`,
    unfilledRow,
  );
  return new Map(rows.map(({ placement_id, ...counts }) => [placement_id, counts as Unfilled]));
}
