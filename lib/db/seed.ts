import { hashPassword } from '../auth/password';
import { generateApiKey } from '../sdk/api-key';
import type { KeyEnvironment, PayoutStatus, PlacementFormat, PlacementStatus } from '../schemas/account';
import type { Engine, Transaction } from './engine';
import { DEFAULT_PRICING } from '../pricing/defaults';

/**
 * Demo data: two publishers with different apps, placements, stats, payouts and keys, so
 * that every account surface has something believable to show and cross-tenant tests have
 * two tenants. Idempotent: a database that already has the demo user is left alone.
 */

export const DEMO_PASSWORD = 'demo-password';
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
    keys: { name: string; environment: KeyEnvironment; revoked?: boolean }[];
  }[];
  payouts: { months: number; unusual: Partial<Record<number, PayoutStatus>> };
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
        ],
        keys: [{ name: 'Quizly production (retired)', environment: 'production', revoked: true }],
      },
    ],
    // Fourteen months: the oldest ones paid, one failed, the latest in flight.
    payouts: { months: 14, unusual: { 0: 'pending', 1: 'processing', 6: 'failed' } },
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
    payouts: { months: 4, unusual: { 0: 'pending' } },
  },
];

const STATS_DAYS = 90;
const CTR: Record<PlacementFormat, number> = { floating_video: 0.009, tooltip: 0.014, sponsored_card: 0.021, inline_text: 0.011 };
const CPM_KEY: Record<PlacementFormat, keyof typeof DEFAULT_PRICING.advertiser_cpm_usd> = {
  floating_video: 'floating_video',
  tooltip: 'tooltip',
  sponsored_card: 'sponsored_card',
  inline_text: 'inline_text',
};

/** A small deterministic generator (mulberry32), so the demo looks the same on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
const round2 = (n: number) => Math.round(n * 100) / 100;

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function monthPeriod(now: Date, monthsAgo: number): { period: string; requested: Date } {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - monthsAgo, 1));
  return { period: d.toISOString().slice(0, 7), requested: new Date(d.getTime() + 2 * 86400_000 + 9 * 3600_000) };
}

async function insertJson(tx: Transaction, table: string, rows: object[], returning = ''): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  return tx.query(
    `insert into public.${table} select * from json_populate_recordset(null::public.${table}, $1::json) ${returning}`,
    [rows],
  );
}

async function seedPublisher(tx: Transaction, p: PublisherSeed, now: Date): Promise<void> {
  const rand = random(p.seed);
  const memberSince = new Date(now.getTime() - p.memberSinceDaysAgo * 86400_000);
  const [user] = await tx.query<{ id: string }>(
    'insert into public.users (email, name, company, role, created_at) values ($1, $2, $3, $4, $5) returning id',
    [p.email, p.name, p.company, p.role, memberSince],
  );
  const userId = user!.id;
  await tx.query('insert into public.user_credentials (user_id, password_hash) values ($1, $2)', [
    userId,
    await hashPassword(DEMO_PASSWORD),
  ]);

  const monthlyRevenue = new Map<string, number>();
  for (const [appIndex, app] of p.apps.entries()) {
    const appCreated = new Date(memberSince.getTime() + (appIndex * 30 + 2) * 86400_000);
    const [appRow] = await tx.query<{ id: string }>(
      'insert into public.apps (user_id, name, slug, description, category, created_at) values ($1, $2, $3, $4, $5, $6) returning id',
      [userId, app.name, app.slug, app.description, app.category, appCreated],
    );
    const appId = appRow!.id;

    for (const [i, pl] of app.placements.entries()) {
      const [placement] = await tx.query<{ id: string }>(
        `insert into public.placements (app_id, user_id, name, format, status, created_at)
         values ($1, $2, $3, $4, $5, $6) returning id`,
        [appId, userId, pl.name, pl.format, pl.status, new Date(appCreated.getTime() + i * 86400_000)],
      );
      const placementId = placement!.id;
      const cpm = DEFAULT_PRICING.advertiser_cpm_usd[CPM_KEY[pl.format]] * DEFAULT_PRICING.publisher_ad_revenue_share;
      const stats = [];
      for (let day = STATS_DAYS; day >= 1; day--) {
        // Paused placements stopped serving three weeks ago; weekends are quieter.
        const date = new Date(now.getTime() - day * 86400_000);
        if (pl.status !== 'active' && day < 21) continue;
        const weekend = [0, 6].includes(date.getUTCDay()) ? 0.7 : 1;
        const impressions = Math.round(pl.dailyImpressions * weekend * (0.8 + rand() * 0.4));
        if (impressions === 0) continue;
        const clicks = Math.round(impressions * CTR[pl.format] * (0.7 + rand() * 0.6));
        const revenue = round6((impressions / 1000) * cpm * (0.9 + rand() * 0.2));
        // Between 88% and 97% of the ad requests filled (no draw from rand(): the other figures stay as they were).
        const adRequests = Math.ceil(impressions / (0.88 + (impressions % 10) / 100));
        stats.push({ placement_id: placementId, user_id: userId, day: isoDay(date), impressions, clicks, revenue_usd: revenue, ad_requests: adRequests });
        const month = isoDay(date).slice(0, 7);
        monthlyRevenue.set(month, (monthlyRevenue.get(month) ?? 0) + revenue);
      }
      await insertJson(tx, 'daily_stats', stats);
      // The placement's counters are the sum of its daily stats, so every view agrees.
      await tx.query(
        `update public.placements p set impressions = s.i, clicks = s.c, revenue_usd = s.r, ad_requests = s.q
         from (select coalesce(sum(impressions), 0) i, coalesce(sum(clicks), 0) c, coalesce(sum(revenue_usd), 0) r,
                      coalesce(sum(ad_requests), 0) q
               from public.daily_stats where placement_id = $1) s
         where p.id = $1`,
        [placementId],
      );
      if (pl.status === 'active') {
        const events = Array.from({ length: 6 }, (_, n) => ({
          event_id: `seed-${placementId.slice(0, 8)}-${n}`,
          placement_id: placementId,
          user_id: userId,
          kind: n === 5 ? 'click' : 'impression',
          revenue_usd: n === 5 ? 0 : round6(cpm / 1000),
          occurred_at: new Date(now.getTime() - (n + 1) * 60_000).toISOString(),
        }));
        await tx.query(
          `insert into public.ad_events (event_id, placement_id, user_id, kind, revenue_usd, occurred_at)
           select event_id, placement_id, user_id, kind, revenue_usd, occurred_at
           from json_to_recordset($1::json) as e(event_id text, placement_id uuid, user_id uuid, kind text, revenue_usd numeric, occurred_at timestamptz)`,
          [events],
        );
      }
    }

    for (const [i, k] of app.keys.entries()) {
      // Demo keys are random like real ones; nobody learns them, which is the point of hashing.
      const key = generateApiKey(k.environment);
      const created = new Date(appCreated.getTime() + (i + 1) * 86400_000);
      await tx.query(
        `insert into public.api_keys (app_id, user_id, name, environment, status, key_prefix, key_last4, key_hash, created_at, last_used_at, revoked_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          appId,
          userId,
          k.name,
          k.environment,
          k.revoked ? 'revoked' : 'active',
          key.prefix,
          key.last4,
          key.hash,
          created,
          k.revoked ? new Date(now.getTime() - 40 * 86400_000) : new Date(now.getTime() - 3600_000),
          k.revoked ? new Date(now.getTime() - 30 * 86400_000) : null,
        ],
      );
    }
  }

  // A client each publisher approved a while ago, listed under connected apps in the console.
  await tx.query(
    `insert into public.oauth_consents (user_id, client_id, client_name, scopes, approved_at)
     values ($1, 'https://reports.example/client.json', 'Reports Example (demo)', '{profile:read,earnings:read}', $2)`,
    [userId, new Date(now.getTime() - 12 * 86400_000)],
  );

  const payouts = [];
  for (let m = 0; m < p.payouts.months; m++) {
    const { period, requested } = monthPeriod(now, m + 1);
    const status: PayoutStatus = p.payouts.unusual[m] ?? 'paid';
    // Months outside the 90 days of stats get a believable amount of their own.
    const amount = round2(monthlyRevenue.get(period) ?? 900 + rand() * 1400);
    payouts.push({
      user_id: userId,
      period,
      amount_usd: amount,
      status,
      requested_at: requested.toISOString(),
      paid_at: status === 'paid' ? new Date(requested.getTime() + 5 * 86400_000).toISOString() : null,
    });
  }
  await tx.query(
    `insert into public.payouts (user_id, period, amount_usd, status, requested_at, paid_at)
     select user_id, period, amount_usd, status, requested_at, paid_at
     from json_to_recordset($1::json) as p(user_id uuid, period text, amount_usd numeric, status text, requested_at timestamptz, paid_at timestamptz)`,
    [payouts],
  );
}

export async function seedPricing(tx: Transaction): Promise<void> {
  const d = DEFAULT_PRICING;
  await tx.query(
    `insert into public.pricing_settings (
       publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
       cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd,
       price_per_ai_interaction_row_usd, price_per_ux_session_recording_usd, price_per_gb_bundle_usd,
       exclusive_license_multiplier, min_payout_usd)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     on conflict (id) do nothing`,
    [
      d.publisher_ad_revenue_share,
      d.platform_ad_fee,
      d.publisher_data_revenue_share,
      d.advertiser_cpm_usd.floating_video,
      d.advertiser_cpm_usd.tooltip,
      d.advertiser_cpm_usd.sponsored_card,
      d.advertiser_cpm_usd.inline_text,
      d.dataset_prices_usd.per_ai_interaction_row,
      d.dataset_prices_usd.per_ux_session_recording,
      d.dataset_prices_usd.per_gb_bundle,
      d.exclusive_license_multiplier,
      d.min_payout_usd,
    ],
  );
}

/** Returns true when it seeded, false when the demo data was already there. */
export async function seed(engine: Engine, now = new Date()): Promise<boolean> {
  return engine.transaction(async (tx) => {
    await tx.query("select set_config('role', 'service_role', true)");
    await seedPricing(tx);
    const existing = await tx.query('select 1 from public.users where email = $1', [PUBLISHERS[0]!.email]);
    if (existing.length > 0) return false;
    for (const p of PUBLISHERS) await seedPublisher(tx, p, now);
    return true;
  });
}
