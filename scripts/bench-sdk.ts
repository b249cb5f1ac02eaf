/**
 * For `npm run bench`: prepares the SDK endpoints' load on the target's database and prints it
 * as JSON: a new API key (and a server key) of the demo publisher's first app (of `email`'s, when given: the load
 * run spreads its clients over both demo publishers), an active placement of that app and all
 * of its active placements, and `count` decisions for that placement, as if `GET /functions/v1/ads` had served them, so
 * that every event the bench sends is a first impression of its own decision: served a few
 * seconds ago to the bench's client (127.0.0.1 and the user agent `monetize-bench`), of a bench
 * campaign whose budget the bench cannot spend. Their ids are `<now>-7000-8000-<i in 12 hex
 * digits>` (the printed `idPrefix`, the time in milliseconds): time-ordered like the server's
 * (migration 20261125000000), and sent in the order they were made, as real events follow their
 * ads by moments. The bench signs their tokens with the printed key, as the server
 * does (lib/ads/serving/tokens.ts). No count goes with them: they stand for requests counted long ago.
 * `tsx scripts/bench-sdk.ts <count> [email]`; reads the server's environment (DATABASE_URL), and runs
 * after `bench-token.ts fresh` has made the database fresh.
 *
 * It also seeds a market for the ad decision to choose from, beside the three demo advertisers:
 * BENCH_CAMPAIGNS active campaigns (default 1,000) of funded advertiser accounts, 25 campaigns each
 * (so within an advertiser's limits of 100 campaigns and 200 creatives), each campaign with five
 * approved creatives (one per format and one more), so 5,000 creatives: keywords from a small
 * vocabulary, some targeting categories (none the demo apps have, so those never fill there), a
 * daily budget of $50 to $5,000 and a frequency cap of 3 to 20, as a live marketplace has, and
 * eleven context hints (ten about one of forty topics, one its own) and one excluded phrase.
 */
import { randomBytes } from 'node:crypto';
import { createApiKey } from '../lib/publisher/writes';
import { generateConversionKey } from '../lib/ads/conversions/keys';
import { clientHash } from '../lib/platform/http/client-ip';
import { openPglite, openPostgres } from '../lib/platform/db/engine';
import { serviceSecret } from '../lib/platform/db/service-secrets';
import { env } from '../lib/platform/env';

/** The bench's one client's browser (scripts/bench/sdk-load.mjs sends it). */
const BENCH_USER_AGENT = 'monetize-bench';

async function main(count: number, email: string): Promise<void> {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  // It prints the token key and writes decisions: only ever on the bench's own database.
  const target = DATABASE_URL ? new URL(DATABASE_URL).pathname : PGLITE_DATA_DIR;
  if (!/bench\/?$/.test(target)) throw new Error(`refusing to prepare SDK load on ${target}: not a bench database`);
  // The embedded database is one process's: this runs before its server starts.
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  try {
    const [placement] = await engine.query<{ id: string; app_id: string; user_id: string; format: string }>(
      `select p.id, p.app_id, p.user_id, p.format from public.placements p join public.users u on u.id = p.user_id
       where u.email = $1 and p.status = 'active' and p.format = 'tooltip' order by p.created_at limit 1`,
      [email],
    );
    if (!placement) throw new Error(`no active tooltip placement of ${email}`);
    const placements = await engine.query<{ id: string }>(`select id from public.placements where app_id = $1 and status = 'active' order by created_at, id`, [
      placement.app_id,
    ]);
    const key = await createApiKey(engine, placement.user_id, { app_id: placement.app_id, name: 'Bench', environment: 'production' });
    if (!key.ok) throw new Error(key.error);
    // The app's server asking for ads for its users (the server-to-server endpoint).
    const serverKey = await createApiKey(engine, placement.user_id, {
      app_id: placement.app_id,
      name: 'Bench server',
      environment: 'production',
      kind: 'server',
    });
    if (!serverKey.ok) throw new Error(serverKey.error);
    const secret = await serviceSecret('sdk_token_key', () => randomBytes(32).toString('base64url'), engine);
    const [campaign] = await engine.query<{ id: string }>(
      `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap) values ('Bench', 'Bench', 1000000000 * 1000000::bigint, 100) returning id`,
    );
    const [creative] = await engine.query<{ id: string }>(
      `insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, $2, 'Bench', 'https://bench.example/') returning id`,
      [campaign!.id, placement.format],
    );
    await seedMarket(engine, Number(process.env.BENCH_CAMPAIGNS ?? '1000'));
    // Statistics, as a live database's autovacuum keeps them: the planner chooses by them, and a
    // database just filled has none (autovacuum is off on some machines, this project's bench
    // machine among them, and would take a minute to run where it is on).
    await engine.query('analyze');
    const hex = Date.now().toString(16).padStart(12, '0');
    const idPrefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}`;
    const client = clientHash(Buffer.from(secret, 'base64url'), '127.0.0.1', BENCH_USER_AGENT);
    await engine.query(
      `insert into public.ad_decisions (id, app_id, placement_id, campaign_id, creative_id, client_hash, created_at)
       select ($5 || '-7000-8000-' || lpad(to_hex(i), 12, '0'))::uuid, $1, $2, $3, $4, $6, now() - interval '3 seconds'
       from generate_series(0, $7 - 1) as i`,
      [placement.app_id, placement.id, campaign!.id, creative!.id, idPrefix, client, count],
    );
    const conversions = await conversionsLoad(engine, placement, idPrefix);
    process.stdout.write(
      JSON.stringify({
        ...conversions,
        key: key.value.key,
        serverKey: serverKey.value.key,
        placementId: placement.id,
        placements: placements.map((p) => p.id),
        appId: placement.app_id,
        secret,
        decisions: count,
        idPrefix,
        userAgent: BENCH_USER_AGENT,
      }),
    );
  } finally {
    await engine.close();
  }
}

/** How many clicked ads the conversions endpoint's load reports conversions for. */
const CONVERSION_CLICKS = 50_000;

/**
 * The conversions endpoint's load (issue 44): a conversions key of the first market advertiser and
 * CONVERSION_CLICKS decisions of a campaign of theirs, seen and clicked a minute ago, whose click
 * ids the load signs as the server does (lib/ads/conversions/click-id.ts). Ids `<prefix>-7000-9000-<i>`.
 */
async function conversionsLoad(
  engine: Awaited<ReturnType<typeof openPostgres>>,
  placement: { id: string; app_id: string; format: string },
  idPrefix: string,
): Promise<{ conversionKey: string; conversionClicks: number }> {
  const [advertiser] = await engine.query<{ id: string }>(`select id from public.users where email = 'market-1@bench.example'`);
  if (!advertiser) return { conversionKey: '', conversionClicks: 0 };
  const made = generateConversionKey();
  await engine.query(`insert into public.conversion_keys (advertiser_id, name, key_prefix, key_last4, key_hash) values ($1, 'Bench', $2, $3, $4)`, [
    advertiser.id,
    made.prefix,
    made.last4,
    made.hash,
  ]);
  const [campaign] = await engine.query<{ id: string }>(
    `insert into public.campaigns (advertiser_id, advertiser, name, status, daily_budget_micro, frequency_cap, formats, starts_at)
     values ($1, 'Market 1', 'Bench conversions', 'paused', 1000000, 3, array[$2], now() - interval '1 day') returning id`,
    [advertiser.id, placement.format],
  );
  const [creative] = await engine.query<{ id: string }>(
    `insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, $2, 'Bench conversions', 'https://bench.example/') returning id`,
    [campaign!.id, placement.format],
  );
  await engine.query(
    `insert into public.ad_decisions (id, app_id, placement_id, campaign_id, creative_id, created_at, impression_event_id, impressed_at, click_event_id, clicked_at)
     select ($5 || '-7000-9000-' || lpad(to_hex(i), 12, '0'))::uuid, $1, $2, $3, $4, now() - interval '2 minutes',
            'conv-seen-' || i, now() - interval '2 minutes', 'conv-click-' || i, now() - interval '1 minute'
     from generate_series(0, $6 - 1) as i`,
    [placement.app_id, placement.id, campaign!.id, creative!.id, idPrefix, CONVERSION_CLICKS],
  );
  return { conversionKey: made.key, conversionClicks: CONVERSION_CLICKS };
}

/** The topics of the bench market's campaigns' hints (words and phrases of plain letters). */
const TOPICS = [
  'notes',
  'hosting',
  'courses',
  'flights',
  'hotels',
  'running shoes',
  'coffee',
  'recipes',
  'laptops',
  'cameras',
  'guitars',
  'gardening',
  'mortgages',
  'insurance',
  'budgeting',
  'languages',
  'chess',
  'cycling',
  'hiking',
  'skincare',
  'furniture',
  'dog food',
  'board games',
  'photography',
  'video editing',
  'email marketing',
  'accounting',
  'invoicing',
  'crm',
  'project management',
  'password manager',
  'vpn',
  'web design',
  'podcasts',
  'headphones',
  'smart home',
  'camping',
  'car rental',
  'wine',
  'meal kits',
];

/** The market (module comment): advertisers, campaigns and creatives made in a few set-based statements. */
async function seedMarket(engine: Awaited<ReturnType<typeof openPostgres>>, campaigns: number): Promise<void> {
  if (campaigns <= 0) return;
  const [seeded] = await engine.query<{ n: number }>(`select count(*)::int as n from public.campaigns where name like 'Market %'`);
  if ((seeded?.n ?? 0) > 0) return;
  // 25 campaigns, 125 creatives an advertiser: within the limits the database keeps
  // (public.campaigns_within_limit, public.creatives_within_limit).
  const advertisers = Math.ceil(campaigns / 25);
  await engine.query(
    `insert into public.users (email, name, company)
     select 'market-' || i || '@bench.example', 'Market advertiser ' || i, 'Market ' || i from generate_series(1, $1::int) as i`,
    [advertisers],
  );
  await engine.query(
    `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
     select u.id, u.company, u.company, u.email, '1 Bench Road', 'US' from public.users u where u.email like 'market-%@bench.example'`,
  );
  // Funded through the ledger's own path: a paid top-up each.
  await engine.query(
    `with t as (insert into public.top_ups (user_id, amount_micro, rail, invoice_number)
                select u.id, 1000000000000, 'manual', 'INV-BENCH-' || substr(u.id::text, 1, 8) from public.users u where u.email like 'market-%@bench.example'
                returning id)
     select public.top_up_credit(t.id, 'bench', null) from t`,
  );
  // Each campaign's context hints: ten about one of forty topics (so 25 campaigns share a topic,
  // and the bench's conversation, about meeting notes, fits those of one), one of its own.
  await engine.query(
    `insert into public.campaigns (advertiser_id, advertiser, name, status, lifetime_budget_micro, daily_budget_micro, frequency_cap, keywords,
                                   include_categories, formats, starts_at, context_hints, excluded_phrases)
     select a.id, a.company, 'Market ' || i, 'active', 1000000000 * 1000000::bigint, (50 + (i * 37) % 4950) * 1000000::bigint, 3 + i % 18,
            array[(array['quiz','notes','code','travel','finance','health','music','design'])[1 + i % 8],
                  (array['learning','productivity','api','sports','food','games'])[1 + i % 6]],
            case when i % 5 = 0 then array['automotive'] else '{}' end,
            '{floating_video,tooltip,sponsored_card,inline_text}', now() - interval '1 day',
            array[t.topic, t.topic || ' app', 'best ' || t.topic, t.topic || ' tips', t.topic || ' course', 'cheap ' || t.topic,
                  t.topic || ' for beginners', t.topic || ' software', 'learn ' || t.topic, t.topic || ' online', 'brand' || i],
            array['free ' || t.topic || ' download']
     from generate_series(1, $1::int) as i
     join lateral (select u.id, u.company from public.users u where u.email = 'market-' || (1 + i % $2::int) || '@bench.example') a on true
     cross join lateral (select (array[${TOPICS.map((t) => `'${t}'`).join(', ')}])[1 + i % ${TOPICS.length}] as topic) t`,
    [campaigns, advertisers],
  );
  await engine.query(
    `insert into public.creatives (campaign_id, format, status, headline, body, cta, landing_url, image_url, video_url)
     select c.id, f.format, 'active', c.name || ' ' || f.format || ' ' || f.n, 'Bench creative', 'Learn more', 'https://bench.example/' || c.id,
            case when f.format in ('sponsored_card', 'floating_video', 'tooltip') then '/ads/fernway.svg' end,
            case when f.format = 'floating_video' then '/ads/fernway.webm' end
     from public.campaigns c
     cross join lateral (values ('floating_video', 1), ('tooltip', 1), ('sponsored_card', 1), ('inline_text', 1),
                                ((array['floating_video','tooltip','sponsored_card','inline_text'])[1 + abs(hashtext(c.id::text)) % 4], 2)) as f(format, n)
     where c.name like 'Market %'`,
  );
}

main(Number(process.argv[2] ?? '0'), process.argv[3] ?? 'demo@example.com').catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
