import { asConsoleUser } from '../../identity/console';
import type { Database, Session } from '../../platform/db/roles';
import { z } from 'zod';
import { call, type Refusals } from '../../platform/kit/call';
import { sql } from '../../platform/db/sql';
import { micro, microAmount, microAsUsd, type Micro } from '../../platform/kit/micro';
import { ok, refused, type Result } from '../../platform/kit/result';
import { violatedConstraint } from '../../platform/db/errors';
import { topUpRow, type TopUp } from '../../money/funds';
import { ADVERTISER_CATEGORIES, CAMPAIGN_STATUSES, CREATIVE_STATUSES, PAUSE_REASONS, type CampaignStatus } from '../../schemas/advertising';
import { PLACEMENT_FORMATS, type PlacementFormat } from '../../schemas/account';
import { ADVERTISER_LIMITS, CAMPAIGN_MOVES, type CampaignInput, type CampaignMove, type CreativeInput, type ProfileInput } from './schemas';
import { endOfDay, startOfDay } from './time';

/**
 * An advertiser's own account, read and written as them: the role `authenticated` with the
 * advertiser as the user, so row-level security keeps them to their own profile, funds,
 * campaigns, creatives and figures, and the database's triggers decide which status moves are
 * theirs (migration 20261207000000_advertisers). Another advertiser's campaign is simply not
 * there ("not found"), whatever id a form sends. Money is in micro-dollars, from the ledger.
 */

/**
 * The rows these reads answer, each checked by its schema as it arrives, and typed by it: what a
 * column holds and what the code believes cannot drift apart. Timestamps arrive as dates, amounts
 * as whole micro-dollars.
 */
const profileRow = z.object({
  user_id: z.string(),
  company: z.string(),
  billing_name: z.string(),
  billing_email: z.string(),
  billing_address: z.string(),
  country: z.string(),
  tax_id: z.string().nullable(),
  time_zone: z.string(),
});
export type Profile = z.output<typeof profileRow>;

const format = z.enum(PLACEMENT_FORMATS);

const campaignRow = z.object({
  id: z.string(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  pause_reason: z.enum(PAUSE_REASONS).nullable(),
  rejection_reason: z.string().nullable(),
  starts_at: z.date(),
  ends_at: z.date().nullable(),
  hard_stop: z.boolean(),
  lifetime_budget_micro: microAmount.nullable(),
  daily_cap_micro: microAmount.nullable(),
  frequency_cap: z.number().int(),
  /** How many days after a click a conversion counts (migration 20261221000000_conversions). */
  attribution_window_days: z.number().int(),
  /** Its bid per click when it pays per click; null when it pays per 1,000 impressions (migration 20261221000300_cost_per_click). */
  max_cpc_micro: microAmount.nullable(),
  formats: z.array(format),
  keywords: z.array(z.string()),
  include_categories: z.array(z.string()),
  exclude_categories: z.array(z.string()),
  excluded_apps: z.array(z.string()),
  /** Where its ads fit in a conversation, and phrases after which they never show (migration 20261215000100_campaign_context). */
  context_hints: z.array(z.string()),
  excluded_phrases: z.array(z.string()),
  advertiser_category: z.enum(ADVERTISER_CATEGORIES),
  created_at: z.date(),
  /** The moves its advertiser may ask for now (public.campaign_moves_open): the console offers these, and only these. */
  moves: z.array(z.enum(CAMPAIGN_MOVES)),
  /** Totals from the daily figures the roll-up keeps. */
  impressions: z.number(),
  clicks: z.number(),
  /** Times a user hid one of its ads ("Hide this ad"): never billed. */
  hides: z.number(),
  spent_micro: microAmount,
});
export type Campaign = z.output<typeof campaignRow>;

const creativeMediaRow = z.object({
  image_url: z.string().nullable(),
  video_url: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration_ms: z.number().int().nullable(),
});
export type CreativeMedia = z.output<typeof creativeMediaRow>;

const creativeRow = creativeMediaRow.extend({
  id: z.string(),
  campaign_id: z.string(),
  format,
  status: z.enum(CREATIVE_STATUSES),
  rejection_reason: z.string().nullable(),
  headline: z.string(),
  body: z.string(),
  cta: z.string(),
  landing_url: z.string(),
});
export type Creative = z.output<typeof creativeRow>;

const dayRow = z.object({
  day: z.string(),
  creative_id: z.string(),
  app_id: z.string(),
  app_name: z.string(),
  format,
  fills: z.number(),
  impressions: z.number(),
  clicks: z.number(),
  hides: z.number(),
  spent_micro: microAmount,
  conversions: z.number(),
  conversion_value_micro: microAmount,
});
export type DayFigures = z.output<typeof dayRow>;

const idRow = z.object({ id: z.string() });

export interface AdvertiserAccount {
  profile: Profile | null;
  /** The advertiser's ledger balance: what they put in less what their ads cost. */
  balance_micro: Micro;
  top_ups: TopUp[];
  campaigns: Campaign[];
}

const CAMPAIGN_COLUMNS = sql`c.id, c.name, c.status, c.pause_reason, c.rejection_reason, public.campaign_moves_open(c.status, c.pause_reason) as moves,
  c.starts_at, c.ends_at, c.hard_stop,
  c.lifetime_budget_micro::float8 as lifetime_budget_micro, c.daily_cap_micro::float8 as daily_cap_micro, c.frequency_cap, c.attribution_window_days, c.max_cpc_micro::float8 as max_cpc_micro, c.formats, c.keywords,
  c.include_categories, c.exclude_categories, c.excluded_apps::text[] as excluded_apps, c.context_hints, c.excluded_phrases, c.advertiser_category, c.created_at,
  coalesce(s.impressions, 0)::float8 as impressions, coalesce(s.clicks, 0)::float8 as clicks, coalesce(s.hides, 0)::float8 as hides,
  coalesce(s.spent_micro, 0)::float8 as spent_micro`;
const CAMPAIGN_TOTALS = sql`left join (select x.campaign_id, sum(x.impressions) as impressions, sum(x.clicks) as clicks,
                                              sum(x.hides) as hides, sum(x.spent_micro) as spent_micro
                                       from public.campaign_daily_stats x group by x.campaign_id) s on s.campaign_id = c.id`;

/** Everything the advertiser's console opens with, in one transaction. */
export async function advertiserAccount(db: Database, userId: string): Promise<AdvertiserAccount> {
  return asConsoleUser(db, userId).transaction(async (tx) => {
    const [profile] = await tx.query(
      sql`select user_id, company, billing_name, billing_email, billing_address, country, tax_id, time_zone from public.advertiser_profiles`,
      profileRow,
    );
    const [balance] = await tx.query(
      sql`select coalesce(sum(p.amount_micro), 0)::float8 as micro
          from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id where a.kind = 'advertiser'`,
      z.object({ micro: microAmount }),
    );
    const topUps = await tx.query(
      sql`select id, amount_micro::float8 as amount_micro, rail, status, invoice_number, payment_reference, requested_at, paid_at
          from public.top_ups where account_kind = 'advertiser' order by requested_at desc limit 100`,
      topUpRow,
    );
    const campaigns = await tx.query(sql`select ${CAMPAIGN_COLUMNS} from public.campaigns c ${CAMPAIGN_TOTALS} order by c.created_at desc`, campaignRow);
    return { profile: profile ?? null, balance_micro: balance?.micro ?? micro(0), top_ups: topUps, campaigns };
  });
}

/** One campaign of the advertiser's with its creatives and its daily figures per creative and app; null when it is not theirs. */
export async function advertiserCampaign(
  db: Database,
  userId: string,
  campaignId: string,
): Promise<{ campaign: Campaign; creatives: Creative[]; days: DayFigures[] } | null> {
  return asConsoleUser(db, userId).transaction(async (tx) => {
    const [campaign] = await tx.query(sql`select ${CAMPAIGN_COLUMNS} from public.campaigns c ${CAMPAIGN_TOTALS} where c.id = ${campaignId}::uuid`, campaignRow);
    if (!campaign) return null;
    const creatives = await tx.query(
      sql`select id, campaign_id, format, status, rejection_reason, headline, body, cta, image_url, video_url, landing_url, width, height, duration_ms
          from public.creatives where campaign_id = ${campaignId}::uuid order by created_at`,
      creativeRow,
    );
    const days = await tx.query(
      sql`select to_char(s.day, 'YYYY-MM-DD') as day, s.creative_id, s.app_id, coalesce(n.name, 'An app') as app_name, cr.format,
                 s.fills::float8 as fills, s.impressions::float8 as impressions, s.clicks::float8 as clicks,
                 s.hides::float8 as hides, s.spent_micro::float8 as spent_micro,
                 s.conversions::float8 as conversions, s.conversion_value_micro::float8 as conversion_value_micro
          from public.campaign_daily_stats s join public.creatives cr on cr.id = s.creative_id
          left join public.advertiser_apps() n on n.id = s.app_id
          where s.campaign_id = ${campaignId}::uuid order by s.day desc, cr.format, s.app_id limit 2000`,
      dayRow,
    );
    return { campaign, creatives, days };
  });
}

/** What the profile form says when the company, the name on the ads, may not change now (public.advertiser_profiles_guard). */
export const COMPANY_REVIEWED =
  'Your company name is shown with your ads and was reviewed with them, so it cannot change while a campaign of yours is in review, scheduled, active or paused. Change it once they are completed (an end date with a hard stop completes one).';

export async function saveProfile(db: Database, userId: string, input: ProfileInput): Promise<Result> {
  try {
    await upsertProfile(db, userId, input);
  } catch (err) {
    if (violatedConstraint(err) === 'advertiser_profiles_company_reviewed') return refused(COMPANY_REVIEWED);
    throw err;
  }
  return ok(undefined);
}

async function upsertProfile(db: Database, userId: string, input: ProfileInput): Promise<void> {
  await asConsoleUser(db, userId).query(
    sql`insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country, tax_id, time_zone)
        values (${userId}, ${input.company}, ${input.billing_name}, ${input.billing_email}, ${input.billing_address}, ${input.country},
                ${input.tax_id}, ${input.time_zone})
        on conflict (user_id) do update set company = excluded.company, billing_name = excluded.billing_name, billing_email = excluded.billing_email,
          billing_address = excluded.billing_address, country = excluded.country, tax_id = excluded.tax_id, time_zone = excluded.time_zone,
          updated_at = now()
        returning user_id`,
  );
}

function campaignValues(input: CampaignInput, zone: string) {
  return {
    starts_at: startOfDay(input.starts_on, zone),
    ends_at: input.ends_on === null ? null : endOfDay(input.ends_on, zone),
    lifetime: input.lifetime_budget_usd,
    cap: input.daily_cap_usd,
  };
}

/** The constraints a campaign's write may break, in words (its status moves answer through public.campaign_move: moveRefusals). */
const CAMPAIGN_REFUSALS: Record<string, string> = {
  campaigns_completed_unchanged: 'A completed campaign cannot be changed: make a new one.',
  campaigns_ends_after_start: 'The campaign ends after it starts.',
  campaigns_open_per_advertiser: `You have ${ADVERTISER_LIMITS.campaigns} campaigns that are not completed, the most an advertiser may have: delete a draft you no longer need, or let a campaign complete, before making another.`,
};

const CREATIVE_REFUSALS: Record<string, string> = {
  creatives_per_campaign: `This campaign has ${ADVERTISER_LIMITS.creativesPerCampaign} creatives, the most a campaign may have: delete one it no longer needs, or make another campaign.`,
  creatives_per_advertiser: `Your campaigns that are not completed have ${ADVERTISER_LIMITS.creatives} creatives, the most an advertiser may have: delete some you no longer need first.`,
};

function refusal(err: unknown): Result<never> {
  const name = violatedConstraint(err);
  if (name && CAMPAIGN_REFUSALS[name]) return refused(CAMPAIGN_REFUSALS[name]);
  throw err;
}

async function zoneOf(session: Session): Promise<string | null> {
  const [row] = await session.query(sql`select time_zone from public.advertiser_profiles`, z.object({ time_zone: z.string() }));
  return row?.time_zone ?? null;
}

/** A bid per click under the floor in the pricing settings, refused with the floor named; null when it is at or above it (or there is none). */
async function belowFloor(session: Session, input: CampaignInput): Promise<string | null> {
  if (input.max_cpc_micro === null) return null;
  const [row] = await session.query(sql`select cpc_floor_micro::float8 as floor from public.pricing_settings`, z.object({ floor: microAmount }));
  if (!row || input.max_cpc_micro >= row.floor) return null;
  return `The least a campaign may bid per click is $${microAsUsd(row.floor)}: bid that or more.`;
}

export async function createCampaign(db: Database, userId: string, input: CampaignInput): Promise<Result<{ id: string }>> {
  const session = asConsoleUser(db, userId);
  const zone = await zoneOf(session);
  if (!zone) return refused('Set up your advertiser profile first.');
  const floor = await belowFloor(session, input);
  if (floor) return refused(floor);
  const v = campaignValues(input, zone);
  try {
    const [row] = await session.query(
      sql`insert into public.campaigns (advertiser_id, name, starts_at, ends_at, hard_stop, lifetime_budget_micro, daily_cap_micro, formats, keywords,
                                        include_categories, exclude_categories, excluded_apps, frequency_cap, context_hints, excluded_phrases, advertiser_category,
                                        attribution_window_days, max_cpc_micro)
          values (${userId}, ${input.name}, ${v.starts_at}, ${v.ends_at}, ${input.hard_stop}, ${v.lifetime}::bigint, ${v.cap}::bigint,
                  ${input.formats}::text[], ${input.keywords}::text[], ${input.include_categories}::text[], ${input.exclude_categories}::text[],
                  ${input.excluded_apps}::uuid[], ${input.frequency_cap}, ${input.context_hints}::text[], ${input.excluded_phrases}::text[],
                  ${input.advertiser_category}, ${input.attribution_window_days}, ${input.max_cpc_micro}::bigint)
          returning id`,
      idRow,
    );
    return ok({ id: row!.id });
  } catch (err) {
    return refusal(err);
  }
}

export async function updateCampaign(db: Database, userId: string, id: string, input: CampaignInput): Promise<Result> {
  const session = asConsoleUser(db, userId);
  const zone = await zoneOf(session);
  if (!zone) return refused('Set up your advertiser profile first.');
  const floor = await belowFloor(session, input);
  if (floor) return refused(floor);
  const v = campaignValues(input, zone);
  try {
    const rows = await session.query(
      sql`update public.campaigns set name = ${input.name}, starts_at = ${v.starts_at}, ends_at = ${v.ends_at}, hard_stop = ${input.hard_stop},
            lifetime_budget_micro = ${v.lifetime}::bigint, daily_cap_micro = ${v.cap}::bigint, formats = ${input.formats}::text[],
            keywords = ${input.keywords}::text[], include_categories = ${input.include_categories}::text[],
            exclude_categories = ${input.exclude_categories}::text[], excluded_apps = ${input.excluded_apps}::uuid[], frequency_cap = ${input.frequency_cap},
            context_hints = ${input.context_hints}::text[], excluded_phrases = ${input.excluded_phrases}::text[],
            advertiser_category = ${input.advertiser_category}, attribution_window_days = ${input.attribution_window_days},
            max_cpc_micro = ${input.max_cpc_micro}::bigint
          where id = ${id}::uuid returning id`,
    );
    return rows.length === 1 ? ok(undefined) : refused('That campaign does not exist.');
  } catch (err) {
    return refusal(err);
  }
}

/**
 * public.campaign_move's refusals, for `move`. Which moves a campaign may make is the database's
 * to say (public.campaigns_guard); this only says its answer.
 */
function moveRefusals(
  move: CampaignMove,
): Refusals<
  'not_found' | 'unchanged' | 'campaigns_status_move' | 'campaigns_completed_unchanged' | 'campaigns_resume_not_theirs' | 'campaigns_review_needs_creative'
> {
  const cannot = `The campaign cannot ${move} now.`;
  return {
    not_found: cannot,
    unchanged: cannot,
    campaigns_status_move: cannot,
    campaigns_completed_unchanged: cannot,
    // Paused for want of funds or for a payment taken back: a top-up or the operator resumes it.
    campaigns_resume_not_theirs: 'The campaign cannot make that move now: the page shows what it can do.',
    campaigns_review_needs_creative: 'Add at least one creative before sending the campaign to review.',
  };
}

const moved = z.object({ status: z.enum(CAMPAIGN_STATUSES) });

/** Sends a draft to review, pauses a running campaign, or resumes one its advertiser paused (public.campaign_move). */
export function moveCampaign(db: Database, userId: string, id: string, move: CampaignMove): Promise<Result<{ status: CampaignStatus }>> {
  return call(asConsoleUser(db, userId), sql`select public.campaign_move(${id}::uuid, ${move}) as answer`, moved, moveRefusals(move));
}

export async function deleteDraft(db: Database, userId: string, id: string): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(sql`delete from public.campaigns where id = ${id}::uuid and status = 'draft' returning id`);
  return rows.length === 1 ? ok(undefined) : refused('Only a draft can be deleted.');
}

const NO_MEDIA: CreativeMedia = { image_url: null, video_url: null, width: null, height: null, duration_ms: null };

/** Whether the advertiser's campaign `campaignId` can take a new creative of `format` (theirs, buying it, not completed): asked before any file is stored. */
export async function campaignTakesCreative(db: Database, userId: string, campaignId: string, format: PlacementFormat): Promise<boolean> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select 1 as one from public.campaigns c where c.id = ${campaignId}::uuid and ${format} = any(c.formats) and c.status <> 'completed'`,
  );
  return rows.length === 1;
}

/** One of the advertiser's creatives, with its media, for an edit that changes some of them; null when it is not theirs. */
export async function creativeMedia(db: Database, userId: string, id: string): Promise<({ format: PlacementFormat } & CreativeMedia) | null> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`select format, image_url, video_url, width, height, duration_ms from public.creatives where id = ${id}::uuid`,
    creativeMediaRow.extend({ format }),
  );
  return row ?? null;
}

export async function addCreative(db: Database, userId: string, campaignId: string, input: CreativeInput, media = NO_MEDIA): Promise<Result<{ id: string }>> {
  let rows: { id: string }[];
  try {
    rows = await insertCreative(db, userId, campaignId, input, media);
  } catch (err) {
    const name = violatedConstraint(err);
    if (name && CREATIVE_REFUSALS[name]) return refused(CREATIVE_REFUSALS[name]);
    throw err;
  }
  return rows.length === 1 ? ok({ id: rows[0]!.id }) : refused('That campaign does not exist, is completed, or does not buy this format.');
}

function insertCreative(db: Database, userId: string, campaignId: string, input: CreativeInput, media: CreativeMedia): Promise<{ id: string }[]> {
  return asConsoleUser(db, userId).query(
    sql`insert into public.creatives (campaign_id, format, headline, body, cta, landing_url, image_url, video_url, width, height, duration_ms)
        select ${campaignId}::uuid, ${input.format}, ${input.headline}, ${input.body}, ${input.cta}, ${input.landing_url},
               ${media.image_url}, ${media.video_url}, ${media.width}, ${media.height}, ${media.duration_ms}
        where exists (select 1 from public.campaigns c where c.id = ${campaignId}::uuid and ${input.format} = any(c.formats) and c.status <> 'completed')
        returning id`,
    idRow,
  );
}

/** A creative's new words (its media stay unless new ones are given): it goes to review again. */
export async function updateCreative(db: Database, userId: string, id: string, input: CreativeInput, media?: CreativeMedia): Promise<Result> {
  const m = media ?? null;
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.creatives set headline = ${input.headline}, body = ${input.body}, cta = ${input.cta}, landing_url = ${input.landing_url},
          image_url = case when ${m !== null} then ${m?.image_url ?? null} else image_url end,
          video_url = case when ${m !== null} then ${m?.video_url ?? null} else video_url end,
          width = case when ${m !== null} then ${m?.width ?? null}::int else width end,
          height = case when ${m !== null} then ${m?.height ?? null}::int else height end,
          duration_ms = case when ${m !== null} then ${m?.duration_ms ?? null}::int else duration_ms end
        where id = ${id}::uuid and format = ${input.format} returning id`,
  );
  return rows.length === 1 ? ok(undefined) : refused('That creative does not exist, or its campaign is completed.');
}

export async function setCreativePaused(db: Database, userId: string, id: string, paused: boolean): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(
    sql`update public.creatives set status = ${paused ? 'paused' : 'active'} where id = ${id}::uuid and status = ${paused ? 'active' : 'paused'} returning id`,
  );
  return rows.length === 1 ? ok(undefined) : refused(paused ? 'Only an approved creative can be paused.' : 'Only a paused creative can be resumed.');
}

export async function deleteCreative(db: Database, userId: string, id: string): Promise<Result> {
  const rows = await asConsoleUser(db, userId).query(sql`delete from public.creatives where id = ${id}::uuid returning id`);
  return rows.length === 1 ? ok(undefined) : refused('Only a creative that has never been shown, in review or rejected, can be deleted.');
}
