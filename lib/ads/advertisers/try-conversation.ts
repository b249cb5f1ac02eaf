import { z } from 'zod';
import { asConsoleUser } from '../../identity/console';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { CAMPAIGN_STATUSES } from '../../schemas/advertising';
import { readConversation, type ContextMessage } from '../relevance/conversation';
import { DEFAULT_MIN_RELEVANCE, reaches } from '../relevance/decide';
import { sensitiveCategory, type SensitiveCategory } from '../relevance/safety';
import { campaignPhrases, fit } from '../relevance/score';

/**
 * The console's "try a conversation" box: an advertiser types what a user might say, and sees how
 * relevant each of their campaigns would be and which hints matched, before paying for anything.
 * The text is read here, in memory, for this one answer: it is not written to the database or a
 * log, and the scores hold none of it, only figures and the advertiser's own hints (the form gets
 * back what was typed, so the advertiser's own browser can show it again).
 */

/** The most an ad request's conversation may hold, in characters, and so the box. */
export const TRY_MAX_CHARACTERS = 4000;

export const tryInput = z
  .object({
    earlier: z.string().trim().default(''),
    latest: z.string().trim().min(1, 'Type what the user says.'),
  })
  .refine((t) => t.earlier.length + t.latest.length <= TRY_MAX_CHARACTERS, {
    message: `At most ${TRY_MAX_CHARACTERS.toLocaleString('en-US')} characters in all, as in an ad request.`,
  });
export type TryInput = z.output<typeof tryInput>;

export interface TriedCampaign {
  id: string;
  name: string;
  status: (typeof CAMPAIGN_STATUSES)[number];
  relevance: number;
  matched: string[];
  excludedBy: string | null;
  /** At or above the default min_relevance: an app with the default may draw it, unless the conversation is sensitive (then none is shown). */
  reaches: boolean;
}

export interface Tried {
  /** The sensitive category the conversation falls in: then no campaign is shown, whatever its hints. */
  sensitive: SensitiveCategory | null;
  minRelevance: number;
  campaigns: TriedCampaign[];
}

const campaignRow = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  context_hints: z.array(z.string()),
  excluded_phrases: z.array(z.string()),
});

/** Each of the advertiser's campaigns not completed, scored against the conversation, most relevant first. */
export async function tryConversation(db: Database, userId: string, input: TryInput): Promise<Tried> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select c.id, c.name, c.status, c.context_hints, c.excluded_phrases from public.campaigns c
        where c.advertiser_id = ${userId}::uuid and c.status <> 'completed' order by c.created_at, c.id`,
    campaignRow,
  );
  const messages: ContextMessage[] = [...(input.earlier ? [{ role: 'user' as const, content: input.earlier }] : []), { role: 'user', content: input.latest }];
  const conversation = readConversation(messages);
  const campaigns = rows
    .map((c) => {
      const f = fit(conversation, campaignPhrases(c.context_hints, c.excluded_phrases));
      return { id: c.id, name: c.name, status: c.status, ...f, reaches: reaches(f.relevance, DEFAULT_MIN_RELEVANCE) };
    })
    .sort((a, b) => b.relevance - a.relevance);
  return { sensitive: sensitiveCategory(conversation), minRelevance: DEFAULT_MIN_RELEVANCE, campaigns };
}
