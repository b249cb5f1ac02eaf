import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Queryable, Row, Transaction } from '../../lib/platform/db/engine';
import { PLACEMENT_FORMATS } from '../../lib/schemas/account';
import { EVENT_REASON_CHECKS, EVENT_REASONS } from '../../lib/schemas/sdk';
import { testEngines } from '../helpers/db';
import { rawAsService, runAs, sdkClaims } from '../helpers/roles';
import { reasonOf, type EventFacts } from '../helpers/event-facts';

/**
 * The money path's rules one by one, in SQL, on every engine (migration 20261129000000, each rule
 * in supabase/schemas/functions/, and migration 20261203000000's billing checks): pacing on what
 * a campaign was billed today (its `budget:` counter) and has served and not yet been billed
 * (the `served:` and `billed:` counters the roll-up keeps), the frequency cap by client, the
 * budgets' counters and leases (`sdk_take_budget`): a campaign's daily budget taken as its
 * impressions are billed (never more than the budget and one impression), once per ad, click
 * after impression, one click per address and ad in 3 hours, the hourly caps as the server
 * passes them, and the reasons an event is invalid traffic.
 * A rule that reads nothing is called directly with
 * the facts it decides on; each is then shown at work in `sdk_serve_ad` or `sdk_record_events`,
 * called as the app's SDK role the way lib/identity/keys/access.ts calls them (`request.jwt.claims` and the
 * role `sdk`, set for the transaction). Every scenario runs in a transaction that is rolled back,
 * so none sees another's campaigns, decisions or counters.
 *
 * In a transaction `now()` stands still: an ad served in it was served at `now()`, and an
 * impression recorded in it at the same instant, too soon to bill. `servedAgo` moves the ads
 * served so far back in time, as if a person had been looking at them.
 */

const FORMATS = PLACEMENT_FORMATS;
type Format = (typeof FORMATS)[number];
const VIEWABLE = { visible_share: 0.8, visible_seconds: 2.5 };
/** The client an ad request and an events batch come from, unless a test says otherwise (lib/platform/http/client-ip.ts `clientHash`). */
const CLIENT = 'client-1';
/** How many of a batch's impressions the hourly caps allow (lib/ads/serving/events.ts `allowImpressions`): all, unless a scenario says otherwise. */
const NO_CAP = 1_000_000;
/** Decided in Node from the token, before any SQL (lib/ads/serving/events.ts). */
const TOKEN_REASONS: string[] = EVENT_REASON_CHECKS.filter((c) => c.impression === 'token').map((c) => c.reason);
/** Where the counters' periods start: today (UTC), for a campaign's budget. */
const TODAY = "date_trunc('day', now(), 'UTC')";

interface App {
  appId: string;
  userId: string;
  placements: Record<Format, string>;
  paused: string;
}

class RolledBack extends Error {}

/** Runs `fn` in a transaction that is always rolled back, and answers what `fn` answered. */
async function scenario<T>(db: Engine, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  let result: T | undefined;
  try {
    await db.transaction(async (tx) => {
      result = await fn(tx);
      throw new RolledBack();
    });
  } catch (err) {
    if (!(err instanceof RolledBack)) throw err;
  }
  return result as T;
}

/** From here to the end of the transaction (or `asOwner`), the app's SDK role, as lib/identity/keys/access.ts runs it. */
async function asSdk(tx: Transaction, app: App): Promise<void> {
  await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'sdk', true)", [
    JSON.stringify({ role: 'sdk', app_id: app.appId, user_id: app.userId }),
  ]);
}

/** Back to the connection's own role (the owner of everything, past row-level security), to arrange or inspect. */
async function asOwner(tx: Transaction): Promise<void> {
  await tx.exec('set local role none');
}

async function one<T = unknown>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

/**
 * The ads served in this transaction since the last call are made `seconds` old, as the service
 * (`service_role`) would backdate them: their decisions' `created_at`, and the time of the counts
 * their requests left for the roll-up, which puts what they promised in the `served:` counter of
 * that time's five minutes. Ends as the app's SDK role.
 */
async function servedAgo(tx: Transaction, app: App, seconds: number): Promise<void> {
  await tx.query("select set_config('role', 'service_role', true)");
  await tx.query('update public.ad_decisions set created_at = now() - make_interval(secs => $1) where app_id = $2 and created_at = now()', [
    seconds,
    app.appId,
  ]);
  await tx.query('update public.ad_traffic_counts set at = now() - make_interval(secs => $1) where app_id = $2 and at = now() and requests > 0', [
    seconds,
    app.appId,
  ]);
  await asSdk(tx, app);
}

/** The roll-up as the server runs it (`service_role`, lib/ads/serving/rollup.ts), in this transaction. Ends as the app's SDK role. */
async function rollUp(tx: Transaction, app: App): Promise<void> {
  await tx.query("select set_config('role', 'service_role', true)");
  await tx.query('select * from public.roll_up_ad_traffic()');
  await asSdk(tx, app);
}

/** Every counter, as `name@period` (the period as UTC text) and its count (read as the owner, back as `sdk` after). */
async function allCounters(tx: Transaction, app: App): Promise<Record<string, number>> {
  await asOwner(tx);
  const rows = await tx.query<{ key: string; used: number }>(
    `select name || '@' || to_char(period at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as key, used::float8 as used from public.sdk_counters order by 1`,
  );
  await asSdk(tx, app);
  return Object.fromEntries(rows.map((r) => [r.key, r.used]));
}

/** A counter's count, or null when it does not exist (read as the owner, back as `sdk` after). */
async function counter(tx: Transaction, app: App, name: string, period: string): Promise<number | null> {
  await asOwner(tx);
  const [row] = await tx.query<{ used: number }>(`select used::float8 as used from public.sdk_counters where name = $1 and period = ${period}`, [name]);
  await asSdk(tx, app);
  return row ? row.used : null;
}

/**
 * What a campaign was billed today, in micro-dollars (public.sdk_budget_spent): what its `budget:` counter gave out, less
 * what the leases that took it have not spent (read as the owner, back as `sdk` after).
 */
async function budgetUsed(tx: Transaction, app: App, campaignId: string): Promise<number> {
  await asOwner(tx);
  const used = await one<number>(tx, `select public.sdk_budget_spent($1, ${TODAY})::float8 as v`, [campaignId]);
  await asSdk(tx, app);
  return used;
}

/** Sets a counter (as the owner, back as `sdk` after). */
async function setCounter(tx: Transaction, app: App, name: string, period: string, used: string): Promise<void> {
  await asOwner(tx);
  await tx.query(
    `insert into public.sdk_counters (name, period, used) values ($1, ${period}, (${used})::bigint)
     on conflict (name, period) do update set used = excluded.used`,
    [name],
  );
  await asSdk(tx, app);
}

/**
 * Sets what a campaign was billed today, in micro-dollars: its `budget:` counter, with no lease holding any of it
 * (public.sdk_take_budget), as the owner, back as `sdk` after.
 */
async function setBilled(tx: Transaction, app: App, campaignId: string, used: string): Promise<void> {
  await asOwner(tx);
  await tx.query(`delete from public.sdk_budget_leases where campaign_id = $1`, [campaignId]);
  await setCounter(tx, app, `budget:${campaignId}`, TODAY, used);
}

interface Served extends Row {
  found: boolean;
  decision_id: string;
  format: string | null;
  creative_id: string | null;
}

interface ServeOptions {
  session?: string | null;
  keywords?: string[];
  /** The client's hash; CLIENT unless given. */
  client?: string | null;
  /** The network's hash, which the frequency cap counts by; unless given, one network per client (`network of <client>`). */
  network?: string | null;
  /** The frequency cap's allowance for a network, in caps (SDK_NETWORK_FREQUENCY_FACTOR); 1 unless given, so a cap here is the campaign's own. */
  factor?: number;
}

function serve(tx: Transaction, placement: string, o: ServeOptions = {}): Promise<Served> {
  const client = o.client === undefined ? CLIENT : o.client;
  return tx
    .query<Served>('select * from public.sdk_serve_ad($1::uuid, $2, $3::text[], null, $4, $5, $6)', [
      placement,
      o.session ?? null,
      o.keywords ?? [],
      client,
      o.network === undefined ? `network of ${client}` : o.network,
      o.factor ?? 1,
    ])
    .then((rows) => rows[0]!);
}

interface SdkEvent {
  id: string;
  kind: 'impression' | 'click';
  decision_id: string;
  visible_share?: number;
  visible_seconds?: number;
  area_px?: number;
}

type Outcome = { n: number; outcome: string; reason: string | null };

interface RecordOptions {
  /** The address's hash; 'address-1' unless given. */
  ip?: string | null;
  /** The client's hash; CLIENT unless given. */
  client?: string | null;
  bot?: boolean;
  /** How many of the batch's impressions the client's hourly cap still allows (`p_client_allowed`); all unless given. */
  clientAllowed?: number;
  /** How many the publisher's hourly cap still allows (`p_publisher_allowed`); all unless given. */
  publisherAllowed?: number;
}

/** One batch, as lib/ads/serving/events.ts sends it; the outcomes sorted by `n` (sdk_record_events answers them in any order). */
function record(tx: Queryable, events: SdkEvent[], o: RecordOptions = {}): Promise<Outcome[]> {
  const numbered = events.map((e, n) => ({ n, ...e }));
  return tx.query<Outcome>('select * from public.sdk_record_events($1::jsonb, $2, $3, $4::boolean, $5::integer, $6::integer) order by n', [
    numbered,
    o.ip === undefined ? 'address-1' : o.ip,
    o.client === undefined ? CLIENT : o.client,
    o.bot ?? false,
    o.clientAllowed ?? NO_CAP,
    o.publisherAllowed ?? NO_CAP,
  ]);
}

/** The outcome of each event, as the API shows it: the reason when there is one, else the status. */
const verdicts = (rows: Outcome[]) => rows.map((r) => r.reason ?? r.outcome);

interface CampaignSpec {
  budget?: number;
  cap?: number;
  keywords?: string[];
  status?: string;
  starts?: string;
  ends?: string | null;
  formats?: readonly Format[];
  advertiser?: string;
  /** Stops at its end date (without, the end date does not stop it: its budget does). */
  hardStop?: boolean;
}

/** A campaign running beside the others, with one creative per format (or per `formats`); answers its id and creatives. */
async function addCampaign(tx: Transaction, campaign: CampaignSpec = {}): Promise<{ id: string; creatives: Record<Format, string> }> {
  const id = await one<string>(
    tx,
    `insert into public.campaigns (advertiser, name, status, daily_budget_micro, frequency_cap, keywords, starts_at, ends_at, hard_stop)
     values ($7, 'Only one', $1, $2, $3, $4::text[], coalesce($5::timestamptz, now()), $6::timestamptz, $8) returning id as v`,
    [
      campaign.status ?? 'active',
      (campaign.budget ?? 240) * 1_000_000,
      campaign.cap ?? 100,
      campaign.keywords ?? [],
      campaign.starts ?? null,
      campaign.ends ?? null,
      campaign.advertiser ?? 'Rules Test',
      campaign.hardStop ?? true,
    ],
  );
  const creatives = {} as Record<Format, string>;
  for (const format of campaign.formats ?? FORMATS) {
    creatives[format] = await one<string>(
      tx,
      "insert into public.creatives (campaign_id, format, headline, cta, landing_url) values ($1, $2, 'Rules', case when $2 = 'sponsored_follow_up' then 'ask' else 'Learn more' end, 'https://rules.example/') returning id as v",
      [id, format],
    );
  }
  return { id, creatives };
}

/** Leaves one campaign able to serve (the seed's are paused, in this transaction only): `addCampaign`'s. */
async function onlyCampaign(tx: Transaction, campaign: CampaignSpec = {}): Promise<{ id: string; creatives: Record<Format, string> }> {
  await tx.exec("update public.campaigns set status = 'paused'");
  return addCampaign(tx, campaign);
}

/** A decision of the app, written as the owner with what a test needs (a creative, a client, its network, a session, when). */
async function decision(
  tx: Transaction,
  app: App,
  d: {
    creative: string | null;
    campaign?: string | null;
    session?: string | null;
    client?: string | null;
    network?: string | null;
    createdAt?: string;
    clickedAt?: string;
    ip?: string;
  },
): Promise<string> {
  return one<string>(
    tx,
    `insert into public.ad_decisions (app_id, placement_id, session_id, client_hash, network_hash, campaign_id, creative_id, created_at,
                                      impression_event_id, impressed_at, click_event_id, clicked_at, click_ip_hash)
     values ($1, $2, $3, $9, $10, $4, $5, coalesce($6::timestamptz, now()),
             case when $7::timestamptz is null then null else 'imp-' || gen_random_uuid() end, $7::timestamptz,
             case when $7::timestamptz is null then null else 'clk-' || gen_random_uuid() end, $7::timestamptz, $8)
     returning id as v`,
    [
      app.appId,
      app.placements.tooltip,
      d.session ?? null,
      d.campaign ?? null,
      d.creative,
      d.createdAt ?? null,
      d.clickedAt ?? null,
      d.ip ?? null,
      d.client ?? null,
      d.network ?? null,
    ],
  );
}

for (const engine of testEngines()) {
  describe(`the money path's rules on ${engine.name}`, () => {
    let db: Engine;
    let app: App;
    /** What the advertiser pays for one impression of the format, in dollars (its CPM / 1000, to the millionth). */
    let cost: Record<Format, number>;
    let revenueShare: number;

    beforeAll(async () => {
      db = await engine.open();
      const userId = await one<string>(db, "select id as v from public.users where email = 'demo@example.com'");
      const appId = await one<string>(db, "insert into public.apps (user_id, name, slug) values ($1, 'Rules', 'rules') returning id as v", [userId]);
      const placement = (format: Format, status = 'active') =>
        one<string>(db, 'insert into public.placements (app_id, user_id, name, format, status) values ($1, $2, $3, $4, $5) returning id as v', [
          appId,
          userId,
          `${format} ${status}`,
          format,
          status,
        ]);
      const placements = {} as Record<Format, string>;
      for (const format of FORMATS) placements[format] = await placement(format);
      app = { appId, userId, placements, paused: await placement('tooltip', 'paused') };
      const [pricing] = await db.query<Record<string, number>>('select * from public.pricing_settings');
      cost = Object.fromEntries(FORMATS.map((f) => [f, Math.round(pricing![`cpm_${f}_micro`]! / 1000) / 1e6])) as Record<Format, number>;
      revenueShare = pricing!.publisher_ad_revenue_share!;
    });
    afterAll(async () => {
      await db?.close();
    });

    describe('as functions', () => {
      // One use of each rule, as its caller writes it: planned, each must be gone, its text in its place.
      const USES: Record<string, string> = {
        sdk_campaign_running: 'select public.sdk_campaign_running(c.status, c.starts_at, c.ends_at, now()) from public.campaigns c',
        sdk_campaign_targets:
          "select public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps, 'tooltip', '{}', c.id) from public.campaigns c",
        // As sdk_serve_ad calls it, for each campaign the draw reaches.
        sdk_campaign_creative: `select s.id from public.campaigns c
                                cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap, 'tooltip', c.id, 'network', 4,
                                                                                now()) s`,
        sdk_day_share: 'select public.sdk_day_share(c.created_at) from public.campaigns c',
        sdk_paced_budget_micro: 'select public.sdk_paced_budget_micro(c.daily_budget_micro, 0.5) from public.campaigns c',
        sdk_paced_budget_left: 'select public.sdk_paced_budget_left(k.used, 100, 0.5) from public.sdk_counters k',
        sdk_network_fills: "select (select count(*) from public.sdk_network_fills(c.id, 'network', c.id, now())) from public.campaigns c",
        sdk_under_frequency_cap: 'select public.sdk_under_frequency_cap(count(*), 3, 4) from public.ad_decisions d',
        sdk_promise_slot: 'select public.sdk_promise_slot(d.created_at) from public.ad_decisions d',
        sdk_draw_weight: "select public.sdk_draw_weight(c.daily_budget_micro, c.keywords, '{notes}') from public.campaigns c",
        // The rules of a request with a conversation (migration 20261216000000_ad_context).
        sdk_relevant_weight: 'select public.sdk_relevant_weight(c.daily_budget_micro, 0.5) from public.campaigns c',
        sdk_campaign_blocked: "select public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, '{lumen notes}', '{crypto}') from public.campaigns c",
        // As sdk_serve_ad and sdk_record_events call it (migration 20261217000000_ad_hides).
        sdk_hider: 'select public.sdk_hider(d.app_id, d.client_hash) from public.ad_decisions d',
        sdk_publisher_revenue: 'select public.sdk_publisher_revenue(10000, p) from public.pricing_settings p',
        sdk_already_counted: "select public.sdk_already_counted('click', d.impression_event_id, d.click_event_id) from public.ad_decisions d",
        sdk_click_before_impression: "select public.sdk_click_before_impression('click', d.impression_event_id) from public.ad_decisions d",
        sdk_recent_clicks: "select exists (select 1 from public.sdk_recent_clicks(cr.id, 'address', now())) from public.creatives cr",
        sdk_view_seconds: 'select public.sdk_view_seconds(p.format) from public.placements p',
        sdk_viewable:
          'select public.sdk_viewable(p.format, d.visible_share, d.visible_seconds, 1) from public.ad_decisions d join public.placements p on p.id = d.placement_id',
        // As sdk_record_events calls it for an impression, with the facts of the decision it has locked (a click's facts are fewer).
        sdk_event_reason: `select public.sdk_event_reason('impression', false, d.impression_event_id, d.click_event_id, true, false,
                             p_same_client => d.client_hash = 'client', p_age_seconds => extract(epoch from now() - d.created_at),
                             p_format => p.format, p_share => d.visible_share, p_seconds => d.visible_seconds, p_area => 1)
                           from public.ad_decisions d join public.placements p on p.id = d.placement_id`,
        // A rule of migration 20261125000000, on the hot path as well.
        sdk_cost_per_impression: 'select public.sdk_cost_per_impression(pl.format, p) from public.pricing_settings p, public.placements pl',
        // As sdk_serve_ad calls it for each campaign the draw reaches (migration 20261221000300_cost_per_click).
        sdk_cpc_clears: `select exists (select 1 from public.sdk_cpc_clears(c.id, pl.id, c.max_cpc_micro, 'inline_text') x where x.clears)
                         from public.campaigns c, public.placements pl`,
      };
      /**
       * The rules only the SDK role may call (sdk_cost_per_impression reads nothing and stayed executable by everyone), and the
       * budgets' `sdk_take_budget` and `sdk_budget_spent` (which reads tables, and is not inlined: a click calls it once).
       */
      const SDK_ONLY = [...Object.keys(USES).filter((rule) => rule !== 'sdk_cost_per_impression'), 'sdk_take_budget', 'sdk_take_funds', 'sdk_budget_spent'];

      it('each rule is inlined into the statement that uses it, for the SDK role, so the split costs nothing at run time', async () => {
        const plans = await scenario(db, async (tx) => {
          await asSdk(tx, app);
          const plans: Record<string, string> = {};
          for (const [rule, sql] of Object.entries(USES)) {
            const rows = await tx.query<Record<string, string>>(`explain (verbose, costs off) ${sql}`);
            plans[rule] = rows.map((r) => Object.values(r)[0]).join('\n');
          }
          return plans;
        });
        // Nor any rule it calls (sdk_viewable calls sdk_view_seconds, sdk_event_reason both, sdk_already_counted and more).
        for (const [rule, plan] of Object.entries(plans)) {
          const called = Object.keys(USES).filter((r) => plan.includes(`${r}(`));
          expect(called, `${rule}: not inlined:\n${plan}`).toEqual([]);
        }
        // The rules are all there: a rule added later gets its use here too.
        const rules = await db.query<{ proname: string }>(
          `select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public' and p.prolang = (select oid from pg_language where lanname = 'sql') and p.proname like 'sdk\\_%'
             and p.proname not in ('sdk_key', 'sdk_app_id', 'sdk_user_id', 'sdk_budget_spent', 'sdk_ad_market')
           order by 1`,
        );
        expect(rules.map((r) => r.proname)).toEqual(Object.keys(USES).sort());
      });

      it('each rule, and sdk_take_budget, may be called by the SDK role and by no request role else', async () => {
        const rows = await db.query<{ rule: string; sdk: boolean; anon: boolean; authenticated: boolean; public: boolean }>(
          `select p.proname as rule, has_function_privilege('sdk', p.oid, 'execute') as sdk, has_function_privilege('anon', p.oid, 'execute') as anon,
                  has_function_privilege('authenticated', p.oid, 'execute') as authenticated,
                  exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a where a.grantee = 0) as public
           from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public' and p.proname = any($1::text[]) order by 1`,
          [SDK_ONLY],
        );
        expect(rows).toEqual([...SDK_ONLY].sort().map((rule) => ({ rule, sdk: true, anon: false, authenticated: false, public: false })));
      });
    });

    describe('budgets at billing', () => {
      /** A lease of the budget of campaign `id` (as the owner, back as `sdk` after): what it took, what it spent, and its limit. */
      const leases = async (tx: Transaction, id: string, at: string) => {
        await asOwner(tx);
        const rows = await tx.query<{ granted: number; spent: number; lease_limit: number }>(
          `select granted::float8 as granted, spent::float8 as spent, lease_limit::float8 as lease_limit from public.sdk_budget_leases
           where campaign_id = $1 and period = ${at}`,
          [id],
        );
        await asSdk(tx, app);
        return rows;
      };

      it('sdk_take_budget takes up to the limit, lets the impression that crosses it through and no more, and leases ahead only far from it', async () => {
        const result = await scenario(db, async (tx) => {
          await asSdk(tx, app);
          const period = "'2026-12-03T00:00:00Z'::timestamptz";
          const ids = Array.from({ length: 8 }, () => randomUUID());
          const take = (id: string, items: number, unit: number, limit: number, at = period) =>
            one<number>(tx, `select (public.sdk_take_budget($1, ${at}, $2, $3, $4)).items as v`, [id, items, unit, limit]);
          const used = (id: string, at = period) => counter(tx, app, `budget:${id}`, at);
          const state = async (id: string, at = period) => ({ counter: await used(id, at), leases: await leases(tx, id, at) });
          const r: Record<string, unknown> = {};
          // Near the limit (fewer than 1,024 such batches left), exactly what is asked, in turns, up to the limit.
          const [near, far, crossing, dear, none, zero, changed, reclaimed] = ids as [string, string, string, string, string, string, string, string];
          r.first = [await take(near, 3, 10, 100), await state(near)];
          r.rest = [await take(near, 10, 10, 100), await state(near)];
          r.full = [await take(near, 1, 10, 100), await state(near)];
          // Another day is another budget.
          r.nextDay = [await take(near, 1, 10, 100, `${period} + interval '1 day'`), await used(near, `${period} + interval '1 day'`)];
          // Far from it: the lease takes four batches more, and the next batches spend from it without touching the counter.
          r.far = [await take(far, 3, 10, 1_000_000), await state(far)];
          r.fromTheLease = [await take(far, 3, 10, 1_000_000), await take(far, 6, 10, 1_000_000), await state(far)];
          // Short of a batch, it takes what is missing and four such batches more.
          r.refilled = [await take(far, 4, 10, 1_000_000), await state(far)];
          // At 95 of 100, the impression of 10 that crosses the limit is taken, and nothing after it.
          await setCounter(tx, app, `budget:${crossing}`, period, '95');
          r.crossing = [await take(crossing, 3, 10, 100), await state(crossing)];
          r.crossed = [await take(crossing, 3, 10, 100), await state(crossing)];
          // One impression dearer than the whole budget is still one impression.
          r.dear = [await take(dear, 3, 500, 100), await used(dear)];
          // Nothing asked: nothing taken, nothing created. Nothing left: the counter is created at zero.
          r.none = [await take(none, 0, 10, 100), await state(none)];
          r.zero = [await take(zero, 2, 10, 0), await used(zero)];
          // A budget changed: the lease gives back what it has not spent, and takes again under the new limit.
          await take(changed, 3, 10, 1_000_000);
          r.lowered = [await take(changed, 5, 10, 60), await state(changed)];
          // The counter at the budget, and another connection's lease holding 20 unspent (its connection gone quiet): a
          // batch the counter cannot cover takes that back first, and bills it.
          const other = '(pg_backend_pid() + 1) % 1024';
          await asOwner(tx);
          await tx.query(
            `insert into public.sdk_budget_leases (campaign_id, period, shard, lease_limit, granted, spent) values ($1, ${period}, ${other}, 100, 30, 10)`,
            [reclaimed],
          );
          await setCounter(tx, app, `budget:${reclaimed}`, period, '100');
          r.reclaimed = [await take(reclaimed, 3, 10, 100), await state(reclaimed)];
          return r;
        });
        expect(result).toEqual({
          first: [3, { counter: 30, leases: [{ granted: 30, spent: 30, lease_limit: 100 }] }],
          rest: [7, { counter: 100, leases: [{ granted: 100, spent: 100, lease_limit: 100 }] }],
          full: [0, { counter: 100, leases: [{ granted: 100, spent: 100, lease_limit: 100 }] }],
          nextDay: [1, 10],
          far: [3, { counter: 150, leases: [{ granted: 150, spent: 30, lease_limit: 1_000_000 }] }],
          fromTheLease: [3, 6, { counter: 150, leases: [{ granted: 150, spent: 120, lease_limit: 1_000_000 }] }],
          refilled: [4, { counter: 320, leases: [{ granted: 320, spent: 160, lease_limit: 1_000_000 }] }],
          crossing: [1, { counter: 105, leases: [{ granted: 10, spent: 10, lease_limit: 100 }] }],
          crossed: [0, { counter: 105, leases: [{ granted: 10, spent: 10, lease_limit: 100 }] }],
          dear: [1, 500],
          none: [0, { counter: null, leases: [] }],
          zero: [0, 0],
          // 30 spent and 120 given back of the 150 taken; then 3 of the 5 asked fit the new budget of 60, the third crossing it.
          lowered: [3, { counter: 60, leases: [{ granted: 60, spent: 60, lease_limit: 60 }] }],
          // 20 back (the counter at 80), then the 2 that fit: the counter at the budget, the other lease spent out.
          reclaimed: [
            2,
            {
              counter: 100,
              leases: expect.arrayContaining([
                { granted: 10, spent: 10, lease_limit: 100 },
                { granted: 20, spent: 20, lease_limit: 100 },
              ]),
            },
          ],
        });
      });

      if (engine.name === 'postgres')
        it('sdk_take_budget: concurrent batches near the limit take in turn, never more than the limit and one impression', async () => {
          const id = randomUUID();
          const period = '2026-12-03T00:00:00Z';
          // Eight transactions at once, each wanting 3 impressions of 7 from a budget of 100 (24 wanted, 15 fit),
          // each holding what it took a while after, as a batch does until its commit.
          const taken = await Promise.all(
            Array.from({ length: 8 }, () =>
              runAs(db, 'sdk', sdkClaims(app), async (q) => {
                const [row] = await q.query<{ v: number }>('select (public.sdk_take_budget($1, $2::timestamptz, 3, 7, 100)).items as v', [id, period]);
                await q.query('select pg_sleep(0.05)');
                return row!.v;
              }),
            ),
          );
          const used = await rawAsService(db, async (q) => {
            const [row] = await q.query<{ used: number; spent: number }>(
              `select (select used::float8 from public.sdk_counters where name = 'budget:' || $1::text and period = $2::timestamptz) as used,
                      (select sum(spent)::float8 from public.sdk_budget_leases where campaign_id = $1::uuid and period = $2::timestamptz) as spent`,
              [id, period],
            );
            await q.query("delete from public.sdk_counters where name = 'budget:' || $1", [id]);
            await q.query('delete from public.sdk_budget_leases where campaign_id = $1', [id]);
            return row!;
          });
          expect(taken.reduce((a, b) => a + b, 0)).toBe(15);
          expect(used).toEqual({ used: 15 * 7, spent: 15 * 7 });
          expect(taken.filter((t) => t === 0).length).toBeGreaterThan(0);
        });

      if (engine.name === 'postgres')
        it('sdk_take_budget: concurrent batches far from the limit spend from their leases, and the counter holds exactly what the leases took', async () => {
          const id = randomUUID();
          const period = '2026-12-03T00:00:00Z';
          // Eight connections at once, each billing five batches of 3 impressions of 7 from a budget of a million.
          const taken = await Promise.all(
            Array.from({ length: 8 }, () =>
              runAs(db, 'sdk', sdkClaims(app), async (q) => {
                let sum = 0;
                for (let b = 0; b < 5; b++) {
                  const [row] = await q.query<{ v: number }>('select (public.sdk_take_budget($1, $2::timestamptz, 3, 7, 1000000)).items as v', [id, period]);
                  sum += row!.v;
                }
                return sum;
              }),
            ),
          );
          const state = await rawAsService(db, async (q) => {
            const [row] = await q.query<{ used: number; granted: number; spent: number }>(
              `select (select used::float8 from public.sdk_counters where name = 'budget:' || $1::text and period = $2::timestamptz) as used,
                      (select sum(granted)::float8 from public.sdk_budget_leases where campaign_id = $1::uuid and period = $2::timestamptz) as granted,
                      (select sum(spent)::float8 from public.sdk_budget_leases where campaign_id = $1::uuid and period = $2::timestamptz) as spent`,
              [id, period],
            );
            await q.query("delete from public.sdk_counters where name = 'budget:' || $1", [id]);
            await q.query('delete from public.sdk_budget_leases where campaign_id = $1', [id]);
            return row!;
          });
          expect(taken).toEqual(Array.from({ length: 8 }, () => 15));
          expect(state.spent).toBe(8 * 15 * 7);
          expect(state.used).toBe(state.granted);
          // At most four batches unspent for each of the eight connections.
          expect(state.used - state.spent).toBeLessThanOrEqual(8 * 4 * 3 * 7);
        });
    });

    describe('serving', () => {
      it('a campaign runs while it is active, has started and has not ended', async () => {
        const running = (status: string, starts: string, ends: string | null) =>
          one<boolean>(db, 'select public.sdk_campaign_running($1, $2::timestamptz, $3::timestamptz, $4::timestamptz) as v', [
            status,
            starts,
            ends,
            '2026-11-26T12:00:00Z',
          ]);
        expect(await running('active', '2026-11-26T11:00:00Z', null)).toBe(true);
        expect(await running('active', '2026-11-26T12:00:00Z', '2026-11-26T12:00:01Z')).toBe(true);
        expect(await running('paused', '2026-11-26T11:00:00Z', null)).toBe(false);
        expect(await running('completed', '2026-11-26T11:00:00Z', null)).toBe(false);
        expect(await running('active', '2026-11-26T12:00:01Z', null)).toBe(false);
        expect(await running('active', '2026-11-26T11:00:00Z', '2026-11-26T12:00:00Z')).toBe(false);
      });

      it('pacing: the share of the UTC day gone by, whatever the time zone of the session or of the time written', async () => {
        const shares = await scenario(db, async (tx) => {
          // Far from UTC, so that a day cut at local midnight would show.
          await tx.exec("set local time zone 'Pacific/Auckland'");
          const share = (at: string) => one<number>(tx, 'select public.sdk_day_share($1::timestamptz) as v', [at]);
          return [
            await share('2026-11-26T00:00:00Z'),
            await share('2026-11-26T12:00:00Z'),
            await share('2026-11-26T18:00:00+02:00'),
            await share('2026-11-26T23:59:59Z'),
          ];
        });
        expect(shares[0]).toBe(0);
        expect(shares[1]).toBe(0.5);
        expect(shares[2]).toBeCloseTo(16 / 24, 12);
        expect(shares[3]).toBeCloseTo(86399 / 86400, 12);
      });

      it('pacing: the paced budget is the budget times the day gone by, plus an hour, never more than the budget; all in micro-dollars', async () => {
        const paced = (budgetMicro: number, share: number) => one<number>(db, 'select public.sdk_paced_budget_micro($1, $2) as v', [budgetMicro, share]);
        expect(await paced(240_000_000, 0)).toBe(10_000_000);
        expect(await paced(240_000_000, 0.5)).toBe(130_000_000);
        expect(await paced(240_000_000, 23 / 24)).toBe(240_000_000);
        expect(await paced(240_000_000, 0.99)).toBe(240_000_000);
        const left = (committedMicro: number | null, share: number) =>
          one<boolean>(db, 'select public.sdk_paced_budget_left($1::bigint, 240000000, $2) as v', [committedMicro, share]);
        expect(await left(null, 0)).toBe(true);
        expect(await left(0, 0)).toBe(true);
        // Both in micro-dollars: 11 of them are far below a paced $10.
        expect(await left(11, 0)).toBe(true);
        // The paced budget is a fraction of a micro-dollar above $10 and $130 (an hour is 1.0 / 24 of the day).
        expect(await left(9_999_999, 0)).toBe(true);
        expect(await left(10_000_000, 0)).toBe(true);
        expect(await left(10_000_001, 0)).toBe(false);
        expect(await left(129_999_999, 0.5)).toBe(true);
        expect(await left(130_000_001, 0.5)).toBe(false);
        expect(await left(239_999_999, 0.99)).toBe(true);
        expect(await left(240_000_000, 0.99)).toBe(false);
        expect(await left(240_000_001, 0.99)).toBe(false);
      });

      it('pacing at work: an ad is served while what its campaign was billed today and served in the last quarter hour and not yet billed is below the paced budget, and not at it', async () => {
        const fills = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx, { budget: 240 });
          const other = await addCampaign(tx, { status: 'paused' });
          const served = `served:${campaign.id}`;
          const billed = `billed:${campaign.id}`;
          // The paced budget in micro-dollars, as the counters keep it: at it rounded up, and just below it.
          const paced = 'public.sdk_paced_budget_micro(240000000, public.sdk_day_share(now()))';
          const at = `ceil(${paced})`;
          const below = `${at} - 1`;
          const slot = (minutesAgo: number) => `public.sdk_promise_slot(now() - interval '${minutesAgo} minutes')`;
          type Counter = [name: string, period: string, used: string];
          /** `total` micro-dollars billed on the day `period` starts: the campaign's budget counter of that day. */
          const billedOn = (total: string, period = TODAY, campaignId = campaign.id): Counter[] => [[`budget:${campaignId}`, period, total]];
          /** One request, undone after (no decision, no count for the roll-up): would it fill? */
          const filled = async () => {
            await asOwner(tx);
            await tx.exec('savepoint probe');
            await asSdk(tx, app);
            const ad = await serve(tx, app.placements.tooltip);
            await tx.exec('rollback to savepoint probe');
            await asOwner(tx);
            return ad.creative_id === campaign.creatives.tooltip;
          };
          /** Only these counters of the two campaigns, then one request. */
          const filledWith = async (counters: Counter[]) => {
            await asOwner(tx);
            await tx.query("delete from public.sdk_counters where split_part(name, ':', 2) in ($1, $2)", [campaign.id, other.id]);
            for (const [name, period, used] of counters) await setCounter(tx, app, name, period, used);
            return filled();
          };
          const direct = {
            nothing: await filledWith([]),
            billedBelow: await filledWith(billedOn(below)),
            billedAt: await filledWith(billedOn(at)),
            // What was billed on another day, or to another campaign, does not count against today's.
            billedYesterday: await filledWith(billedOn(at, `${TODAY} - interval '1 day'`)),
            otherCampaignAt: await filledWith(billedOn(at, TODAY, other.id)),
            // Served in the last quarter hour and not billed: what those ads may still bill.
            servedAt: await filledWith([[served, slot(0), at]]),
            // Billed since, it is no longer a promise (the budget counters have it).
            servedAndBilled: await filledWith([
              [served, slot(0), at],
              [billed, slot(0), at],
            ]),
            // Billed, and served less billed, add up to the micro-dollar, whatever the slots of the window.
            servedNotBilledAt: await filledWith([
              ...billedOn(`${at} - 1000`),
              [served, slot(5), '1200'],
              [served, slot(0), '1800'],
              [billed, slot(10), '2000'],
            ]),
            servedNotBilledBelow: await filledWith([
              ...billedOn(`${at} - 1000`),
              [served, slot(5), '1199'],
              [served, slot(0), '1800'],
              [billed, slot(10), '2000'],
            ]),
            // Billing more than was served in the window (ads served before it) takes nothing off what was billed today.
            billedMoreThanServed: await filledWith([...billedOn(at), [served, slot(0), '1000'], [billed, slot(0), '5000']]),
            // The slot 15 minutes ago is still in the window...
            servedInTheWindow: await filledWith([...billedOn(`${at} - 1000`), [served, slot(15), '1000']]),
            // ...and the one before it is not: those ads can no longer be billed; nor does what was billed then count.
            servedBeforeTheWindow: await filledWith([[served, `${slot(15)} - interval '5 minutes'`, at]]),
            billedBeforeTheWindow: await filledWith([
              [served, slot(0), at],
              [billed, `${slot(15)} - interval '5 minutes'`, at],
            ]),
          };

          // The same through the roll-up, from what serving and billing leave for it (ad_traffic_counts).
          const price = Math.round(cost.tooltip * 1e6);
          const serveOne = async () => {
            await asSdk(tx, app);
            const ad = await serve(tx, app.placements.tooltip);
            await asOwner(tx);
            return ad.creative_id === campaign.creatives.tooltip;
          };
          const rollUpNow = async () => {
            await rollUp(tx, app);
            await asOwner(tx);
          };
          await filledWith(billedOn(`${at} - ${price}`));
          const throughRollUp: Record<string, boolean> = {};
          // One ad's price short of the paced budget: an ad is served, and promises its price from the roll-up's next run on.
          throughRollUp.served = await serveOne();
          throughRollUp.beforeTheRollUp = await filled();
          await rollUpNow();
          throughRollUp.afterTheRollUp = await filled();
          // It is billed as sdk_record_events bills it (below): its price in the budget counter, and the impression
          // counted with its cost, which the roll-up adds to the `billed:` counter. Until then it counts twice, billed and promised.
          await tx.query(`update public.sdk_counters set used = used + $1 where name = $2 and period = ${TODAY}`, [price, `budget:${campaign.id}`]);
          await tx.query(
            `insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, cost_micro)
             values ($1, $2, $3, (now() at time zone 'UTC')::date, 1, $4)`,
            [app.appId, app.placements.tooltip, campaign.id, price],
          );
          throughRollUp.billedBeforeTheRollUp = await filled();
          await rollUpNow();
          throughRollUp.billedAfterTheRollUp = await filled();
          // Counted once: a micro-dollar less billed, and it fills again.
          await tx.query(`update public.sdk_counters set used = used - 1 where name = $1 and period = ${TODAY}`, [`budget:${campaign.id}`]);
          throughRollUp.countedOnce = await filled();
          // An ad served 20 minutes ago promises nothing any more; one served now does.
          throughRollUp.servedLongAgo = await serveOne();
          await servedAgo(tx, app, 20 * 60);
          await rollUpNow();
          throughRollUp.afterLongAgo = await filled();
          throughRollUp.servedNow = await serveOne();
          await rollUpNow();
          throughRollUp.afterNow = await filled();
          return { direct, throughRollUp };
        });
        expect(fills).toEqual({
          direct: {
            nothing: true,
            billedBelow: true,
            billedAt: false,
            billedYesterday: true,
            otherCampaignAt: true,
            servedAt: false,
            servedAndBilled: true,
            servedNotBilledAt: false,
            servedNotBilledBelow: true,
            billedMoreThanServed: false,
            servedInTheWindow: false,
            servedBeforeTheWindow: true,
            billedBeforeTheWindow: false,
          },
          throughRollUp: {
            served: true,
            beforeTheRollUp: true,
            afterTheRollUp: false,
            billedBeforeTheRollUp: false,
            billedAfterTheRollUp: false,
            countedOnce: true,
            servedLongAgo: true,
            afterLongAgo: true,
            servedNow: true,
            afterNow: false,
          },
        });
      });

      it('a campaign that is paused, not started or past a hard stop serves nothing; running, or past an end date without a hard stop, it serves', async () => {
        const served = await scenario(db, async (tx) => {
          const answers: Record<string, boolean> = {};
          for (const [name, campaign] of Object.entries({
            running: {},
            paused: { status: 'paused' },
            'not started': { starts: new Date(Date.now() + 3_600_000).toISOString() },
            ended: { starts: '2026-01-01T00:00:00Z', ends: '2026-01-02T00:00:00Z' },
            'past its end, no hard stop': { starts: '2026-01-01T00:00:00Z', ends: '2026-01-02T00:00:00Z', hardStop: false },
          })) {
            await tx.exec('savepoint campaign');
            const { creatives } = await onlyCampaign(tx, campaign);
            await asSdk(tx, app);
            answers[name] = (await serve(tx, app.placements.inline_text)).creative_id === creatives.inline_text;
            await asOwner(tx);
            await tx.exec('rollback to savepoint campaign');
          }
          return answers;
        });
        expect(served).toEqual({ running: true, paused: false, 'not started': false, ended: false, 'past its end, no hard stop': true });
      });

      it("frequency cap: a network's fills of a campaign stay below the cap times the network's allowance; an allowance of 0 is no cap", async () => {
        const under = (fills: number, cap: number, factor: number) =>
          one<boolean>(db, 'select public.sdk_under_frequency_cap($1::bigint, $2, $3) as v', [fills, cap, factor]);
        expect(await under(0, 1, 1)).toBe(true);
        expect(await under(2, 3, 1)).toBe(true);
        expect(await under(3, 3, 1)).toBe(false);
        expect(await under(4, 3, 1)).toBe(false);
        expect(await under(100, 1, 1)).toBe(false);
        expect(await under(0, 0, 1)).toBe(false);
        // Four caps' worth for a network several people share.
        expect(await under(11, 3, 4)).toBe(true);
        expect(await under(12, 3, 4)).toBe(false);
        // The largest cap times the largest allowance, in bigint.
        expect(await under(99_999, 100, 1000)).toBe(true);
        expect(await under(100_000, 100, 1000)).toBe(false);
        expect(await under(1_000_000, 3, 0)).toBe(true);
      });

      it("frequency cap: a network's fills are its app's decisions filled by the campaign for that network in the last 24 hours, whatever their client or session", async () => {
        const counted = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx);
          const other = await addCampaign(tx);
          const made = async (
            network: string | null,
            campaignId: string | null,
            hoursAgo: number,
            client: string | null = 'client-a',
            session: string | null = null,
          ) =>
            decision(tx, app, {
              creative: campaign.creatives.tooltip,
              campaign: campaignId,
              client,
              network,
              session,
              createdAt: await one<string>(tx, `select (now() - interval '${hoursAgo} hours')::text as v`),
            });
          const inside = [
            await made('capped', campaign.id, 0, 'client-a', 'session-1'),
            await made('capped', campaign.id, 23.9, 'client-b', 'session-2'),
            await made('capped', campaign.id, 1, 'client-c'),
            await made('capped', campaign.id, 1, null),
          ];
          await made('capped', campaign.id, 24.1);
          await made('capped', other.id, 1);
          await made('capped', null, 1);
          await made('another network', campaign.id, 1, 'client-a', 'session-1');
          await made(null, campaign.id, 1, 'client-a', 'session-1');
          const fills = (appId: string, network: string | null) =>
            tx.query<{ id: string }>('select f as id from public.sdk_network_fills($1, $2, $3, now()) f order by 1', [appId, network, campaign.id]);
          return {
            inside: inside.sort(),
            found: (await fills(app.appId, 'capped')).map((r) => r.id),
            otherApp: await fills('00000000-0000-4000-8000-000000000000', 'capped'),
            noNetwork: await fills(app.appId, null),
          };
        });
        expect(counted.found).toEqual(counted.inside);
        expect(counted.otherApp).toEqual([]);
        expect(counted.noNetwork).toEqual([]);
      });

      it('frequency cap at work: a network stops getting the campaign at its allowance, whatever client or session asks; another network does not; an allowance of 0 never stops it', async () => {
        const answers = await scenario(db, async (tx) => {
          const { creatives } = await onlyCampaign(tx, { cap: 2 });
          await asSdk(tx, app);
          let n = 0;
          // A new client (user agent) and session for every request.
          const filled = async (network: string, factor: number) =>
            (await serve(tx, app.placements.sponsored_card, { client: `client-${++n}`, session: n % 2 ? `session-${n}` : null, network, factor }))
              .creative_id === creatives.sponsored_card;
          const fills = async (network: string, factor: number, requests: number) => {
            const list: boolean[] = [];
            for (let i = 0; i < requests; i++) list.push(await filled(network, factor));
            return list;
          };
          return {
            // The campaign's cap, 2, times an allowance of 3 for the network.
            shared: await fills('network-a', 3, 8),
            other: await fills('network-b', 3, 1),
            // The same network's count, asked with an allowance of 1: past it already.
            stricter: await fills('network-a', 1, 1),
            off: await fills('network-a', 0, 3),
          };
        });
        expect(answers).toEqual({
          shared: [true, true, true, true, true, true, false, false],
          other: [true],
          stricter: [false],
          off: [true, true, true],
        });
      });

      it("the draw's weight is the daily budget, tripled when a keyword matches", async () => {
        const weight = (keywords: string[], requested: string[] | null) =>
          one<number>(db, 'select public.sdk_draw_weight(100, $1::text[], $2::text[]) as v', [keywords, requested]);
        expect(await weight(['writing', 'notes'], ['notes'])).toBe(300);
        expect(await weight(['writing'], ['music'])).toBe(100);
        expect(await weight(['writing'], null)).toBe(100);
        expect(await weight([], ['writing'])).toBe(100);
      });

      it('the promise of an ad served: the five minutes it falls in, in UTC', async () => {
        const slot = (at: string) => one<string>(db, "select to_char(public.sdk_promise_slot($1::timestamptz) at time zone 'UTC', 'HH24:MI:SS') as v", [at]);
        expect(await slot('2026-11-26T12:00:00Z')).toBe('12:00:00');
        expect(await slot('2026-11-26T12:04:59.999Z')).toBe('12:00:00');
        expect(await slot('2026-11-26T12:05:00Z')).toBe('12:05:00');
        expect(await slot('2026-11-26T18:17:30+05:30')).toBe('12:45:00');
      });
    });

    describe('recording', () => {
      it('once per ad: a decision counts one impression and one click, whatever their ids', async () => {
        const counted = (kind: string, impression: string | null, click: string | null) =>
          one<boolean>(db, 'select public.sdk_already_counted($1, $2, $3) as v', [kind, impression, click]);
        expect(await counted('impression', null, null)).toBe(false);
        expect(await counted('impression', 'i1', null)).toBe(true);
        expect(await counted('click', 'i1', null)).toBe(false);
        expect(await counted('click', 'i1', 'c1')).toBe(true);
        expect(await counted('impression', null, 'c1')).toBe(false);

        const outcomes = await scenario(db, async (tx) => {
          const { creatives } = await onlyCampaign(tx);
          await asSdk(tx, app);
          const ad = await serve(tx, app.placements.tooltip);
          expect(ad.creative_id).toBe(creatives.tooltip);
          await servedAgo(tx, app, 5);
          const first = await record(tx, [
            { id: 'imp-1', kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE },
            { id: 'imp-2', kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE },
            { id: 'clk-1', kind: 'click', decision_id: ad.decision_id },
          ]);
          const later = await record(tx, [
            { id: 'imp-3', kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE },
            { id: 'clk-2', kind: 'click', decision_id: ad.decision_id },
          ]);
          return [...verdicts(first), ...verdicts(later)];
        });
        expect(outcomes).toEqual(['recorded', 'already_counted', 'recorded', 'already_counted', 'already_counted']);
      });

      it('click after impression: a click counts only once its impression has', async () => {
        const early = (kind: string, impression: string | null) =>
          one<boolean>(db, 'select public.sdk_click_before_impression($1, $2) as v', [kind, impression]);
        expect(await early('click', null)).toBe(true);
        expect(await early('click', 'i1')).toBe(false);
        expect(await early('impression', null)).toBe(false);

        const outcomes = await scenario(db, async (tx) => {
          await onlyCampaign(tx);
          await asSdk(tx, app);
          const ad = await serve(tx, app.placements.tooltip);
          await servedAgo(tx, app, 5);
          const before = await record(tx, [{ id: 'clk-early', kind: 'click', decision_id: ad.decision_id }]);
          // In one batch impressions go first, so the click after them counts.
          const batch = await record(tx, [
            { id: 'clk-late', kind: 'click', decision_id: ad.decision_id },
            { id: 'imp', kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE },
          ]);
          return [...verdicts(before), ...verdicts(batch)];
        });
        expect(outcomes).toEqual(['no_impression', 'recorded', 'recorded']);
      });

      it("3 hours: the clicks that bar another are this address's on this ad in the last 3 hours", async () => {
        const found = await scenario(db, async (tx) => {
          const { creatives } = await onlyCampaign(tx);
          const clicked = async (hoursAgo: number, ip = 'address-1', creative = creatives.tooltip) =>
            decision(tx, app, { creative, clickedAt: await one<string>(tx, `select (now() - interval '${hoursAgo} hours')::text as v`), ip });
          const recent = await clicked(2.99);
          await clicked(3.01);
          await clicked(1, 'address-2');
          await clicked(1, 'address-1', creatives.inline_text);
          return {
            recent,
            found: (await tx.query<{ id: string }>("select x as id from public.sdk_recent_clicks($1, 'address-1', now()) x", [creatives.tooltip])).map(
              (r) => r.id,
            ),
            noAddress: await tx.query('select x from public.sdk_recent_clicks($1, null, now()) x', [creatives.tooltip]),
          };
        });
        expect(found.found).toEqual([found.recent]);
        expect(found.noAddress).toEqual([]);
      });

      it('3 hours at work: a second click of one address on one ad is a repeat, from another address or after 3 hours it counts', async () => {
        const outcomes = await scenario(db, async (tx) => {
          await onlyCampaign(tx);
          await asSdk(tx, app);
          const ads: Served[] = [];
          for (let i = 0; i < 4; i++) ads.push(await serve(tx, app.placements.inline_text));
          await servedAgo(tx, app, 5);
          await record(
            tx,
            ads.map((ad, i) => ({ id: `imp-${i}`, kind: 'impression' as const, decision_id: ad.decision_id, ...VIEWABLE })),
          );
          const click = (i: number, ip: string) => record(tx, [{ id: `clk-${i}`, kind: 'click', decision_id: ads[i]!.decision_id }], { ip });
          const answers = [...verdicts(await click(0, 'address-1')), ...verdicts(await click(1, 'address-1')), ...verdicts(await click(2, 'address-2'))];
          // The first click, moved to 3 hours and a second ago, no longer bars one.
          await asOwner(tx);
          await tx.query("update public.ad_decisions set clicked_at = now() - interval '3 hours 1 second' where id = $1", [ads[0]!.decision_id]);
          await asSdk(tx, app);
          answers.push(...verdicts(await click(3, 'address-1')));
          return answers;
        });
        expect(outcomes).toEqual(['recorded', 'repeat_click', 'recorded', 'recorded']);
      });

      it("a click's order at work: a repeat on an ad whose campaign ended, or spent its day's budget, is refused for the campaign; running again, as a repeat", async () => {
        const outcomes = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx);
          await asSdk(tx, app);
          const ads = [await serve(tx, app.placements.inline_text), await serve(tx, app.placements.inline_text)];
          await servedAgo(tx, app, 5);
          await record(
            tx,
            ads.map((ad, i) => ({ id: `imp-${i}`, kind: 'impression' as const, decision_id: ad.decision_id, ...VIEWABLE })),
          );
          const click = (id: string, ad: Served) => record(tx, [{ id, kind: 'click', decision_id: ad.decision_id }]).then(verdicts);
          const answers = [...(await click('clk-0', ads[0]!))];
          await asOwner(tx);
          await tx.query("update public.campaigns set status = 'completed' where id = $1", [campaign.id]);
          await asSdk(tx, app);
          answers.push(...(await click('clk-1-ended', ads[1]!)));
          await asOwner(tx);
          await tx.query("update public.campaigns set status = 'active' where id = $1", [campaign.id]);
          await setBilled(tx, app, campaign.id, '240 * 1000000');
          answers.push(...(await click('clk-1-spent', ads[1]!)));
          await setBilled(tx, app, campaign.id, '0');
          answers.push(...(await click('clk-1-again', ads[1]!)));
          return answers;
        });
        expect(outcomes).toEqual(['recorded', 'campaign_ended', 'over_budget', 'repeat_click']);
      });

      it('viewability: the seconds in view of the format, then 50% of the ad, or 30% of a sponsored card of 242,500 px or more; never for text formats', async () => {
        const seconds = (format: string) => one<number>(db, 'select public.sdk_view_seconds($1) as v', [format]);
        expect(await seconds('floating_video')).toBe(2);
        for (const format of ['tooltip', 'sponsored_card', 'inline_text']) expect(await seconds(format)).toBe(1);

        const viewable = (format: Format, share: number | null, secs: number | null, area: number | null = null) =>
          one<boolean>(db, 'select public.sdk_viewable($1, $2, $3, $4::bigint) as v', [format, share, secs, area]);
        for (const format of ['tooltip', 'sponsored_card', 'inline_text'] as const) {
          expect(await viewable(format, 0.5, 1)).toBe(true);
          expect(await viewable(format, 0.49, 1)).toBe(false);
          expect(await viewable(format, 0.5, 0.99)).toBe(false);
          expect(await viewable(format, null, 1)).toBe(false);
          expect(await viewable(format, 0.5, null)).toBe(false);
        }
        expect(await viewable('floating_video', 0.5, 2)).toBe(true);
        expect(await viewable('floating_video', 0.5, 1.99)).toBe(false);
        // The large-ad rule: a sponsored card only.
        expect(await viewable('sponsored_card', 0.3, 1, 242_500)).toBe(true);
        expect(await viewable('sponsored_card', 0.3, 1, 242_499)).toBe(false);
        expect(await viewable('sponsored_card', 0.29, 1, 300_000)).toBe(false);
        expect(await viewable('inline_text', 0.3, 1, 300_000)).toBe(false);
        expect(await viewable('tooltip', 0.3, 1, 300_000)).toBe(false);
        expect(await viewable('inline_text', 0.5, 1, 300_000)).toBe(true);
        expect(await viewable('floating_video', 0.3, 2, 300_000)).toBe(false);
      });

      it("an impression's reason: the first rule it fails, in the one order, from the robot to the campaign's end", async () => {
        const reason = (f: EventFacts) => reasonOf(db, { kind: 'impression', ...f });
        // Each rule alone, at its edge.
        expect(await reason({})).toBeNull();
        expect(await reason({ bot: true })).toBe('bot');
        expect(await reason({ sameClient: false })).toBe('other_client');
        expect(await reason({ sameClient: null })).toBe('other_client');
        expect(await reason({ age: 0.99, seconds: 0.5 })).toBe('too_soon');
        expect(await reason({ age: 1, seconds: 1 })).toBeNull();
        expect(await reason({ format: 'floating_video', age: 1.99, seconds: 1.5 })).toBe('too_soon');
        expect(await reason({ format: 'floating_video', age: 2, seconds: 2 })).toBeNull();
        expect(await reason({ age: 900 })).toBeNull();
        expect(await reason({ age: 900.001 })).toBe('too_late');
        expect(await reason({ age: 5, seconds: 5 })).toBeNull();
        expect(await reason({ age: 5, seconds: 5.001 })).toBe('impossible_evidence');
        expect(await reason({ share: 0.4 })).toBe('not_viewable');
        expect(await reason({ seconds: null })).toBe('not_viewable');
        expect(await reason({ format: 'inline_text', share: 0.3, area: 300_000 })).toBe('not_viewable');
        expect(await reason({ format: 'sponsored_card', share: 0.3, area: 300_000 })).toBeNull();
        expect(await reason({ impression: 'i' })).toBe('already_counted');
        expect(await reason({ running: false })).toBe('campaign_ended');
        expect(await reason({ running: null })).toBe('campaign_ended');
        // The budget is the batch's for an impression (sdk_record_events passes false), and comes after every rule.
        expect(await reason({ overBudget: true })).toBe('over_budget');
        // A click's facts are no impression's: its own click counted, no impression counted yet, a repeat.
        expect(await reason({ click: 'c', repeat: true })).toBeNull();
        // The first that applies wins: each failing with all those after it.
        const after = { share: 0.4, impression: 'i', running: false, overBudget: true };
        expect(await reason({ bot: true, sameClient: false, age: 0.5, seconds: 3, ...after })).toBe('bot');
        expect(await reason({ sameClient: false, age: 0.5, seconds: 3, ...after })).toBe('other_client');
        expect(await reason({ age: 0.5, seconds: 3, ...after })).toBe('too_soon');
        expect(await reason({ age: 1000, seconds: 2000, ...after })).toBe('too_late');
        expect(await reason({ age: 5, seconds: 10, ...after })).toBe('impossible_evidence');
        expect(await reason({ ...after })).toBe('not_viewable');
        expect(await reason({ impression: 'i', running: false, overBudget: true })).toBe('already_counted');
        expect(await reason({ running: false, overBudget: true })).toBe('campaign_ended');
      });

      it("a click's reason: the first rule it fails, in the one order, the 3-hour rule last", async () => {
        const reason = (f: EventFacts) => reasonOf(db, { kind: 'click', ...f });
        // Each rule alone.
        expect(await reason({})).toBeNull();
        expect(await reason({ bot: true })).toBe('bot');
        expect(await reason({ click: 'c' })).toBe('already_counted');
        expect(await reason({ impression: null })).toBe('no_impression');
        expect(await reason({ running: false })).toBe('campaign_ended');
        expect(await reason({ running: null })).toBe('campaign_ended');
        expect(await reason({ overBudget: true })).toBe('over_budget');
        expect(await reason({ overBudget: null })).toBeNull();
        expect(await reason({ repeat: true })).toBe('repeat_click');
        // An impression's facts are no click's: viewability, the client, the time since the ad was served.
        expect(await reason({ sameClient: false, age: 0, share: 0, seconds: null })).toBeNull();
        // The first that applies wins: each failing with all those after it. A repeat of an ad whose campaign ended or
        // spent its budget is refused for the campaign, as sdk_record_events always answered it.
        const after = { running: false, overBudget: true, repeat: true };
        expect(await reason({ bot: true, click: 'c', impression: null, ...after })).toBe('bot');
        expect(await reason({ click: 'c', impression: null, ...after })).toBe('already_counted');
        expect(await reason({ impression: null, ...after })).toBe('no_impression');
        expect(await reason({ ...after })).toBe('campaign_ended');
        expect(await reason({ overBudget: true, repeat: true })).toBe('over_budget');
      });

      it('the reasons SQL gives, for each kind, are those the one list says its rule decides; with the rest, every reason the API documents', async () => {
        const clicks = await db.query<{ reason: string | null }>(
          `select distinct public.sdk_event_reason('click', bot, impression, click, running, spent, p_repeat_click => repeat) as reason
           from unnest(array[true, false]) bot, unnest(array['i', null]) impression, unnest(array['c', null]) click, unnest(array[true, false, null]) running,
                unnest(array[true, false]) spent, unnest(array[true, false]) repeat`,
        );
        // As sdk_record_events asks for an impression: its budget is the batch's.
        const impressions = await db.query<{ reason: string | null }>(
          `select distinct public.sdk_event_reason('impression', bot, impression, null, running, false, same, age, format, share, secs, area) as reason
           from unnest(array[true, false]) bot, unnest(array[true, false, null]) same, unnest(array[0, 1.5, 5, 1000]::numeric[]) age,
                unnest(array['floating_video', 'tooltip', 'sponsored_card', 'inline_text']) format, unnest(array[0.8, 0.4]::numeric[]) share,
                unnest(array[1.2, 3, 10, null]::numeric[]) secs, unnest(array[0, 300000]::bigint[]) area, unnest(array['i', null]) impression,
                unnest(array[true, false, null]) running`,
        );
        const given = (rows: { reason: string | null }[]) => rows.map((r) => r.reason).filter((r) => r !== null);
        const ruled = (kind: 'impression' | 'click') => EVENT_REASON_CHECKS.filter((c) => c[kind] === 'rule').map((c) => c.reason);
        expect(given(impressions).sort()).toEqual([...ruled('impression')].sort());
        expect(given(clicks).sort()).toEqual([...ruled('click')].sort());
        const elsewhere = EVENT_REASON_CHECKS.filter((c) => c.impression !== 'rule' && c.click !== 'rule').map((c) => c.reason);
        expect([...new Set([...given(impressions), ...given(clicks), ...elsewhere])].sort()).toEqual([...EVENT_REASONS].sort());
      });

      it('each reason at work: recorded as invalid traffic with its reason, counted, kept once per ad, kind and reason, never billed; unknown decisions without a row', async () => {
        const result = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx);
          await asSdk(tx, app);
          const ad = async (client = CLIENT) => (await serve(tx, app.placements.sponsored_card, { client })).decision_id;
          const late = await ad();
          await servedAgo(tx, app, 901);
          const [a, b, c, d, e, g, h, i] = [await ad(), await ad(), await ad(), await ad(), await ad(), await ad(), await ad(), await ad()];
          const elsewhere = await ad('client-2');
          const limited = [await ad('client-3'), await ad('client-3')];
          const publisherLimited = [await ad('client-4'), await ad('client-4')];
          const unfilled = (await serve(tx, app.paused)).decision_id;
          await servedAgo(tx, app, 5);
          const fresh = await ad();

          const answers = [...verdicts(await record(tx, [{ id: 'bot-imp', kind: 'impression', decision_id: a, ...VIEWABLE }], { bot: true }))];
          answers.push(
            ...verdicts(
              await record(tx, [
                { id: 'glimpse', kind: 'impression', decision_id: b, visible_share: 0.4, visible_seconds: 5 },
                { id: 'imp-c', kind: 'impression', decision_id: c, ...VIEWABLE },
                { id: 'imp-c-again', kind: 'impression', decision_id: c, ...VIEWABLE },
                { id: 'click-d', kind: 'click', decision_id: d },
                { id: 'imp-e', kind: 'impression', decision_id: e, ...VIEWABLE },
                { id: 'click-c', kind: 'click', decision_id: c },
                { id: 'click-e', kind: 'click', decision_id: e },
                { id: 'unfilled', kind: 'impression', decision_id: unfilled, ...VIEWABLE },
                { id: 'nowhere', kind: 'impression', decision_id: '00000000-0000-4000-8000-000000000000', ...VIEWABLE },
                // The same id again: one id is one event.
                { id: 'glimpse', kind: 'impression', decision_id: b, ...VIEWABLE },
                { id: 'elsewhere', kind: 'impression', decision_id: elsewhere, ...VIEWABLE },
                { id: 'soon', kind: 'impression', decision_id: fresh, visible_share: 0.8, visible_seconds: 0 },
                { id: 'late', kind: 'impression', decision_id: late, ...VIEWABLE },
                { id: 'impossible', kind: 'impression', decision_id: g, visible_share: 0.8, visible_seconds: 6 },
                { id: 'click-c-again', kind: 'click', decision_id: c },
                // Invalid again for the same reason, under another id: counted, not kept again (here, and in a later batch).
                { id: 'glimpse-twice', kind: 'impression', decision_id: b, visible_share: 0.4, visible_seconds: 5 },
              ]),
            ),
          );
          // The campaign ends: neither its impressions nor its clicks count any more.
          await asOwner(tx);
          await tx.query("update public.campaigns set status = 'completed' where id = $1", [campaign.id]);
          await asSdk(tx, app);
          answers.push(
            ...verdicts(
              await record(
                tx,
                [
                  { id: 'ended-imp', kind: 'impression', decision_id: h, ...VIEWABLE },
                  { id: 'ended-click', kind: 'click', decision_id: e },
                  { id: 'glimpse-again', kind: 'impression', decision_id: b, visible_share: 0.4, visible_seconds: 5 },
                ],
                { ip: 'address-2' },
              ),
            ),
          );
          // It runs again, its day's budget billed (its counter at the budget, 240 dollars): neither counts either.
          await asOwner(tx);
          await tx.query("update public.campaigns set status = 'active' where id = $1", [campaign.id]);
          await setBilled(tx, app, campaign.id, '240 * 1000000');
          answers.push(
            ...verdicts(
              await record(
                tx,
                [
                  { id: 'broke-imp', kind: 'impression', decision_id: i, ...VIEWABLE },
                  { id: 'broke-click', kind: 'click', decision_id: e },
                ],
                { ip: 'address-3' },
              ),
            ),
          );
          await setBilled(tx, app, campaign.id, '0');
          // The hourly caps (counted by the server) allow one more billable impression from this client, then one more for the publisher.
          answers.push(
            ...verdicts(
              await record(
                tx,
                limited.map((id, n) => ({ id: `client-limit-${n}`, kind: 'impression' as const, decision_id: id, ...VIEWABLE })),
                { client: 'client-3', clientAllowed: 1 },
              ),
            ),
          );
          answers.push(
            ...verdicts(
              await record(
                tx,
                publisherLimited.map((id, n) => ({ id: `publisher-limit-${n}`, kind: 'impression' as const, decision_id: id, ...VIEWABLE })),
                { client: 'client-4', publisherAllowed: 1 },
              ),
            ),
          );
          await asOwner(tx);
          const rows = await tx.query<{ event_id: string; kind: string; invalid_reason: string; billable: boolean }>(
            'select event_id, kind, invalid_reason, billable from public.ad_events where app_id = $1',
            [app.appId],
          );
          const [counts] = await tx.query<{ impressions: number; clicks: number; invalid: number }>(
            'select sum(impressions)::int as impressions, sum(clicks)::int as clicks, sum(invalid)::int as invalid from public.ad_traffic_counts where app_id = $1',
            [app.appId],
          );
          const billed = await tx.query<{ id: string }>('select id from public.ad_decisions where app_id = $1 and impression_event_id is not null', [
            app.appId,
          ]);
          return {
            answers,
            rows: rows.sort((x, y) => (x.event_id < y.event_id ? -1 : 1)),
            counts,
            billed: billed.map((r) => r.id).sort(),
            shouldBeBilled: [c, e, limited[0]!, publisherLimited[0]!].sort(),
          };
        });
        expect(result.answers).toEqual([
          'bot',
          'not_viewable',
          'recorded',
          'already_counted',
          'no_impression',
          'recorded',
          'recorded',
          'repeat_click',
          'unknown_decision',
          'unknown_decision',
          'duplicate',
          'other_client',
          'too_soon',
          'too_late',
          'impossible_evidence',
          'already_counted',
          'not_viewable',
          'campaign_ended',
          'campaign_ended',
          'not_viewable',
          'over_budget',
          'over_budget',
          'recorded',
          'client_limit',
          'recorded',
          'publisher_limit',
        ]);
        // Every reason SQL gives, each at work.
        expect([...new Set([...result.answers, ...TOKEN_REASONS])].filter((r) => r !== 'recorded' && r !== 'duplicate').sort()).toEqual(
          [...EVENT_REASONS].sort(),
        );
        const invalid = (event_id: string, kind: string, invalid_reason: string) => ({ event_id, kind, invalid_reason, billable: false });
        expect(result.rows).toEqual([
          invalid('bot-imp', 'impression', 'bot'),
          invalid('broke-click', 'click', 'over_budget'),
          invalid('broke-imp', 'impression', 'over_budget'),
          invalid('click-c-again', 'click', 'already_counted'),
          invalid('click-d', 'click', 'no_impression'),
          invalid('click-e', 'click', 'repeat_click'),
          invalid('client-limit-1', 'impression', 'client_limit'),
          invalid('elsewhere', 'impression', 'other_client'),
          invalid('ended-click', 'click', 'campaign_ended'),
          invalid('ended-imp', 'impression', 'campaign_ended'),
          invalid('glimpse', 'impression', 'not_viewable'),
          invalid('imp-c-again', 'impression', 'already_counted'),
          invalid('impossible', 'impression', 'impossible_evidence'),
          invalid('late', 'impression', 'too_late'),
          invalid('publisher-limit-1', 'impression', 'publisher_limit'),
          invalid('soon', 'impression', 'too_soon'),
        ]);
        // Counted: every invalid answer but the two about no decision, glimpse-twice and glimpse-again too.
        expect(result.counts).toEqual({ impressions: 4, clicks: 1, invalid: 18 });
        expect(result.billed).toEqual(result.shouldBeBilled);
      });

      it("the hourly caps at work: of a batch's impressions that pass every other rule, in order, those past what the client's cap allows, then the publisher's, are refused and take nothing from the budget", async () => {
        const result = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx);
          await asSdk(tx, app);
          const ads: string[] = [];
          for (let i = 0; i < 8; i++) ads.push((await serve(tx, app.placements.tooltip)).decision_id);
          await servedAgo(tx, app, 5);
          const impression = (i: number, id = `imp-${i}`, evidence: { visible_share: number; visible_seconds: number } = VIEWABLE): SdkEvent => ({
            id,
            kind: 'impression',
            decision_id: ads[i]!,
            ...evidence,
          });
          const billed = async () => ((await budgetUsed(tx, app, campaign.id)) ?? 0) / Math.round(cost.tooltip * 1e6);
          // Four pass the rules (a glimpse does not, nor a second impression of one ad): the client's cap allows three, the publisher's two.
          const mixed = verdicts(
            await record(
              tx,
              [
                impression(0),
                impression(1, 'glimpse', { visible_share: 0.1, visible_seconds: 1 }),
                impression(2),
                impression(2, 'imp-2-again'),
                impression(3),
                impression(4),
              ],
              { clientAllowed: 3, publisherAllowed: 2 },
            ),
          );
          const billedAfterMixed = await billed();
          // Nothing allowed, or less than nothing: nothing billed.
          const none = verdicts(await record(tx, [impression(5), impression(6)], { clientAllowed: 0 }));
          const negative = verdicts(await record(tx, [impression(7)], { publisherAllowed: -3 }));
          // Clicks are not capped.
          const click = verdicts(await record(tx, [{ id: 'clk-0', kind: 'click', decision_id: ads[0]! }], { clientAllowed: 0, publisherAllowed: 0 }));
          // An ad refused by a cap counts later, when the caps allow it.
          const later = verdicts(await record(tx, [impression(3, 'imp-3-later')]));
          return { mixed, billedAfterMixed, none, negative, click, later, billedAtTheEnd: await billed() };
        });
        expect(result).toEqual({
          mixed: ['recorded', 'not_viewable', 'recorded', 'already_counted', 'publisher_limit', 'client_limit'],
          billedAfterMixed: 2,
          none: ['client_limit', 'client_limit'],
          negative: ['publisher_limit'],
          click: ['recorded'],
          later: ['recorded'],
          billedAtTheEnd: 3,
        });
      });

      it("the budget at work: a batch bills a campaign's impressions up to its daily budget and the one that crosses it; the rest are over_budget, their decisions untouched, and the spent campaign's clicks too", async () => {
        const result = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx, { budget: 240, formats: ['tooltip'] });
          const exact = await addCampaign(tx, { budget: 240, formats: ['tooltip'] });
          const other = await addCampaign(tx, { budget: 240, formats: ['tooltip'] });
          const price = Math.round(cost.tooltip * 1e6);
          const budget = 240 * 1e6;
          // Billed today: two and a half impressions short of the budget (three more are billed, the third crossing it), and
          // for `exact` two short to the micro-dollar (two are billed, and it is spent). `other` has billed nothing yet.
          await setBilled(tx, app, campaign.id, String(budget - Math.floor(2.5 * price)));
          await setBilled(tx, app, exact.id, String(budget - 2 * price));
          await asOwner(tx);
          const servedAt = await one<string>(tx, "select (now() - interval '5 seconds')::text as v");
          const ads = async (c: { id: string; creatives: Record<Format, string> }, count: number) => {
            const ids: string[] = [];
            for (let i = 0; i < count; i++)
              ids.push(await decision(tx, app, { creative: c.creatives.tooltip, campaign: c.id, client: CLIENT, createdAt: servedAt }));
            return ids;
          };
          const [mine, exacts, others] = [await ads(campaign, 7), await ads(exact, 4), await ads(other, 2)];
          const decisionsOf = (ids: string[]) =>
            tx.query(
              `select impression_event_id, impressed_at, visible_share::float8, visible_seconds::float8, cost_micro, revenue_micro, click_event_id, clicked_at
               from public.ad_decisions where id = any($1::uuid[]) order by array_position($1::uuid[], id)`,
              [ids],
            );
          const before = await decisionsOf(mine);
          await asSdk(tx, app);
          const impression = (id: string, decision_id: string, evidence = VIEWABLE): SdkEvent => ({ id, kind: 'impression', decision_id, ...evidence });
          // The clicks first in the batch: they are judged after the budgets all the same.
          const batch = verdicts(
            await record(tx, [
              { id: 'mine-0-click', kind: 'click', decision_id: mine[0]! },
              { id: 'other-0-click', kind: 'click', decision_id: others[0]! },
              impression('mine-0', mine[0]!),
              impression('other-0', others[0]!),
              impression('mine-1', mine[1]!),
              // A glimpse takes nothing from the budget.
              impression('mine-2', mine[2]!, { visible_share: 0.1, visible_seconds: 1 }),
              impression('exact-0', exacts[0]!),
              impression('mine-3', mine[3]!),
              impression('mine-4', mine[4]!),
              impression('exact-1', exacts[1]!),
              impression('other-1', others[1]!),
              impression('exact-2', exacts[2]!),
              impression('mine-5', mine[5]!),
            ]),
          );
          const budgets = async () => [await budgetUsed(tx, app, campaign.id), await budgetUsed(tx, app, exact.id), await budgetUsed(tx, app, other.id)];
          const afterBatch = await budgets();
          // Spent: a later batch bills nothing more, and takes nothing.
          const later = verdicts(await record(tx, [impression('mine-6', mine[6]!), impression('exact-3', exacts[3]!)]));
          const afterLater = await budgets();
          await asOwner(tx);
          const after = await decisionsOf(mine);
          const events = await tx.query<{ event_id: string; kind: string; invalid_reason: string }>(
            "select event_id, kind, invalid_reason from public.ad_events where app_id = $1 and invalid_reason = 'over_budget' order by event_id",
            [app.appId],
          );
          const counts = await tx.query(
            `select campaign_id, sum(impressions)::int as impressions, sum(clicks)::int as clicks, sum(invalid)::int as invalid, sum(cost_micro)::float8 as cost_micro
             from public.ad_traffic_counts where app_id = $1 and campaign_id is not null group by campaign_id`,
            [app.appId],
          );
          return { price, budget, batch, afterBatch, later, afterLater, before, after, events, counts, ids: [campaign.id, exact.id, other.id] };
        });
        const { price, budget } = result;
        expect(result.batch).toEqual([
          'over_budget',
          'recorded',
          'recorded',
          'recorded',
          'recorded',
          'not_viewable',
          'recorded',
          'recorded',
          'over_budget',
          'recorded',
          'recorded',
          'over_budget',
          'over_budget',
        ]);
        // Three impressions of the first campaign (the third crossing its budget by half an impression), two of `exact` (to the
        // micro-dollar: the third is refused), both of `other`.
        expect(result.afterBatch).toEqual([budget - Math.floor(2.5 * price) + 3 * price, budget, 2 * price]);
        expect(result.afterBatch[0]!).toBeLessThanOrEqual(budget + price);
        expect(result.later).toEqual(['over_budget', 'over_budget']);
        expect(result.afterLater).toEqual(result.afterBatch);
        // Billed: the three recorded; the glimpse and the refused as they were before the batch.
        const untouched = {
          impression_event_id: null,
          impressed_at: null,
          visible_share: null,
          visible_seconds: null,
          cost_micro: 0,
          revenue_micro: 0,
          click_event_id: null,
          clicked_at: null,
        };
        expect(result.before).toEqual(Array.from({ length: 7 }, () => untouched));
        expect(result.after.map((d) => d.impression_event_id)).toEqual(['mine-0', 'mine-1', null, 'mine-3', null, null, null]);
        expect(result.after.map((d) => d.cost_micro)).toEqual([price, price, 0, price, 0, 0, 0]);
        for (const n of [2, 4, 5, 6]) expect(result.after[n], `mine-${n}`).toEqual(untouched);
        // The refused are invalid traffic, kept once each, and counted with the campaign; the billed, counted at their cost.
        expect(result.events).toEqual(
          ['exact-2', 'exact-3', 'mine-0-click', 'mine-4', 'mine-5', 'mine-6'].map((event_id) => ({
            event_id,
            kind: event_id.endsWith('click') ? 'click' : 'impression',
            invalid_reason: 'over_budget',
          })),
        );
        const [mineId, exactId, otherId] = result.ids;
        const byCampaign = (rows: Row[]) => [...rows].sort((p, q) => String(p.campaign_id).localeCompare(String(q.campaign_id)));
        expect(byCampaign(result.counts)).toEqual(
          byCampaign([
            { campaign_id: mineId, impressions: 3, clicks: 0, invalid: 5, cost_micro: 3 * price },
            { campaign_id: exactId, impressions: 2, clicks: 0, invalid: 2, cost_micro: 2 * price },
            { campaign_id: otherId, impressions: 2, clicks: 1, invalid: 0, cost_micro: 2 * price },
          ]),
        );
      });

      if (engine.name === 'postgres')
        it('the budget at work, concurrently: batches billing the same campaigns, in either order, never bill more than a budget and one impression, and none fails', async () => {
          const price = Math.round(cost.tooltip * 1e6);
          const budget = 240 * 1e6;
          // Two campaigns, committed (the batches run in transactions of their own): 11 impressions left in the first's budget,
          // the 11th crossing it by half an impression; 7 in the second's, the 7th ending it to the micro-dollar.
          const campaigns = await db.transaction(async (tx) => [
            await addCampaign(tx, { budget: 240, formats: ['tooltip'] }),
            await addCampaign(tx, { budget: 240, formats: ['tooltip'] }),
          ]);
          const ids = campaigns.map((c) => c.id);
          const start = [budget - Math.floor(10.5 * price), budget - 7 * price];
          const fit = [11, 7];
          const BATCHES = 8;
          const perBatch = [4, 3];
          try {
            const ads = await db.transaction(async (tx) => {
              for (const [c, id] of ids.entries()) {
                await tx.query(`insert into public.sdk_counters (name, period, used) values ($1, ${TODAY}, $2)`, [`budget:${id}`, start[c]]);
              }
              const servedAt = await one<string>(tx, "select (now() - interval '5 seconds')::text as v");
              const ads: string[][] = [];
              for (const [c, campaign] of campaigns.entries()) {
                const list: string[] = [];
                for (let i = 0; i < BATCHES * perBatch[c]!; i++) {
                  list.push(await decision(tx, app, { creative: campaign.creatives.tooltip, campaign: campaign.id, client: CLIENT, createdAt: servedAt }));
                }
                ads.push(list);
              }
              return ads;
            });
            // Eight batches at once, each with impressions of both campaigns, half of them the second's first, each holding
            // the budgets a while after, as a batch does until its commit.
            const batches = await Promise.allSettled(
              Array.from({ length: BATCHES }, (_, b) =>
                runAs(db, 'sdk', sdkClaims(app), async (q) => {
                  const events = [0, 1].flatMap((c) =>
                    ads[c]!.slice(b * perBatch[c]!, (b + 1) * perBatch[c]!).map((decision_id, i): SdkEvent => ({
                      id: `concurrent-${c}-${b}-${i}`,
                      kind: 'impression',
                      decision_id,
                      ...VIEWABLE,
                    })),
                  );
                  const outcomes = await record(q, b % 2 ? events.reverse() : events);
                  await q.query('select pg_sleep(0.05)');
                  return outcomes.map((o) => ({ campaign: events[o.n]!.id.split('-')[1], verdict: o.reason ?? o.outcome }));
                }),
              ),
            );
            const failures = batches.flatMap((batch) => (batch.status === 'rejected' ? [`${(batch.reason as Error).message}`] : []));
            expect(failures).toEqual([]);
            const outcomes = batches.flatMap((batch) => (batch.status === 'fulfilled' ? batch.value : []));
            const state = await rawAsService(db, async (q) => {
              const rows: { used: number | null; billed: number; cost: number }[] = [];
              for (const id of ids) {
                const [row] = await q.query<{ used: number | null; billed: number; cost: number }>(
                  `select (select used::float8 from public.sdk_counters where name = 'budget:' || $1 and period = ${TODAY}) as used,
                          count(*) filter (where d.impression_event_id is not null)::int as billed, coalesce(sum(d.cost_micro), 0)::float8 as cost
                   from public.ad_decisions d where d.campaign_id = $1::uuid`,
                  [id],
                );
                rows.push(row!);
              }
              return rows;
            });
            [0, 1].forEach((c) => {
              const verdictsOf = outcomes.filter((o) => o.campaign === String(c)).map((o) => o.verdict);
              expect(verdictsOf).toHaveLength(BATCHES * perBatch[c]!);
              expect(
                verdictsOf.filter((v) => v === 'recorded'),
                `campaign ${c}`,
              ).toHaveLength(fit[c]!);
              expect(
                verdictsOf.filter((v) => v !== 'recorded').every((v) => v === 'over_budget'),
                `campaign ${c}`,
              ).toBe(true);
              expect(state[c], `campaign ${c}`).toEqual({ used: start[c]! + fit[c]! * price, billed: fit[c], cost: fit[c]! * price });
              expect(state[c]!.used!).toBeLessThanOrEqual(budget + price);
            });
          } finally {
            await db.query('delete from public.ad_events where campaign_id = any($1::uuid[])', [ids]);
            await db.query('delete from public.ad_traffic_counts where campaign_id = any($1::uuid[])', [ids]);
            await db.query('delete from public.ad_decisions where campaign_id = any($1::uuid[])', [ids]);
            await db.query('delete from public.sdk_counters where name = any($1::text[])', [ids.map((id) => `budget:${id}`)]);
            await db.query('delete from public.sdk_budget_leases where campaign_id = any($1::uuid[])', [ids]);
            await db.query('delete from public.creatives where campaign_id = any($1::uuid[])', [ids]);
            await db.query('delete from public.campaigns where id = any($1::uuid[])', [ids]);
          }
        });

      it("an impression earns its cost times the publisher's share, to the micro-dollar, and is billed at that", async () => {
        expect(await one<number>(db, 'select public.sdk_publisher_revenue(12346, p) as v from public.pricing_settings p')).toBe(
          Math.round(12346 * revenueShare),
        );
        const billed = await scenario(db, async (tx) => {
          await onlyCampaign(tx);
          await asSdk(tx, app);
          const ad = await serve(tx, app.placements.floating_video);
          await servedAgo(tx, app, 5);
          await record(tx, [{ id: 'imp', kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE }]);
          await asOwner(tx);
          const [row] = await tx.query<{ cost_micro: number; revenue_micro: number }>(
            'select cost_micro, revenue_micro from public.ad_decisions where id = $1',
            [ad.decision_id],
          );
          const [counted] = await tx.query<{ revenue_micro: number; cost_micro: number }>(
            'select sum(revenue_micro)::bigint as revenue_micro, sum(cost_micro)::bigint as cost_micro from public.ad_traffic_counts where app_id = $1 and impressions > 0',
            [app.appId],
          );
          return { row, counted };
        });
        const price = Math.round(cost.floating_video * 1e6);
        const revenue = Math.round(price * revenueShare);
        expect(billed.row).toEqual({ cost_micro: price, revenue_micro: revenue });
        expect(billed.counted).toEqual({ cost_micro: price, revenue_micro: revenue });
      });
    });

    describe('the compositions', () => {
      it('sdk_serve_ad fills, caps, paces and draws, remembers who asked, and counts what it promised for the roll-up, writing no counter', async () => {
        const result = await scenario(db, async (tx) => {
          await asOwner(tx);
          await tx.exec("update public.campaigns set status = 'paused'");
          const small = await addCampaign(tx, { advertiser: 'Small', budget: 1000, cap: 2, formats: ['tooltip', 'sponsored_card'] });
          const large = await addCampaign(tx, { advertiser: 'Large', budget: 3000, cap: 100, keywords: ['notes'], formats: ['tooltip', 'sponsored_card'] });
          // Alone on its format, a micro-dollar short of its paced budget.
          const near = await addCampaign(tx, { advertiser: 'Near', budget: 50, formats: ['inline_text'] });
          await setCounter(tx, app, `budget:${near.id}`, TODAY, 'ceil(public.sdk_paced_budget_micro(50000000, public.sdk_day_share(now()))) - 1');
          await tx.query('select setseed(0.25)');
          const countersBefore = await allCounters(tx, app);
          await asSdk(tx, app);

          // One fill, as it answers and writes it.
          const first = await serve(tx, app.placements.sponsored_card, { session: 'session-1', client: 'client-first' });
          await asOwner(tx);
          const [firstDecision] = await tx.query(
            `select app_id, placement_id, api_key_id, session_id, client_hash, network_hash, campaign_id, creative_id, created_at = now() as now,
                    impression_event_id from public.ad_decisions where id = $1`,
            [first.decision_id],
          );
          const firstCampaign = first.creative_id === small.creatives.sponsored_card ? small : large;

          // A paused placement: a request counted, nothing filled, nothing promised; another app's or no placement: nothing.
          await asSdk(tx, app);
          const paused = await serve(tx, app.paused);
          const nowhere = await serve(tx, '00000000-0000-4000-8000-000000000000');
          await asOwner(tx);
          const [pausedDecision] = await tx.query('select client_hash, campaign_id, creative_id from public.ad_decisions where id = $1', [paused.decision_id]);
          const decisions = await one<number>(tx, 'select count(*)::int as v from public.ad_decisions where app_id = $1', [app.appId]);
          // What each request promised its campaign, for the roll-up to count (public.roll_up_ad_traffic): the fill's price.
          const counts = await tx.query<{ placement_id: string; campaign_id: string | null; requests: number; fills: number; promised_micro: number }>(
            'select placement_id, campaign_id, requests, fills, promised_micro from public.ad_traffic_counts where app_id = $1 order by id',
            [app.appId],
          );

          // One network, a new client each time: the small campaign twice at most (its cap), the large one after.
          await asSdk(tx, app);
          const capped: string[] = [];
          for (let n = 0; n < 30; n++) {
            const ad = await serve(tx, app.placements.tooltip, {
              client: `client-capped-${n}`,
              network: 'network-capped',
              session: n % 2 ? `session-${n}` : null,
            });
            capped.push(ad.creative_id === small.creatives.tooltip ? 'small' : ad.creative_id === large.creatives.tooltip ? 'large' : 'none');
          }

          // Serving wrote no counter: its promises are counted by the roll-up.
          const countersAfter = await allCounters(tx, app);

          // Near its paced budget: the first ad fills, and so does the second until the roll-up counts the first's promise;
          // from then on the promises leave nothing for a third.
          const nearFill = async (client: string) => (await serve(tx, app.placements.inline_text, { client })).creative_id === near.creatives.inline_text;
          const nearFills = [await nearFill('client-near-1'), await nearFill('client-near-2')];
          await rollUp(tx, app);
          nearFills.push(await nearFill('client-near-3'));

          // The draw, by weight: 1,000 against 3,000, and against 9,000 when the large one's keyword is asked for.
          const draws = async (keywords: string[]) => {
            let smallWins = 0;
            for (let n = 0; n < 200; n++) {
              const ad = await serve(tx, app.placements.tooltip, { client: `client-draw-${keywords.join()}-${n}`, keywords });
              if (ad.creative_id === small.creatives.tooltip) smallWins++;
            }
            return smallWins / 200;
          };
          const plain = await draws([]);
          const matching = await draws(['notes']);
          return {
            first,
            firstDecision,
            firstCampaign: firstCampaign.id,
            campaigns: [small.id, large.id],
            paused,
            nowhere,
            pausedDecision,
            decisions,
            counts,
            countersBefore,
            countersAfter,
            near: near.id,
            capped,
            nearFills,
            plain,
            matching,
          };
        });
        expect(result.first).toMatchObject({ found: true, format: 'sponsored_card', advertiser: expect.stringMatching(/^(Small|Large)$/), headline: 'Rules' });
        expect(result.firstDecision).toEqual({
          app_id: app.appId,
          placement_id: app.placements.sponsored_card,
          api_key_id: null,
          session_id: 'session-1',
          client_hash: 'client-first',
          network_hash: 'network of client-first',
          campaign_id: result.firstCampaign,
          creative_id: result.first.creative_id,
          now: true,
          impression_event_id: null,
        });
        expect(result.campaigns).toContain(result.firstCampaign);
        expect(result.paused).toMatchObject({ found: true, format: 'tooltip', creative_id: null });
        // A decision that filled nothing keeps no client (nothing is billed or capped by it).
        expect(result.pausedDecision).toEqual({ client_hash: null, campaign_id: null, creative_id: null });
        expect(result.nowhere).toMatchObject({ found: false, decision_id: null });
        expect(result.decisions).toBe(2);
        // The fill promised the price of a sponsored card to its campaign; the request that did not fill, nothing to no one.
        expect(result.counts).toEqual([
          {
            placement_id: app.placements.sponsored_card,
            campaign_id: result.firstCampaign,
            requests: 1,
            fills: 1,
            promised_micro: Math.round(cost.sponsored_card * 1e6),
          },
          { placement_id: app.paused, campaign_id: null, requests: 1, fills: 0, promised_micro: 0 },
        ]);
        expect(result.countersAfter).toEqual(result.countersBefore);
        expect(Object.keys(result.countersBefore).filter((key) => key.startsWith(`budget:${result.near}@`))).toHaveLength(1);
        expect(result.capped.filter((c) => c === 'small')).toHaveLength(2);
        expect(result.capped.filter((c) => c === 'large')).toHaveLength(28);
        expect(result.nearFills).toEqual([true, true, false]);
        expect(result.plain).toBeGreaterThan(0.15);
        expect(result.plain).toBeLessThan(0.35);
        expect(result.matching).toBeGreaterThan(0.03);
        expect(result.matching).toBeLessThan(0.17);
      });

      it("the draw's layout holds every active campaign of each format, end to end by daily budget, after every change that moves it, and only those", async () => {
        type Slot = { format: string; lo: number; hi: number; campaign_id: string };
        /** The layout as it is, and as the campaigns say it should be (migration 20261212000000_ad_draw), read as the owner. */
        const layouts = async (tx: Transaction) => ({
          held: await tx.query<Slot>('select format, lo::float8 as lo, hi::float8 as hi, campaign_id from public.campaign_draw order by format, lo'),
          due: await tx.query<Slot>(
            `select f.format, (sum(c.daily_budget_micro) over w - c.daily_budget_micro)::float8 as lo, (sum(c.daily_budget_micro) over w)::float8 as hi, c.id as campaign_id
             from public.campaigns c cross join unnest($1::text[]) as f (format)
             where c.status = 'active' and (cardinality(c.formats) = 0 or f.format = any(c.formats))
             window w as (partition by f.format order by c.id rows between unbounded preceding and current row)
             order by 1, 2`,
            // Every format the code knows (the layout's own list must not fall behind it).
            [PLACEMENT_FORMATS],
          ),
        });
        const addresses = async (tx: Transaction) =>
          (await tx.query<{ at: string }>('select ctid::text as at from public.campaign_draw order by 1')).map((r) => r.at);
        const result = await scenario(db, async (tx) => {
          const steps: Record<string, { held: Slot[]; due: Slot[] }> = {};
          steps.seeded = await layouts(tx);
          const a = await onlyCampaign(tx, { budget: 100 });
          steps.paused = await layouts(tx);
          const b = await addCampaign(tx, { budget: 250 });
          await addCampaign(tx, { budget: 999, status: 'draft' });
          steps.added = await layouts(tx);
          await tx.query("update public.campaigns set formats = '{tooltip,inline_text}' where id = $1", [a.id]);
          steps.formats = await layouts(tx);
          await tx.query('update public.campaigns set daily_budget_micro = 40000000 where id = $1', [b.id]);
          steps.budget = await layouts(tx);
          const before = await addresses(tx);
          await tx.query("update public.campaigns set name = 'Renamed', keywords = '{notes}' where id = $1", [b.id]);
          await tx.query("update public.campaigns set daily_budget_micro = 7000000 where status = 'draft'");
          const untouched = (await addresses(tx)).join() === before.join();
          await tx.query("update public.campaigns set status = 'paused' where id = $1", [b.id]);
          steps.pausedAgain = await layouts(tx);
          await tx.query("update public.campaigns set status = 'active' where id = $1", [b.id]);
          await tx.query('delete from public.campaigns where id = $1', [a.id]);
          steps.deleted = await layouts(tx);
          return { steps, untouched, a: a.id, b: b.id };
        });
        for (const [step, { held, due }] of Object.entries(result.steps)) expect(held, step).toEqual(due);
        // Each step was seen: the seed's campaigns, then one, then two (the draft not among them), and so on.
        expect(result.steps.seeded!.held.length).toBeGreaterThan(0);
        expect(result.steps.paused!.held.map((s) => s.campaign_id)).toEqual(FORMATS.map(() => result.a));
        expect(new Set(result.steps.added!.held.map((s) => s.campaign_id))).toEqual(new Set([result.a, result.b]));
        expect(result.steps.formats!.held.filter((s) => s.campaign_id === result.a).map((s) => s.format)).toEqual(['inline_text', 'tooltip']);
        expect(result.steps.budget!.held.find((s) => s.campaign_id === result.b && s.format === 'tooltip')).toMatchObject({ hi: expect.any(Number) });
        expect(result.steps.pausedAgain!.held.map((s) => s.campaign_id)).toEqual(['inline_text', 'tooltip'].map(() => result.a));
        expect(result.steps.deleted!.held.map((s) => s.campaign_id)).toEqual(FORMATS.map(() => result.b));
        expect(result.steps.deleted!.held.map((s) => [s.lo, s.hi])).toEqual(FORMATS.map(() => [0, 40_000_000]));
        // A rename, a keyword or a draft's budget is nothing the layout reads: it was not rewritten.
        expect(result.untouched).toBe(true);
      });

      it('sdk_serve_ad finds the campaign that may fill when the points drawn keep naming one that may not', async () => {
        const result = await scenario(db, async (tx) => {
          // A campaign ten thousand times larger that targets a category this app is not in: nearly every point names it.
          const large = await onlyCampaign(tx, { budget: 1_000_000 });
          await tx.query("update public.campaigns set include_categories = '{finance}' where id = $1", [large.id]);
          const small = await addCampaign(tx, { budget: 100 });
          await asSdk(tx, app);
          const served: (string | null)[] = [];
          for (let n = 0; n < 20; n++) served.push((await serve(tx, app.placements.tooltip, { client: `client-fallback-${n}` })).creative_id);
          return { served, small: small.creatives.tooltip };
        });
        expect(result.served).toEqual(result.served.map(() => result.small));
      });

      it('sdk_record_events bills, refuses and writes: the decisions, the counts, the counters, and the invalid traffic once', async () => {
        const result = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx);
          await asSdk(tx, app);
          const [a, b, v, x] = [
            await serve(tx, app.placements.tooltip),
            await serve(tx, app.placements.sponsored_card),
            await serve(tx, app.placements.floating_video),
            await serve(tx, app.placements.inline_text),
          ];
          await servedAgo(tx, app, 5);
          const before = await allCounters(tx, app);
          const batch: SdkEvent[] = [
            { id: 'a-imp', kind: 'impression', decision_id: a.decision_id, visible_share: 1.2, visible_seconds: 1.5 },
            { id: 'a-clk', kind: 'click', decision_id: a.decision_id },
            // A large sponsored card needs 30%; a text ad's area is no evidence.
            { id: 'b-imp', kind: 'impression', decision_id: b.decision_id, visible_share: 0.31, visible_seconds: 1, area_px: 300_000 },
            { id: 'v-imp', kind: 'impression', decision_id: v.decision_id, ...VIEWABLE },
            { id: 'x-imp', kind: 'impression', decision_id: x.decision_id, visible_share: 0.31, visible_seconds: 1, area_px: 300_000 },
          ];
          const first = verdicts(await record(tx, batch));
          const afterFirst = await allCounters(tx, app);
          const budget = await budgetUsed(tx, app, campaign.id);
          await asOwner(tx);
          const leased = await one<number>(tx, 'select sum(granted)::float8 as v from public.sdk_budget_leases where campaign_id = $1', [campaign.id]);
          await asSdk(tx, app);
          // The same batch again, as a retry sends it: nothing changes.
          const retry = verdicts(await record(tx, batch));
          const afterRetry = await allCounters(tx, app);
          await asOwner(tx);
          const decisions = [];
          for (const ad of [a, b, v, x]) {
            decisions.push(
              ...(await tx.query(
                `select impression_event_id, impressed_at = now() as impressed_now, visible_share::float8, visible_seconds::float8, cost_micro, revenue_micro,
                        click_event_id, clicked_at = now() as clicked_now, click_ip_hash
                 from public.ad_decisions where id = $1`,
                [ad.decision_id],
              )),
            );
          }
          const events = await tx.query(
            'select event_id, placement_id, user_id, decision_id, campaign_id, creative_id, kind, billable, invalid_reason, ip_hash from public.ad_events where app_id = $1',
            [app.appId],
          );
          const counts = await tx.query(
            `select placement_id, campaign_id, sum(requests)::int as requests, sum(fills)::int as fills, sum(impressions)::int as impressions,
                    sum(clicks)::int as clicks, sum(invalid)::int as invalid, sum(revenue_micro)::float8 as revenue_micro, sum(cost_micro)::float8 as cost_micro,
                    sum(promised_micro)::float8 as promised_micro
             from public.ad_traffic_counts where app_id = $1 and campaign_id is not null group by placement_id, campaign_id`,
            [app.appId],
          );
          const today = await one<string>(tx, `select to_char(${TODAY} at time zone 'UTC', 'YYYY-MM-DD HH24:MI') as v`);
          return { first, retry, before, afterFirst, budget, leased, afterRetry, decisions, events, counts, campaign: campaign.id, x, today };
        });
        const micro = (usd: number) => Math.round(usd * 1e6);
        const revenue = (format: Format) => Math.round(micro(cost[format]) * revenueShare);
        expect(result.first).toEqual(['recorded', 'recorded', 'recorded', 'recorded', 'not_viewable']);
        expect(result.retry).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate']);
        // The three billed impressions were debited from the campaign's budget for the day: its one counter, created by the
        // first, holds what this connection's lease took (the batch and, far from the budget, four batches more), and no
        // other counter changed (the hourly caps are the server's, what serving promised is the roll-up's).
        const billedMicro = micro(cost.tooltip) + micro(cost.sponsored_card) + micro(cost.floating_video);
        expect(result.budget).toBe(billedMicro);
        expect(result.leased).toBeGreaterThanOrEqual(billedMicro);
        expect(result.leased).toBeLessThanOrEqual(5 * billedMicro);
        expect(Object.keys(result.before).filter((key) => key.includes(result.campaign))).toEqual([]);
        expect(result.afterFirst).toEqual({ ...result.before, [`budget:${result.campaign}@${result.today}`]: result.leased });
        expect(result.afterRetry).toEqual(result.afterFirst);
        const billed = (id: string, format: Format, share: number, seconds: number) => ({
          impression_event_id: id,
          impressed_now: true,
          visible_share: share,
          visible_seconds: seconds,
          cost_micro: micro(cost[format]),
          revenue_micro: revenue(format),
          click_event_id: null,
          clicked_now: null,
          click_ip_hash: null,
        });
        expect(result.decisions).toEqual([
          // A share above 1 is kept as 1.
          { ...billed('a-imp', 'tooltip', 1, 1.5), click_event_id: 'a-clk', clicked_now: true, click_ip_hash: 'address-1' },
          billed('b-imp', 'sponsored_card', 0.31, 1),
          billed('v-imp', 'floating_video', 0.8, 2.5),
          {
            impression_event_id: null,
            impressed_now: null,
            visible_share: null,
            visible_seconds: null,
            cost_micro: 0,
            revenue_micro: 0,
            click_event_id: null,
            clicked_now: null,
            click_ip_hash: null,
          },
        ]);
        expect(result.events).toEqual([
          {
            event_id: 'x-imp',
            placement_id: app.placements.inline_text,
            user_id: app.userId,
            decision_id: result.x.decision_id,
            campaign_id: result.campaign,
            creative_id: result.x.creative_id,
            kind: 'impression',
            billable: false,
            invalid_reason: 'not_viewable',
            ip_hash: 'address-1',
          },
        ]);
        // Each ad's request, counted by serving with its campaign and what it promised, and what became of it.
        const counted = (format: Format, c: { impressions?: number; clicks?: number; invalid?: number }) => ({
          placement_id: app.placements[format],
          campaign_id: result.campaign,
          requests: 1,
          fills: 1,
          impressions: 0,
          clicks: 0,
          invalid: 0,
          revenue_micro: c.impressions ? revenue(format) : 0,
          cost_micro: c.impressions ? micro(cost[format]) : 0,
          promised_micro: micro(cost[format]),
          ...c,
        });
        const byPlacement = (rows: Row[]) => [...rows].sort((p, q) => String(p.placement_id).localeCompare(String(q.placement_id)));
        expect(byPlacement(result.counts)).toEqual(
          byPlacement([
            counted('tooltip', { impressions: 1, clicks: 1 }),
            counted('sponsored_card', { impressions: 1 }),
            counted('floating_video', { impressions: 1 }),
            counted('inline_text', { invalid: 1 }),
          ]),
        );
      });
    });
  });
}
