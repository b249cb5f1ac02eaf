import { randomBytes } from 'node:crypto';
import { hashPassword } from '../identity/auth/password';
import { generateApiKey } from '../identity/keys/api-key';
import type { KeyEnvironment, KeyKind, PlacementFormat, PlacementStatus } from '../schemas/account';
import type { AdvertiserCategory } from '../schemas/advertising';
import { asService, type Database, type Statements } from '../platform/db/roles';
import { sql, type Sql } from '../platform/db/sql';
import { DEFAULT_PRICING } from '../money/pricing/defaults';
import { usdToMicro } from '../platform/kit/micro';
import { env } from '../platform/env';
import { DEMO_PAGE_KEY_SECRET, DEMO_SERVER_KEY_PURPOSE, DEMO_SERVER_KEY_SECRET } from './page';
import { mulberry32 } from '../platform/random';
import { dataEncryptionKey, serviceSecret } from '../platform/db/service-secrets';
import { seal } from '../platform/crypto';
import { manualDetails, sealDetails } from '../money/payouts/details';
import { z } from 'zod';
import { TOTP_SECRET_PURPOSE } from '../identity/auth/staff-totp';
import { subjectKeys, type SubjectKeys } from '../data/subjects';
import { seedConsentedData, seedDemoBuyer } from './data-market';

/**
 * Demo data: two publishers with different apps, placements, stats, payouts and keys, so
 * that every account surface has something believable to show and cross-tenant tests have
 * two tenants. Idempotent: a database that already has the demo user is left alone.
 */

export const DEMO_PASSWORD = 'demo-password';

/**
 * The demo accounts' password, hashed once per process: each hash costs about 40 ms of scrypt on
 * purpose, and the password is published (README), so one salt for all of them hides nothing.
 */
let demoHash: Promise<string> | undefined;
function demoPasswordHash(): Promise<string> {
  demoHash ??= hashPassword(DEMO_PASSWORD);
  return demoHash;
}

export const DEMO_EMAILS = ['demo@example.com', 'demo2@example.com'] as const;

interface PublisherSeed {
  email: string;
  name: string;
  company: string;
  role: string;
  memberSinceDaysAgo: number;
  seed: number;
  apps: {
    name: string;
    slug: string;
    description: string;
    category: string[];
    placements: { name: string; format: PlacementFormat; status: PlacementStatus; dailyImpressions: number }[];
    keys: { name: string; environment: KeyEnvironment; kind?: KeyKind; revoked?: boolean; demoPage?: boolean; demoServer?: boolean }[];
    /** The demo page's app (/demo): its origin is allowed, and its key is kept for the page. */
    demoPage?: boolean;
  }[];
  /**
   * Where the money goes (the manual rail), and what became of each closed month's payout
   * requests (seedMoneyHistory), by months ago from the latest closed month (0): the statuses its
   * requests ended in, in turn (a failed or canceled one is followed by another request); no
   * request at all for `[]`; a month not named was requested and paid.
   */
  payouts: { method: z.input<typeof manualDetails>; months: Record<number, ('paid' | 'pending' | 'processing' | 'failed' | 'canceled')[]> };
}

export const PUBLISHERS: PublisherSeed[] = [
  {
    email: 'demo@example.com',
    name: 'Dana Demo',
    company: 'Demo Labs',
    role: 'Founder',
    memberSinceDaysAgo: 460,
    seed: 1,
    apps: [
      {
        name: 'StoryForge AI',
        slug: 'storyforge-ai',
        description: 'An AI writing assistant for fiction authors.',
        category: ['writing', 'productivity'],
        placements: [
          { name: 'Editor sidebar video', format: 'floating_video', status: 'active', dailyImpressions: 1800 },
          { name: 'Prompt tips', format: 'tooltip', status: 'active', dailyImpressions: 4200 },
          { name: 'Dashboard sponsor card', format: 'sponsored_card', status: 'active', dailyImpressions: 2600 },
          { name: 'Chat inline mention', format: 'inline_text', status: 'paused', dailyImpressions: 900 },
        ],
        keys: [
          { name: 'StoryForge production', environment: 'production' },
          { name: 'StoryForge development', environment: 'development' },
        ],
      },
      {
        name: 'Quizly',
        slug: 'quizly',
        description: 'Quizzes generated from any document, for teachers and students.',
        category: ['education'],
        placements: [
          { name: 'Results sponsor card', format: 'sponsored_card', status: 'active', dailyImpressions: 1500 },
          { name: 'Hint tooltip', format: 'tooltip', status: 'paused', dailyImpressions: 700 },
          { name: 'Lesson intro video', format: 'floating_video', status: 'active', dailyImpressions: 650 },
          { name: 'Answer footnote', format: 'inline_text', status: 'active', dailyImpressions: 3100 },
          { name: 'Suggested follow-up', format: 'sponsored_follow_up', status: 'active', dailyImpressions: 2400 },
        ],
        keys: [
          { name: 'Quizly production (retired)', environment: 'production', revoked: true },
          { name: 'Quizly demo page', environment: 'development', demoPage: true },
          { name: 'Quizly demo server', environment: 'development', kind: 'server', demoServer: true },
        ],
        demoPage: true,
      },
    ],
    // The month before the latest failed (the bank returned it) and was sent again; the latest is final, not requested yet.
    payouts: { method: { account_holder: 'Demo Labs Ltd', account: 'GB29NWBK60161331926819' }, months: { 0: [], 1: ['failed', 'paid'] } },
  },
  {
    email: 'demo2@example.com',
    name: 'Sam Second',
    company: 'Second Studio',
    role: 'Product manager',
    memberSinceDaysAgo: 120,
    seed: 2,
    apps: [
      {
        name: 'RecipeBot',
        slug: 'recipebot',
        description: 'A cooking assistant that plans meals from what is in the fridge.',
        category: ['lifestyle', 'food'],
        placements: [
          { name: 'Recipe card sponsor', format: 'sponsored_card', status: 'active', dailyImpressions: 950 },
          { name: 'Ingredient tooltip', format: 'tooltip', status: 'active', dailyImpressions: 1200 },
          { name: 'Old banner video', format: 'floating_video', status: 'archived', dailyImpressions: 0 },
        ],
        keys: [
          { name: 'RecipeBot production', environment: 'production' },
          { name: 'RecipeBot staging', environment: 'development' },
        ],
      },
    ],
    // A request canceled and made again, being sent; the latest waiting for the operator.
    payouts: {
      method: { account_holder: 'Second Studio LLC', account: '000123456789', routing: '110000000' },
      months: { 0: ['pending'], 1: ['canceled', 'processing'] },
    },
  },
];

const STATS_DAYS = 90;
const CTR: Record<PlacementFormat, number> = { floating_video: 0.009, tooltip: 0.014, sponsored_card: 0.021, inline_text: 0.011, sponsored_follow_up: 0.032 };
const CPM_KEY: Record<PlacementFormat, keyof typeof DEFAULT_PRICING.advertiser_cpm_usd> = {
  floating_video: 'floating_video',
  tooltip: 'tooltip',
  sponsored_card: 'sponsored_card',
  inline_text: 'inline_text',
  sponsored_follow_up: 'sponsored_follow_up',
};

/** A deterministic generator, so the demo looks the same on every machine. */
const random = mulberry32;

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The row of an insert's `returning id` (a uuid, as text). */
const returnedId = z.object({ id: z.string() });

/** The tables the seed fills from JSON rows, named in SQL. */
const TABLES = { daily_stats: sql`public.daily_stats` } satisfies Record<string, Sql>;

async function insertJson(tx: Statements, table: keyof typeof TABLES, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(sql`insert into ${TABLES[table]} select * from json_populate_recordset(null::${TABLES[table]}, ${JSON.stringify(rows)}::json)`);
}

/** A day's unfilled requests of a demo placement, split by reason (`No-Fill-Reason`): whole numbers that add up. */
function unfilledByReason(unfilled: number) {
  const sensitive = Math.floor(unfilled * 0.25);
  const blocked = Math.floor(unfilled * 0.05);
  const noEligible = Math.floor(unfilled * 0.2);
  return {
    unfilled_sensitive: sensitive,
    unfilled_below_relevance: unfilled - sensitive - blocked - noEligible,
    unfilled_blocked: blocked,
    unfilled_no_eligible_campaign: noEligible,
    unfilled_placement_inactive: 0,
  };
}

/** The service's own origin, and on a developer's machine the same port on 127.0.0.1 too. */
function serviceOrigins(): string[] {
  const url = new URL(env().PUBLIC_BASE_URL);
  if (url.hostname !== 'localhost') return [url.origin];
  return [url.origin, `${url.protocol}//127.0.0.1${url.port ? `:${url.port}` : ''}`];
}

async function seedPublisher(tx: Statements, p: PublisherSeed, now: Date, keys: SubjectKeys, encryptionKey: Buffer): Promise<string> {
  const rand = random(p.seed);
  const memberSince = new Date(now.getTime() - p.memberSinceDaysAgo * 86400_000);
  const [user] = await tx.query(
    sql`insert into public.users (email, name, company, role, created_at) values (${p.email}, ${p.name}, ${p.company}, ${p.role}, ${memberSince}) returning id`,
    returnedId,
  );
  const userId = user!.id;
  await tx.query(sql`insert into public.user_credentials (user_id, password_hash) values (${userId}, ${await demoPasswordHash()})`);

  for (const [appIndex, app] of p.apps.entries()) {
    const appCreated = new Date(memberSince.getTime() + (appIndex * 30 + 2) * 86400_000);
    const [appRow] = await tx.query(
      sql`insert into public.apps (user_id, name, slug, description, category, created_at)
          values (${userId}, ${app.name}, ${app.slug}, ${app.description}, ${app.category}::text[], ${appCreated}) returning id`,
      returnedId,
    );
    const appId = appRow!.id;
    // People of the app who agreed to sell their data, and what they shared (UX sessions too in an app's first of each publisher).
    await seedConsentedData(tx, { appId, userId, category: app.category, sessions: appIndex === 0 }, keys, p.seed * 100 + appIndex);
    // The demo page is served by this service: its pages' origin may use the app's keys.
    if (app.demoPage) await tx.query(sql`update public.apps set allowed_origins = ${serviceOrigins()}::text[] where id = ${appId}`);

    const active: string[] = [];
    for (const [i, pl] of app.placements.entries()) {
      const [placement] = await tx.query(
        sql`insert into public.placements (app_id, user_id, name, format, status, created_at)
            values (${appId}, ${userId}, ${pl.name}, ${pl.format}, ${pl.status}, ${new Date(appCreated.getTime() + i * 86400_000)}) returning id`,
        returnedId,
      );
      const placementId = placement!.id;
      if (pl.status === 'active') active.push(placementId);
      const advertiserCpm = DEFAULT_PRICING.advertiser_cpm_usd[CPM_KEY[pl.format]];
      const cpm = advertiserCpm * DEFAULT_PRICING.publisher_ad_revenue_share;
      const stats = [];
      for (let day = STATS_DAYS; day >= 1; day--) {
        // Paused placements stopped serving three weeks ago; weekends are quieter.
        const date = new Date(now.getTime() - day * 86400_000);
        if (pl.status !== 'active' && day < 21) continue;
        const weekend = [0, 6].includes(date.getUTCDay()) ? 0.7 : 1;
        const impressions = Math.round(pl.dailyImpressions * weekend * (0.8 + rand() * 0.4));
        if (impressions === 0) continue;
        const clicks = Math.round(impressions * CTR[pl.format] * (0.7 + rand() * 0.6));
        // The money rule of recorded impressions: the format's CPM / 1000 times the publisher's
        // share, each. (The draw that used to vary it is still made, so the other figures stay.)
        rand();
        const revenue = usdToMicro((impressions / 1000) * cpm);
        // Between 88% and 97% of the ad requests filled, and most fills became viewable impressions.
        const adRequests = Math.ceil(impressions / (0.88 + (impressions % 10) / 100));
        const fills = impressions + Math.floor((adRequests - impressions) / 2);
        stats.push({
          placement_id: placementId,
          user_id: userId,
          day: isoDay(date),
          impressions,
          clicks,
          revenue_micro: revenue,
          // What the ads cost their advertisers: the format's CPM / 1000 each.
          cost_micro: usdToMicro((impressions / 1000) * advertiserCpm),
          ad_requests: adRequests,
          fills,
          // Invalid traffic (content/docs/sdk-integration.md, Counting rules): about 2% of impressions.
          invalid_events: Math.floor(impressions * 0.02) + (impressions % 7),
          // "Hide this ad": about one impression in a thousand.
          hides: Math.floor(impressions / 1000),
          // The demo's campaigns pay per 1,000 impressions: no click earned anything of its own.
          click_revenue_micro: 0,
          // Not in the ledger yet: the history is posted below, per app and day, out of `ad_sales`
          // (public.ledger_post_ad_revenue), as days counted before advertiser accounts are.
          posted_micro: 0,
          posted_cost_micro: 0,
          // Why the rest filled nothing: mostly conversations no campaign fitted, then sensitive ones.
          ...unfilledByReason(adRequests - fills),
        });
      }
      await insertJson(tx, 'daily_stats', stats);
      // The placement's counters are the sum of its daily stats, so every view agrees.
      await tx.query(
        sql`update public.placements p set impressions = s.i, clicks = s.c, revenue_micro = s.r, ad_requests = s.q, fills = s.f, invalid_events = s.v
            from (select coalesce(sum(impressions), 0) i, coalesce(sum(clicks), 0) c, coalesce(sum(revenue_micro), 0) r,
                         coalesce(sum(ad_requests), 0) q, coalesce(sum(fills), 0) f, coalesce(sum(invalid_events), 0) v
                  from public.daily_stats where placement_id = ${placementId}) s
            where p.id = ${placementId}`,
      );
    }

    await seedTodaysTraffic(tx, userId, appId, active);

    for (const [i, k] of app.keys.entries()) {
      // Demo keys are random like real ones; nobody learns them, which is the point of hashing.
      const key = generateApiKey(k.environment, k.kind);
      const created = new Date(appCreated.getTime() + (i + 1) * 86400_000);
      await tx.query(
        sql`insert into public.api_keys (app_id, user_id, name, kind, environment, status, key_prefix, key_last4, key_hash, created_at, last_used_at, revoked_at)
            values (${appId}, ${userId}, ${k.name}, ${k.kind ?? 'publishable'}, ${k.environment}, ${k.revoked ? 'revoked' : 'active'}, ${key.prefix}, ${key.last4}, ${key.hash}, ${created},
                    ${k.revoked ? new Date(now.getTime() - 40 * 86400_000) : new Date(now.getTime() - 3600_000)},
                    ${k.revoked ? new Date(now.getTime() - 30 * 86400_000) : null})`,
      );
      // The demo page shows its key in its source, as any web page using the SDK does: a
      // publishable key. The page reads it from here (lib/demo/page.ts).
      if (k.demoPage) {
        await tx.query(
          sql`insert into public.service_secrets (name, value) values (${DEMO_PAGE_KEY_SECRET}, ${key.key}) on conflict (name) do update set value = excluded.value`,
        );
      }
      // The demo chat's server asks for ads with a server key (lib/demo/chat.ts): a secret, sealed.
      if (k.demoServer) {
        const sealed = seal(encryptionKey, key.key, DEMO_SERVER_KEY_PURPOSE);
        await tx.query(
          sql`insert into public.service_secrets (name, value) values (${DEMO_SERVER_KEY_SECRET}, ${sealed}) on conflict (name) do update set value = excluded.value`,
        );
      }
    }
  }

  // A client each publisher approved a while ago, listed under connected apps in the console.
  await tx.query(
    sql`insert into public.oauth_consents (user_id, client_id, client_name, scopes, approved_at)
        values (${userId}, 'https://reports.example/client.json', 'Reports Example (demo)', '{profile:read,earnings:read}', ${new Date(now.getTime() - 12 * 86400_000)})`,
  );

  const method = sealDetails(encryptionKey, manualDetails.parse(p.payouts.method));
  await tx.query(
    sql`insert into public.payout_methods (user_id, rail, details_ciphertext, masked, ready, updated_at)
        values (${userId}, 'manual', ${method.ciphertext}, ${method.masked}, true, ${memberSince})`,
  );
  return userId;
}

/** The operator (the staff role, /ops): signed in with DEMO_PASSWORD and a TOTP code of DEMO_OPERATOR_TOTP_SECRET. */
export const DEMO_OPERATOR_EMAIL = 'operator@example.com';
/** The operator's TOTP secret (RFC 6238, base32, SHA-1, 6 digits, 30 s): for any authenticator app; README, Demo accounts. */
export const DEMO_OPERATOR_TOTP_SECRET = 'MONETIZEDEMOOPERATORSECRETTOTP23';

async function seedOperator(tx: Statements, now: Date, encryptionKey: Buffer): Promise<string> {
  const [user] = await tx.query(
    sql`insert into public.users (email, name, company, role, created_at)
        values (${DEMO_OPERATOR_EMAIL}, 'Olive Operator', 'Monetize (operator)', 'Operations', ${new Date(now.getTime() - 500 * 86400_000)}) returning id`,
    returnedId,
  );
  await tx.query(sql`insert into public.user_credentials (user_id, password_hash) values (${user!.id}, ${await demoPasswordHash()})`);
  await tx.query(
    sql`insert into public.staff_members (user_id, totp_secret_ciphertext)
        values (${user!.id}, ${seal(encryptionKey, DEMO_OPERATOR_TOTP_SECRET, TOTP_SECRET_PURPOSE)})`,
  );
  return user!.id;
}

const HOUR = 3600_000;

/**
 * The demo publishers' money, by the rules that make a real publisher's (content/docs/payouts.md):
 * every past day of their stats posted to the ledger; then, month by month, the month closed on
 * its final day (public.ledger_close_months) and each publisher's payout requested the next
 * day (public.payout_request: refused, and so carried to the next month, while under the
 * minimum), and moved on by the operator (public.payout_transition) as the publisher's `payouts`
 * says. Each step a day after the one before, in the past, never after `now`.
 */
async function seedMoneyHistory(tx: Statements, now: Date, publishers: { id: string; seed: PublisherSeed }[], operator: string): Promise<void> {
  await tx.query(sql`select public.ledger_post_ad_revenue(100000, ${now})`);
  const [first] = await tx.query(
    sql`select to_char(min(t.occurred_at at time zone 'UTC'), 'YYYY-MM-01') as month from public.ledger_transactions t where t.kind = 'ad_revenue'`,
    // Null while the ledger has no ad revenue.
    z.object({ month: z.string().nullable() }),
  );
  if (!first?.month) return;
  const months: { month: string; finalAt: Date }[] = [];
  for (let m = new Date(`${first.month}T00:00:00Z`); ; m = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1))) {
    const finalAt = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 5));
    if (finalAt > now) break;
    months.push({ month: m.toISOString().slice(0, 7), finalAt });
  }
  // Never after now (the latest month's steps may fall in the last hours), never before the close.
  const at = (t: number, close: Date) => new Date(Math.max(close.getTime(), Math.min(t, now.getTime() - HOUR)));
  // public.payout_request's answer: the payout made, or (with its `reason`) none, under the minimum.
  const payoutRequested = z.object({ answer: z.object({ ok: z.boolean(), payout_id: z.string().optional() }) });
  const transition = (payout: string, status: string, when: Date, reference: string | null, reason: string | null) =>
    tx.query(sql`select public.payout_transition(${payout}::uuid, ${status}, ${reference}, ${reason}, ${operator}::uuid, ${when})`);
  const request = async (user: string, when: Date): Promise<string | undefined> => {
    const [row] = await tx.query(sql`select public.payout_request(${user}::uuid, ${when}) as answer`, payoutRequested);
    return row!.answer.ok ? row!.answer.payout_id : undefined;
  };

  for (const [index, { month, finalAt }] of months.entries()) {
    const monthsAgo = months.length - 1 - index;
    await tx.query(sql`select public.ledger_close_months(${finalAt}, ${operator}::uuid)`);
    for (const { id, seed: p } of publishers) {
      // Each step a day after the one before, from the day after the close.
      let day = 1;
      const next = () => at(finalAt.getTime() + (day++ * 24 + 9) * HOUR, finalAt);
      for (const [n, status] of (p.payouts.months[monthsAgo] ?? ['paid']).entries()) {
        const payout = await request(id, next());
        // Under the minimum: the month waits for the next.
        if (!payout) break;
        const reference = `DEMO-${month.replace('-', '')}-${p.seed}-${n + 1}`;
        if (status === 'processing' || status === 'failed') await transition(payout, 'processing', next(), null, null);
        if (status === 'failed')
          await transition(payout, 'failed', next(), null, 'The bank returned the transfer: the account number does not match the holder.');
        if (status === 'canceled') await transition(payout, 'canceled', next(), null, null);
        if (status === 'paid') await transition(payout, 'paid', next(), reference, null);
      }
    }
  }
}

export async function seedPricing(tx: Statements): Promise<void> {
  const d = DEFAULT_PRICING;
  await tx.query(
    sql`insert into public.pricing_settings (
       publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
       cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro, cpm_sponsored_follow_up_micro,
       price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
       exclusive_license_multiplier, min_payout_micro)
     values (${d.publisher_ad_revenue_share}, ${d.platform_ad_fee}, ${d.publisher_data_revenue_share},
             ${usdToMicro(d.advertiser_cpm_usd.floating_video)}, ${usdToMicro(d.advertiser_cpm_usd.tooltip)},
             ${usdToMicro(d.advertiser_cpm_usd.sponsored_card)}, ${usdToMicro(d.advertiser_cpm_usd.inline_text)},
             ${usdToMicro(d.advertiser_cpm_usd.sponsored_follow_up)},
             ${usdToMicro(d.dataset_prices_usd.per_ai_interaction_row)}, ${usdToMicro(d.dataset_prices_usd.per_ux_session_recording)},
             ${usdToMicro(d.dataset_prices_usd.per_gb_bundle)}, ${d.exclusive_license_multiplier}, ${usdToMicro(d.min_payout_usd)})
     on conflict (id) do nothing`,
  );
}

/**
 * Today's first ad traffic of an app, recorded the way the SDK surface records it: as the app's
 * SDK role, through the same database functions (three ad requests per active placement, two
 * viewable impressions, one click, one impression too brief to count). `seed` rolls it up at the
 * end, so the demo shows the raw rows and the totals agreeing by the same rules as live traffic.
 */
async function seedTodaysTraffic(tx: Statements, userId: string, appId: string, placements: string[]): Promise<void> {
  if (placements.length === 0) return;
  // As the app's SDK role, within the seed's transaction (lib/identity/keys/access.ts names the same claims).
  await tx.query(
    sql`select set_config('request.jwt.claims', ${JSON.stringify({ role: 'sdk', app_id: appId, user_id: userId })}, true), set_config('role', 'sdk', true)`,
  );
  const served: string[][] = [];
  for (const placementId of placements) {
    const decisions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [row] = await tx.query(
        sql`select decision_id, creative_id from public.sdk_serve_ad(${placementId}::uuid, null, '{}', null, 'seed-client', 'seed-network',
                                                                      ${env().SDK_NETWORK_FREQUENCY_FACTOR}::integer)`,
        // No creative when no campaign may serve the placement.
        z.object({ decision_id: z.string(), creative_id: z.string().nullable() }),
      );
      if (row?.creative_id) decisions.push(row.decision_id);
    }
    served.push(decisions);
  }
  // Served a few seconds ago: no impression is billable sooner than its viewability rule's
  // seconds after its ad, on the server's clock, and this is all one transaction.
  await tx.query(sql`select set_config('role', 'service_role', true)`);
  await tx.query(sql`update public.ad_decisions set created_at = created_at - interval '5 seconds' where id = any(${served.flat()}::uuid[]) returning 1`);
  await tx.query(sql`select set_config('role', 'sdk', true)`);
  for (const decisions of served) {
    const viewable = { visible_share: 1, visible_seconds: 2.5 };
    const events = [
      ...decisions.slice(0, 2).map((d, n) => ({ n, id: `seed-impression-${d}`, kind: 'impression', decision_id: d, ...viewable })),
      ...decisions.slice(0, 1).map((d) => ({ n: 2, id: `seed-click-${d}`, kind: 'click', decision_id: d })),
      // Scrolled past in under a second: recorded as invalid traffic, never billed.
      ...decisions.slice(2, 3).map((d) => ({ n: 3, id: `seed-glimpse-${d}`, kind: 'impression', decision_id: d, visible_share: 0.8, visible_seconds: 0.4 })),
    ];
    await tx.query(sql`select * from public.sdk_record_events(${JSON.stringify(events)}::jsonb, 'seed-address', 'seed-client', false, 1000, 1000000)`);
  }
  await tx.query(sql`select set_config('role', 'service_role', true)`);
}

type Creative = { format: PlacementFormat; headline: string; body: string; cta: string; image?: string; video?: string };

/**
 * Demo advertisers, so a fresh install serves ads: three advertiser accounts, each with a funded
 * balance and a running campaign with a creative in each of the five formats. They pay the pricing
 * table's CPM for each format, as every campaign does. Landing pages are on `.example` domains
 * (RFC 2606), media are files of this service (the videos: 4-second loops, muted, made with ffmpeg
 * from a colour, a moving bar and the name). Fernway's account is the demo advertiser people sign
 * in as (README, Demo accounts); it also has a campaign in every other status.
 */
/**
 * The demo advertisers. Their context hints and excluded phrases are those of the same three
 * campaigns in the labelled set the relevance check is measured on (lib/ads/relevance/labelled).
 */
export const DEMO_ADVERTISERS: {
  advertiser: string;
  email: string;
  name: string;
  keywords: string[];
  hints: string[];
  excluded: string[];
  category: AdvertiserCategory;
  landing: string;
  creatives: Creative[];
}[] = [
  {
    advertiser: 'Lumen Notes',
    email: 'ads@lumen-notes.example',
    name: 'Lumen Notes launch',
    keywords: ['writing', 'notes', 'productivity'],
    hints: [
      'notes',
      'note taking',
      'take notes',
      'meeting notes',
      'notes app',
      'second brain',
      'capture ideas',
      'before i forget',
      'knowledge base',
      'personal wiki',
      'zettelkasten',
      'linking ideas',
      'organise my notes',
      'organize my notes',
      'keep track of ideas',
      'notebook',
      'journal',
      'obsidian',
      'notion',
      'evernote',
    ],
    excluded: ['chord', 'piano', 'guitar', 'sheet music', 'musical notes', 'sticky notes', 'perfume', 'half note', 'quarter note'],
    category: 'software',
    landing: 'https://lumen-notes.example/start',
    creatives: [
      {
        format: 'floating_video',
        headline: 'Notes that write themselves',
        body: 'See Lumen turn a meeting into a summary in 20 seconds.',
        cta: 'Watch the demo',
        image: '/ads/lumen-notes.svg',
        video: '/ads/lumen-notes.webm',
      },
      { format: 'tooltip', headline: 'Lumen Notes', body: 'Capture this idea in one click.', cta: 'Try free', image: '/ads/lumen-notes.svg' },
      {
        format: 'sponsored_card',
        headline: 'Your second brain, organised',
        body: 'Lumen links every note you take to the ones that matter.',
        cta: 'Start free',
        image: '/ads/lumen-notes.svg',
      },
      { format: 'inline_text', headline: 'Lumen Notes keeps every draft in one place', body: '', cta: 'Try it free', image: '/ads/lumen-notes.svg' },
      { format: 'sponsored_follow_up', headline: 'How can I turn my notes into a revision plan?', body: '', cta: 'ask' },
    ],
  },
  {
    advertiser: 'Parcel Cloud',
    email: 'ads@parcel-cloud.example',
    name: 'Parcel Cloud developers',
    keywords: ['code', 'hosting', 'developer', 'api'],
    hints: [
      'deploy',
      'deploy my app',
      'host my app',
      'host my website',
      'web hosting',
      'hosting',
      'get it online',
      'make it live',
      'put it online',
      'production server',
      'run the container',
      'docker',
      'kubernetes',
      'vps',
      'heroku',
      'vercel',
      'netlify',
      'custom domain',
      'scale my app',
      'serverless',
    ],
    excluded: ['olympics', 'airbag', 'host country', 'parasite', 'podcast host', 'dinner party'],
    category: 'software',
    landing: 'https://parcel-cloud.example/developers',
    creatives: [
      {
        format: 'floating_video',
        headline: 'Deploy in one command',
        body: 'Push your app and get a URL, TLS included.',
        cta: 'See how',
        image: '/ads/parcel-cloud.svg',
        video: '/ads/parcel-cloud.webm',
      },
      { format: 'tooltip', headline: 'Parcel Cloud', body: 'Host this project free for 30 days.', cta: 'Deploy', image: '/ads/parcel-cloud.svg' },
      {
        format: 'sponsored_card',
        headline: 'Hosting that scales with you',
        body: 'Serverless functions, a database and a CDN in one plan.',
        cta: 'Get started',
        image: '/ads/parcel-cloud.svg',
      },
      { format: 'inline_text', headline: 'Parcel Cloud hosts it with one command', body: '', cta: 'Deploy free', image: '/ads/parcel-cloud.svg' },
      { format: 'sponsored_follow_up', headline: 'Where can I host this app for free?', body: '', cta: 'visit' },
    ],
  },
  {
    advertiser: 'Fernway Courses',
    email: 'advertiser@example.com',
    name: 'Fernway autumn term',
    keywords: ['learning', 'education', 'quiz', 'course'],
    hints: [
      'online course',
      'course',
      'courses',
      'lessons',
      'short daily lessons',
      'bite sized',
      'learn a new skill',
      'want to learn',
      'learn the basics',
      'upskill',
      'career change',
      'get better at',
      'improve my skills',
      'structured way',
      'study plan',
      'self taught',
      'bootcamp',
      'certificate',
      'learn to draw',
      'public speaking',
    ],
    excluded: ['golf course', 'of course', 'main course', 'course of antibiotics', 'par for the course'],
    category: 'education',
    landing: 'https://fernway.example/courses',
    creatives: [
      {
        format: 'floating_video',
        headline: 'Learn anything in 10 minutes a day',
        body: 'Short lessons from people who do the work.',
        cta: 'Watch a lesson',
        image: '/ads/fernway.svg',
        video: '/ads/fernway.webm',
      },
      { format: 'tooltip', headline: 'Fernway Courses', body: 'A 10-minute lesson on this topic.', cta: 'Learn', image: '/ads/fernway.svg' },
      {
        format: 'sponsored_card',
        headline: 'Courses that fit your day',
        body: 'Over 400 short courses, with a certificate at the end.',
        cta: 'Browse courses',
        image: '/ads/fernway.svg',
      },
      { format: 'inline_text', headline: 'Fernway has a 10-minute course on this', body: '', cta: 'Start learning', image: '/ads/fernway.svg' },
      { format: 'sponsored_follow_up', headline: 'Is there a short course that teaches this?', body: '', cta: 'ask' },
    ],
  },
];

/** The demo advertiser people sign in as (README, Demo accounts). */
export const DEMO_ADVERTISER_EMAIL = 'advertiser@example.com';
/** What each demo advertiser's balance starts with: one paid manual top-up. */
export const DEMO_ADVERTISER_FUNDS_USD = 10_000;
/** Each demo advertiser's running campaign: $3,000 in all, at most $100 a day. */
export const DEMO_CAMPAIGN_BUDGET_USD = { lifetime: 3_000, daily: 100 } as const;

/** The demo advertiser's other campaigns, one in each status its running one is not in. */
const OTHER_CAMPAIGNS: { name: string; status: string; startsInDays: number; endsInDays?: number }[] = [
  { name: 'Spring term (draft)', status: 'draft', startsInDays: 60 },
  { name: 'Exam season (in review)', status: 'in_review', startsInDays: 14 },
  { name: 'Winter break (scheduled)', status: 'scheduled', startsInDays: 7, endsInDays: 37 },
  { name: 'Language week (paused)', status: 'paused', startsInDays: -10 },
  { name: 'Summer school (completed)', status: 'completed', startsInDays: -120, endsInDays: -60 },
  { name: 'Crypto courses (rejected)', status: 'rejected', startsInDays: 3 },
];

/**
 * The demo advertisers, made once each (by email): the account, its profile, a paid top-up of
 * DEMO_ADVERTISER_FUNDS_USD, and its running campaign. A database from before advertisers had
 * accounts has the campaigns already: they are adopted (given to the account, with a budget)
 * rather than made again. Returns whether it made anything.
 */
export async function seedAdvertisers(tx: Statements): Promise<boolean> {
  let made = false;
  for (const a of DEMO_ADVERTISERS) {
    const existing = await tx.query(sql`select 1 from public.users where email = ${a.email}`);
    if (existing.length > 0) continue;
    made = true;
    const [user] = await tx.query(
      sql`insert into public.users (email, name, company, role, created_at)
          values (${a.email}, ${`${a.advertiser} ads`}, ${a.advertiser}, 'Marketing', now() - interval '200 days') returning id`,
      returnedId,
    );
    const userId = user!.id;
    await tx.query(sql`insert into public.user_credentials (user_id, password_hash) values (${userId}, ${await demoPasswordHash()})`);
    await tx.query(
      sql`insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country, time_zone)
          values (${userId}, ${a.advertiser}, ${`${a.advertiser} Ltd.`}, ${a.email}, '1 Example Street, Springfield', 'US', 'America/New_York')`,
    );
    const [topUp] = await tx.query(
      sql`insert into public.top_ups (user_id, amount_micro, rail, invoice_number, requested_at)
          values (${userId}, ${usdToMicro(DEMO_ADVERTISER_FUNDS_USD)}, 'manual', ${`INV-DEMO-${a.advertiser.split(' ')[0]!.toUpperCase()}`}, now() - interval '30 days')
          returning id`,
      returnedId,
    );
    await tx.query(sql`select public.top_up_credit(${topUp!.id}::uuid, 'Demo seed: bank transfer received', null)`);
    // Budgets of the size a small software company runs (DEMO_CAMPAIGN_BUDGET_USD): a new advertiser's
    // campaign competes with them as it would in the market, not against budgets that drown it.
    const adopted = await tx.query(
      sql`update public.campaigns set advertiser_id = ${userId}, lifetime_budget_micro = ${usdToMicro(DEMO_CAMPAIGN_BUDGET_USD.lifetime)},
            daily_cap_micro = ${usdToMicro(DEMO_CAMPAIGN_BUDGET_USD.daily)},
            formats = '{floating_video,tooltip,sponsored_card,inline_text,sponsored_follow_up}'
          where advertiser = ${a.advertiser} and advertiser_id is null returning id`,
    );
    if (adopted.length === 0) {
      const [campaign] = await tx.query(
        sql`insert into public.campaigns (advertiser_id, advertiser, name, status, lifetime_budget_micro, daily_cap_micro, daily_budget_micro, frequency_cap,
                                          keywords, formats, starts_at, context_hints, excluded_phrases, advertiser_category)
            values (${userId}, ${a.advertiser}, ${a.name}, 'active', ${usdToMicro(DEMO_CAMPAIGN_BUDGET_USD.lifetime)}, ${usdToMicro(DEMO_CAMPAIGN_BUDGET_USD.daily)},
                    ${usdToMicro(DEMO_CAMPAIGN_BUDGET_USD.daily)}, 10, ${a.keywords}::text[],
                    '{floating_video,tooltip,sponsored_card,inline_text,sponsored_follow_up}', now() - interval '1 day', ${a.hints}::text[], ${a.excluded}::text[], ${a.category})
            returning id`,
        returnedId,
      );
      for (const c of a.creatives) {
        await tx.query(
          sql`insert into public.creatives (campaign_id, format, status, headline, body, cta, image_url, video_url, landing_url)
              values (${campaign!.id}, ${c.format}, 'active', ${c.headline}, ${c.body}, ${c.cta}, ${c.image ?? null}, ${c.video ?? null}, ${a.landing})`,
        );
      }
    }
    if (a.email === DEMO_ADVERTISER_EMAIL) await seedOtherCampaigns(tx, userId, a);
  }
  return made;
}

async function seedOtherCampaigns(tx: Statements, userId: string, a: (typeof DEMO_ADVERTISERS)[number]): Promise<void> {
  for (const [n, other] of OTHER_CAMPAIGNS.entries()) {
    const starts = sql`now() + make_interval(days => ${other.startsInDays}::int)`;
    const ends = other.endsInDays === undefined ? sql`null` : sql`now() + make_interval(days => ${other.endsInDays}::int)`;
    const [campaign] = await tx.query(
      sql`insert into public.campaigns (advertiser_id, advertiser, name, status, pause_reason, rejection_reason, lifetime_budget_micro, daily_cap_micro,
                                        daily_budget_micro, frequency_cap, keywords, formats, starts_at, ends_at, hard_stop, completed_at)
          values (${userId}, ${a.advertiser}, ${other.name}, ${other.status},
                  ${other.status === 'paused' ? 'advertiser' : null},
                  ${other.status === 'rejected' ? 'Ads for financial products need a licence we can check; this campaign names none.' : null},
                  ${usdToMicro(500)}, ${usdToMicro(50)}, ${usdToMicro(50)}, 5, ${a.keywords}::text[], '{inline_text,sponsored_card}', ${starts}, ${ends}, ${other.endsInDays !== undefined},
                  ${other.status === 'completed' ? sql`now() - interval '60 days'` : sql`null`})
          returning id`,
      returnedId,
    );
    // Each with an inline line and a card; in review, rejected or approved as its campaign is.
    const status = other.status === 'in_review' || other.status === 'draft' ? 'in_review' : other.status === 'rejected' ? 'rejected' : 'active';
    for (const c of a.creatives.filter((x) => x.format === 'inline_text' || x.format === 'sponsored_card')) {
      await tx.query(
        sql`insert into public.creatives (campaign_id, format, status, rejection_reason, headline, body, cta, image_url, video_url, landing_url)
            values (${campaign!.id}, ${c.format}, ${status}, ${status === 'rejected' ? 'The landing page must match the ad: it names no crypto course.' : null},
                    ${`${c.headline} (${n + 2})`.slice(0, 90)}, ${c.body}, ${c.cta}, ${c.image}, ${c.video ?? null}, ${a.landing})`,
      );
    }
  }
}

/** Returns true when it seeded, false when the demo data was already there. */
export async function seed(db: Database, now = new Date()): Promise<boolean> {
  // The key subject ids are kept under, as the service derives it (lib/services.ts, sdkSecret).
  const keys = subjectKeys(Buffer.from(await serviceSecret('sdk_token_key', () => randomBytes(32).toString('base64url'), db), 'base64url'));
  const encryptionKey = await dataEncryptionKey(db);
  return asService(db).transaction(async (tx) => {
    await seedPricing(tx);
    await seedAdvertisers(tx);
    const existing = await tx.query(sql`select 1 from public.users where email = ${PUBLISHERS[0]!.email}`);
    if (existing.length > 0) return false;
    const publishers = [];
    for (const p of PUBLISHERS) publishers.push({ id: await seedPublisher(tx, p, now, keys, encryptionKey), seed: p });
    await seedMoneyHistory(tx, now, publishers, await seedOperator(tx, now, encryptionKey));
    await seedDemoBuyer(tx, DEMO_PASSWORD);
    // Today's demo traffic counted at once, so the first figures anyone reads already agree
    // with the raw rows (and no roll-up moves them a few seconds later).
    await tx.query(sql`select * from public.roll_up_ad_traffic()`);
    return true;
  });
}
