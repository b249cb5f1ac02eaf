import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Row, Transaction } from '../../lib/platform/db/engine';
import { EVENT_REASONS } from '../../lib/schemas/sdk';
import { testEngines } from '../helpers/db';

/**
 * The money path's rules one by one, in SQL, on every engine (migration 20261129000000, each rule
 * in supabase/schemas/functions/): pacing, the frequency cap, once per ad, click after impression,
 * one click per address and ad in 3 hours, and the reasons an event is invalid traffic. A rule
 * that reads nothing is called directly with the facts it decides on; each is then shown at work
 * in `sdk_serve_ad` or `sdk_record_events`, called as the app's SDK role the way lib/sdk/access.ts
 * calls them (`request.jwt.claims` and the role `sdk`, set for the transaction). Every scenario
 * runs in a transaction that is rolled back, so none sees another's campaigns or decisions.
 */

const FORMATS = ['floating_video', 'tooltip', 'sponsored_card', 'inline_text'] as const;
type Format = (typeof FORMATS)[number];
const VIEWABLE = { visible_share: 0.8, visible_seconds: 2.5 };
/** Decided in Node from the token, before any SQL (lib/sdk/events.ts). */
const TOKEN_REASONS = ['invalid_token', 'expired_token', 'wrong_app'];

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

/** From here to the end of the transaction (or `asOwner`), the app's SDK role, as lib/sdk/access.ts runs it. */
async function asSdk(tx: Transaction, app: App): Promise<void> {
  await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'sdk', true)", [
    JSON.stringify({ role: 'sdk', app_id: app.appId, user_id: app.userId }),
  ]);
}

/** Back to the connection's own role (the owner of everything, past row-level security), to arrange or inspect. */
async function asOwner(tx: Transaction): Promise<void> {
  await tx.exec('set local role none');
}

async function one<T = unknown>(q: Transaction | Engine, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

interface Served extends Row {
  found: boolean;
  decision_id: string;
  creative_id: string | null;
}

function serve(tx: Transaction, placement: string, session: string | null = null, keywords: string[] = [], fn = 'sdk_serve_ad'): Promise<Served> {
  return tx.query<Served>(`select * from public.${fn}($1::uuid, $2, $3::text[], null)`, [placement, session, keywords]).then((rows) => rows[0]!);
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

function record(tx: Transaction, events: SdkEvent[], ip: string | null = 'address-1', bot = false, fn = 'sdk_record_events'): Promise<Outcome[]> {
  const numbered = events.map((e, n) => ({ n, ...e }));
  return tx.query<Outcome>(`select * from public.${fn}($1::jsonb, $2, $3) order by n`, [numbered, ip, bot]);
}

/** The outcome of each event, as the API shows it: the reason when there is one, else the status. */
const verdicts = (rows: Outcome[]) => rows.map((r) => r.reason ?? r.outcome);

/**
 * Leaves one campaign able to serve (the seed's are paused, in this transaction only), with one
 * creative per format, and answers its id and creatives.
 */
async function onlyCampaign(
  tx: Transaction,
  campaign: { budget?: number; cap?: number; keywords?: string[]; status?: string; starts?: string; ends?: string | null } = {},
): Promise<{ id: string; creatives: Record<Format, string> }> {
  await tx.exec("update public.campaigns set status = 'paused'");
  const id = await one<string>(
    tx,
    `insert into public.campaigns (advertiser, name, status, daily_budget_usd, frequency_cap, keywords, starts_at, ends_at)
     values ('Rules Test', 'Only one', $1, $2, $3, $4::text[], coalesce($5::timestamptz, now()), $6::timestamptz) returning id as v`,
    [campaign.status ?? 'active', campaign.budget ?? 240, campaign.cap ?? 3, campaign.keywords ?? [], campaign.starts ?? null, campaign.ends ?? null],
  );
  const creatives = {} as Record<Format, string>;
  for (const format of FORMATS) {
    creatives[format] = await one<string>(
      tx,
      "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, $2, 'Rules', 'https://rules.example/') returning id as v",
      [id, format],
    );
  }
  return { id, creatives };
}

/** A decision of the app, written as the owner with what a test needs (a creative, a session, when). */
async function decision(
  tx: Transaction,
  app: App,
  d: { creative: string | null; campaign?: string | null; session?: string | null; createdAt?: string; clickedAt?: string; ip?: string },
): Promise<string> {
  return one<string>(
    tx,
    `insert into public.ad_decisions (app_id, placement_id, session_id, campaign_id, creative_id, created_at,
                                      impression_event_id, impressed_at, click_event_id, clicked_at, click_ip_hash)
     values ($1, $2, $3, $4, $5, coalesce($6::timestamptz, now()),
             case when $7::timestamptz is null then null else 'imp-' || gen_random_uuid() end, $7::timestamptz,
             case when $7::timestamptz is null then null else 'clk-' || gen_random_uuid() end, $7::timestamptz, $8)
     returning id as v`,
    [app.appId, app.placements.tooltip, d.session ?? null, d.campaign ?? null, d.creative, d.createdAt ?? null, d.clickedAt ?? null, d.ip ?? null],
  );
}

/** The function of migration 20261125000000, before the split, under another name. */
function functionBeforeSplit(name: 'sdk_serve_ad' | 'sdk_record_events'): string {
  const migration = readFileSync(path.join(process.cwd(), 'supabase/migrations/20261125000000_sdk_money_path.sql'), 'utf8');
  const start = migration.indexOf(`create function public.${name}(`);
  const end = migration.indexOf('end $$;', start);
  if (start < 0 || end < 0) throw new Error(`${name} not found in the money path's migration`);
  return migration.slice(start, end + 'end $$;'.length).replace(`public.${name}(`, `public.${name}_before_split(`);
}

for (const engine of testEngines()) {
  describe(`the money path's rules on ${engine.name}`, () => {
    let db: Engine;
    let app: App;

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
    });
    afterAll(async () => {
      await db?.close();
    });

    describe('as functions', () => {
      // One use of each rule, as its caller writes it: planned, each must be gone, its text in its place.
      const USES: Record<string, string> = {
        sdk_campaign_running: 'select public.sdk_campaign_running(c.status, c.starts_at, c.ends_at, now()) from public.campaigns c',
        sdk_day_share: 'select public.sdk_day_share(c.created_at) from public.campaigns c',
        sdk_paced_budget_usd: 'select public.sdk_paced_budget_usd(c.daily_budget_usd, 0.5) from public.campaigns c',
        sdk_paced_budget_left: 'select public.sdk_paced_budget_left(s.spent_usd, 100, 0.5) from public.campaign_daily_spend s',
        sdk_session_fills: "select (select count(*) from public.sdk_session_fills(c.id, 'session', c.id, now())) from public.campaigns c",
        sdk_under_frequency_cap: "select public.sdk_under_frequency_cap('session', 1, c.frequency_cap) from public.campaigns c",
        sdk_draw_weight: "select public.sdk_draw_weight(c.daily_budget_usd, c.keywords, '{notes}') from public.campaigns c",
        sdk_publisher_revenue: 'select public.sdk_publisher_revenue(0.01, p) from public.pricing_settings p',
        sdk_already_counted: "select public.sdk_already_counted('click', d.impression_event_id, d.click_event_id) from public.ad_decisions d",
        sdk_click_before_impression: "select public.sdk_click_before_impression('click', d.impression_event_id) from public.ad_decisions d",
        sdk_recent_clicks: "select exists (select 1 from public.sdk_recent_clicks(cr.id, 'address', now())) from public.creatives cr",
        sdk_invalid_reason: "select public.sdk_invalid_reason('click', false, true, d.impression_event_id, d.click_event_id, false) from public.ad_decisions d",
        // The two rules of migration 20261125000000, on the hot path as well.
        sdk_viewable: 'select public.sdk_viewable(d.visible_share::text, d.visible_share, d.visible_seconds, 1) from public.ad_decisions d',
        sdk_cost_per_impression: 'select public.sdk_cost_per_impression(pl.format, p) from public.pricing_settings p, public.placements pl',
      };
      /** The rules of migration 20261129000000; the two older ones stayed executable by everyone (they read nothing). */
      const NEW_RULES = Object.keys(USES).filter((rule) => rule !== 'sdk_viewable' && rule !== 'sdk_cost_per_impression');

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
        for (const [rule, plan] of Object.entries(plans)) expect(plan, `${rule} was not inlined:\n${plan}`).not.toContain(rule);
        // The rules are all there: a rule added later gets its use here too.
        const rules = await db.query<{ proname: string }>(
          `select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public' and p.prolang = (select oid from pg_language where lanname = 'sql') and p.proname like 'sdk\\_%'
             and p.proname not in ('sdk_key', 'sdk_app_id', 'sdk_user_id')
           order by 1`,
        );
        expect(rules.map((r) => r.proname)).toEqual(Object.keys(USES).sort());
      });

      it('each rule may be called by the SDK role and by no request role else', async () => {
        const rows = await db.query<{ rule: string; sdk: boolean; anon: boolean; authenticated: boolean; public: boolean }>(
          `select p.proname as rule, has_function_privilege('sdk', p.oid, 'execute') as sdk, has_function_privilege('anon', p.oid, 'execute') as anon,
                  has_function_privilege('authenticated', p.oid, 'execute') as authenticated,
                  exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a where a.grantee = 0) as public
           from pg_proc p join pg_namespace n on n.oid = p.pronamespace
           where n.nspname = 'public' and p.proname = any($1::text[]) order by 1`,
          [NEW_RULES],
        );
        expect(rows).toEqual([...NEW_RULES].sort().map((rule) => ({ rule, sdk: true, anon: false, authenticated: false, public: false })));
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
        expect(await running('ended', '2026-11-26T11:00:00Z', null)).toBe(false);
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

      it('pacing: the paced budget is the budget times the day gone by, plus an hour, never more than the budget', async () => {
        const paced = (budget: number, share: number) => one<number>(db, 'select public.sdk_paced_budget_usd($1, $2) as v', [budget, share]);
        expect(await paced(240, 0)).toBe(10);
        expect(await paced(240, 0.5)).toBe(130);
        expect(await paced(240, 23 / 24)).toBe(240);
        expect(await paced(240, 0.99)).toBe(240);
        const left = (spent: number | null, share: number) => one<boolean>(db, 'select public.sdk_paced_budget_left($1, 240, $2) as v', [spent, share]);
        expect(await left(null, 0)).toBe(true);
        expect(await left(9.99, 0)).toBe(true);
        expect(await left(10.01, 0)).toBe(false);
        expect(await left(129.99, 0.5)).toBe(true);
        expect(await left(130.01, 0.5)).toBe(false);
        expect(await left(239.99, 0.99)).toBe(true);
        expect(await left(240, 0.99)).toBe(false);
      });

      it("pacing at work: an ad is served while today's spend is below the paced budget, and not at it", async () => {
        const fills = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx, { budget: 240 });
          // Spend is kept to the millionth: just below the paced budget, and the paced budget rounded up.
          const paced = 'public.sdk_paced_budget_usd(240, public.sdk_day_share(now()))';
          const spend = (usd: string) =>
            tx.query(
              `insert into public.campaign_daily_spend (campaign_id, day, spent_usd) values ($1, (now() at time zone 'UTC')::date, ${usd})
               on conflict (campaign_id, day) do update set spent_usd = excluded.spent_usd`,
              [campaign.id],
            );
          const filled = async () => {
            await asSdk(tx, app);
            const ad = await serve(tx, app.placements.tooltip);
            await asOwner(tx);
            return ad.creative_id === campaign.creatives.tooltip;
          };
          const answers: boolean[] = [await filled()];
          await spend(`floor(${paced} * 1e6) / 1e6 - 0.000001`);
          answers.push(await filled());
          await spend(`ceil(${paced} * 1e6) / 1e6`);
          answers.push(await filled());
          // Spend of another day does not count against today's.
          await tx.query('update public.campaign_daily_spend set day = day - 1 where campaign_id = $1', [campaign.id]);
          answers.push(await filled());
          return answers;
        });
        expect(fills).toEqual([true, true, false, true]);
      });

      it('a campaign that is paused, not started or ended serves nothing; running, it serves', async () => {
        const served = await scenario(db, async (tx) => {
          const answers: Record<string, boolean> = {};
          for (const [name, campaign] of Object.entries({
            running: {},
            paused: { status: 'paused' },
            'not started': { starts: new Date(Date.now() + 3_600_000).toISOString() },
            ended: { starts: '2026-01-01T00:00:00Z', ends: '2026-01-02T00:00:00Z' },
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
        expect(served).toEqual({ running: true, paused: false, 'not started': false, ended: false });
      });

      it('frequency cap: fewer fills than the cap per session, and a request without a session is not capped', async () => {
        const under = (session: string | null, fills: number, cap: number) =>
          one<boolean>(db, 'select public.sdk_under_frequency_cap($1, $2, $3) as v', [session, fills, cap]);
        expect(await under('session-1', 0, 1)).toBe(true);
        expect(await under('session-1', 2, 3)).toBe(true);
        expect(await under('session-1', 3, 3)).toBe(false);
        expect(await under('session-1', 4, 3)).toBe(false);
        expect(await under(null, 100, 1)).toBe(true);
      });

      it("frequency cap: a session's fills are its app's decisions filled by the campaign in the last 24 hours", async () => {
        const counted = await scenario(db, async (tx) => {
          const campaign = await onlyCampaign(tx);
          const other = await onlyCampaign(tx);
          const at = (hoursAgo: number) => `now() - interval '${hoursAgo} hours'`;
          const made = async (session: string, campaignId: string, hoursAgo: number) =>
            decision(tx, app, {
              creative: campaign.creatives.tooltip,
              campaign: campaignId,
              session,
              createdAt: await one<string>(tx, `select (${at(hoursAgo)})::text as v`),
            });
          const inside = [await made('capped', campaign.id, 0), await made('capped', campaign.id, 23.9)];
          await made('capped', campaign.id, 24.1);
          await made('capped', other.id, 1);
          await made('another session', campaign.id, 1);
          const fills = (appId: string, session: string | null) =>
            tx.query<{ id: string }>('select f as id from public.sdk_session_fills($1, $2, $3, now()) f order by 1', [appId, session, campaign.id]);
          return {
            inside: inside.sort(),
            found: (await fills(app.appId, 'capped')).map((r) => r.id),
            otherApp: await fills('00000000-0000-4000-8000-000000000000', 'capped'),
            noSession: await fills(app.appId, null),
          };
        });
        expect(counted.found).toEqual(counted.inside);
        expect(counted.otherApp).toEqual([]);
        expect(counted.noSession).toEqual([]);
      });

      it('frequency cap at work: a session stops getting the campaign at its cap, others and sessionless requests do not', async () => {
        const answers = await scenario(db, async (tx) => {
          const { creatives } = await onlyCampaign(tx, { cap: 2 });
          await asSdk(tx, app);
          const filled = async (session: string | null) => (await serve(tx, app.placements.sponsored_card, session)).creative_id === creatives.sponsored_card;
          return [
            await filled('cap-a'),
            await filled('cap-a'),
            await filled('cap-a'),
            await filled('cap-b'),
            await filled(null),
            await filled(null),
            await filled(null),
          ];
        });
        expect(answers).toEqual([true, true, false, true, true, true, true]);
      });

      it("the draw's weight is the daily budget, tripled when a keyword matches", async () => {
        const weight = (keywords: string[], requested: string[] | null) =>
          one<number>(db, 'select public.sdk_draw_weight(100, $1::text[], $2::text[]) as v', [keywords, requested]);
        expect(await weight(['writing', 'notes'], ['notes'])).toBe(300);
        expect(await weight(['writing'], ['music'])).toBe(100);
        expect(await weight(['writing'], null)).toBe(100);
        expect(await weight([], ['writing'])).toBe(100);
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
          await record(
            tx,
            ads.map((ad, i) => ({ id: `imp-${i}`, kind: 'impression' as const, decision_id: ad.decision_id, ...VIEWABLE })),
          );
          const click = (i: number, ip: string) => record(tx, [{ id: `clk-${i}`, kind: 'click', decision_id: ads[i]!.decision_id }], ip);
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

      it('the reasons: the first counting rule an event fails, in the documented order', async () => {
        const reason = (kind: string, f: { bot?: boolean; viewable?: boolean; impression?: string | null; click?: string | null; repeat?: boolean }) =>
          one<string | null>(db, 'select public.sdk_invalid_reason($1, $2, $3, $4, $5, $6) as v', [
            kind,
            f.bot ?? false,
            f.viewable ?? true,
            f.impression ?? null,
            f.click ?? null,
            f.repeat ?? false,
          ]);
        // Each rule alone.
        expect(await reason('impression', {})).toBeNull();
        expect(await reason('click', { impression: 'i' })).toBeNull();
        expect(await reason('impression', { bot: true })).toBe('bot');
        expect(await reason('impression', { viewable: false })).toBe('not_viewable');
        expect(await reason('impression', { impression: 'i' })).toBe('already_counted');
        expect(await reason('click', { impression: 'i', click: 'c' })).toBe('already_counted');
        expect(await reason('click', {})).toBe('no_impression');
        expect(await reason('click', { impression: 'i', repeat: true })).toBe('repeat_click');
        // Viewability is about impressions, the 3-hour rule about clicks.
        expect(await reason('click', { impression: 'i', viewable: false })).toBeNull();
        expect(await reason('impression', { repeat: true })).toBeNull();
        // The first that applies wins.
        expect(await reason('impression', { bot: true, viewable: false, impression: 'i' })).toBe('bot');
        expect(await reason('impression', { viewable: false, impression: 'i' })).toBe('not_viewable');
        expect(await reason('click', { bot: true, repeat: true })).toBe('bot');
        expect(await reason('click', { repeat: true })).toBe('no_impression');
        expect(await reason('click', { impression: 'i', click: 'c', repeat: true })).toBe('already_counted');
      });

      it('the reasons SQL gives, with the token checks made in Node, are exactly those the API documents', async () => {
        const produced = await db.query<{ reason: string }>(
          `select distinct public.sdk_invalid_reason(kind, bot, viewable, impression, click, repeat) as reason
           from unnest(array['impression', 'click']) kind, unnest(array[true, false]) bot, unnest(array[true, false]) viewable,
                unnest(array['i', null]) impression, unnest(array['c', null]) click, unnest(array[true, false]) repeat`,
        );
        const reasons = produced.map((r) => r.reason).filter((r) => r !== null);
        // unknown_decision is the composition's own: there is no decision to apply the rules to.
        expect([...reasons, 'unknown_decision', ...TOKEN_REASONS].sort()).toEqual([...EVENT_REASONS].sort());
      });

      it('each reason at work: recorded as invalid traffic with its reason, never billed; unknown decisions without a row', async () => {
        const result = await scenario(db, async (tx) => {
          await onlyCampaign(tx);
          await asSdk(tx, app);
          const ad = async () => (await serve(tx, app.placements.sponsored_card)).decision_id;
          const [a, b, c, d, e] = [await ad(), await ad(), await ad(), await ad(), await ad()];
          const unfilled = (await serve(tx, app.paused)).decision_id;
          const answers = [
            ...verdicts(await record(tx, [{ id: 'bot-imp', kind: 'impression', decision_id: a, ...VIEWABLE }], 'address-1', true)),
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
              ]),
            ),
          ];
          await asOwner(tx);
          const rows = await tx.query<{ event_id: string; invalid_reason: string; billable: boolean }>(
            'select event_id, invalid_reason, billable from public.ad_events where app_id = $1 order by event_id',
            [app.appId],
          );
          return { answers, rows };
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
        ]);
        expect(result.rows).toEqual([
          { event_id: 'bot-imp', invalid_reason: 'bot', billable: false },
          { event_id: 'click-d', invalid_reason: 'no_impression', billable: false },
          { event_id: 'click-e', invalid_reason: 'repeat_click', billable: false },
          { event_id: 'glimpse', invalid_reason: 'not_viewable', billable: false },
          { event_id: 'imp-c-again', invalid_reason: 'already_counted', billable: false },
        ]);
      });

      it("an impression earns its cost times the publisher's share, to the millionth, and is billed at that", async () => {
        const [pricing] = await db.query<{ share: number; cpm: number }>(
          'select publisher_ad_revenue_share as share, cpm_floating_video_usd as cpm from public.pricing_settings',
        );
        expect(await one<number>(db, 'select public.sdk_publisher_revenue(0.0123456, p) as v from public.pricing_settings p')).toBe(
          Math.round(0.0123456 * pricing!.share * 1e6) / 1e6,
        );
        const billed = await scenario(db, async (tx) => {
          await onlyCampaign(tx);
          await asSdk(tx, app);
          const ad = await serve(tx, app.placements.floating_video);
          await record(tx, [{ id: 'imp', kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE }]);
          await asOwner(tx);
          const [row] = await tx.query<{ cost_usd: number; revenue_usd: number }>('select cost_usd, revenue_usd from public.ad_decisions where id = $1', [
            ad.decision_id,
          ]);
          const [counted] = await tx.query<{ revenue_usd: number; cost_usd: number }>(
            'select sum(revenue_usd)::numeric as revenue_usd, sum(cost_usd)::numeric as cost_usd from public.ad_traffic_counts where app_id = $1 and impressions > 0',
            [app.appId],
          );
          return { row, counted };
        });
        const cost = Math.round((pricing!.cpm / 1000) * 1e6) / 1e6;
        const revenue = Math.round(cost * pricing!.share * 1e6) / 1e6;
        expect(billed.row).toEqual({ cost_usd: cost, revenue_usd: revenue });
        expect(billed.counted).toEqual({ cost_usd: cost, revenue_usd: revenue });
      });
    });

    describe('the split changes nothing', () => {
      // These compare the compositions with the functions of migration 20261125000000, which they
      // replaced: same answers and same rows written, for the same requests. When a rule changes
      // on purpose, this block has done its work: delete it.

      /** What `fn` answers for the ad requests, and every row they wrote, ids aside. */
      async function servedBy(tx: Transaction, fn: string) {
        await asOwner(tx);
        await tx.query('select setseed(0.25)');
        await asSdk(tx, app);
        const answers: Row[] = [];
        const requests: [Format, string | null, string[]][] = [];
        for (let i = 0; i < 6; i++) {
          for (const format of FORMATS) requests.push([format, i % 3 === 0 ? null : `session-${i % 2}`, i % 2 ? ['notes'] : []]);
        }
        for (const [format, session, keywords] of requests) answers.push(await serve(tx, app.placements[format], session, keywords, fn));
        answers.push(await serve(tx, app.paused, 'session-1', [], fn));
        await asOwner(tx);
        const decisions = [];
        for (const a of answers) {
          decisions.push(
            ...(await tx.query(
              'select placement_id, api_key_id, session_id, campaign_id, creative_id, created_at, impression_event_id from public.ad_decisions where id = $1',
              [a.decision_id],
            )),
          );
        }
        const counts = await tx.query(
          'select placement_id, campaign_id, api_key_id, day, requests, fills, impressions, clicks, revenue_usd, cost_usd from public.ad_traffic_counts where app_id = $1 order by id',
          [app.appId],
        );
        const withoutIds = answers.map((a) => Object.fromEntries(Object.entries(a).filter(([column]) => column !== 'decision_id')));
        return { answers: withoutIds, decisions, counts };
      }

      it('sdk_serve_ad fills, caps, paces and draws as before', async () => {
        const compared = await scenario(db, async (tx) => {
          await tx.exec(functionBeforeSplit('sdk_serve_ad'));
          await tx.exec('grant execute on function public.sdk_serve_ad_before_split(uuid, text, text[], uuid) to sdk');
          // Three campaigns of the seed, one more with keywords near its paced budget, one ended.
          const campaign = await one<string>(
            tx,
            "insert into public.campaigns (advertiser, name, daily_budget_usd, frequency_cap, keywords) values ('Near pace', 'Near', 50, 2, '{notes}') returning id as v",
          );
          await tx.query(
            `insert into public.campaign_daily_spend (campaign_id, day, spent_usd)
             values ($1, (now() at time zone 'UTC')::date, public.sdk_paced_budget_usd(50, public.sdk_day_share(now())) - 0.001)`,
            [campaign],
          );
          await tx.query(
            "insert into public.creatives (campaign_id, format, headline, landing_url) select $1, f, 'Near', 'https://near.example/' from unnest($2::text[]) f",
            [campaign, FORMATS],
          );
          await tx.exec('savepoint before_either');
          const after = await servedBy(tx, 'sdk_serve_ad');
          await tx.exec('rollback to savepoint before_either');
          const before = await servedBy(tx, 'sdk_serve_ad_before_split');
          return { after, before };
        });
        expect(compared.after.answers.filter((a) => a.creative_id).length).toBeGreaterThan(10);
        expect(compared.after.answers.filter((a) => a.found && !a.creative_id).length).toBeGreaterThan(0);
        expect(compared.after).toEqual(compared.before);
      });

      /** What `fn` answers for the batches, and what it wrote on the decisions, events and counts. */
      async function recordedBy(tx: Transaction, fn: string, decisions: string[]) {
        await asSdk(tx, app);
        const [a, b, c, d, e, f, g, h, unfilled] = decisions as [string, string, string, string, string, string, string, string, string];
        const answers = [
          await record(
            tx,
            [
              { id: 'a-imp', kind: 'impression', decision_id: a, ...VIEWABLE },
              { id: 'a-clk', kind: 'click', decision_id: a },
              { id: 'b-imp', kind: 'impression', decision_id: b, visible_share: 0.31, visible_seconds: 1, area_px: 300_000 },
              { id: 'c-imp', kind: 'impression', decision_id: c, visible_share: 0.31, visible_seconds: 1 },
              { id: 'd-imp', kind: 'impression', decision_id: d, ...VIEWABLE },
              { id: 'd-imp', kind: 'impression', decision_id: d, ...VIEWABLE },
              { id: 'd-imp-2', kind: 'impression', decision_id: d, ...VIEWABLE },
              { id: 'e-clk', kind: 'click', decision_id: e },
              { id: 'f-imp', kind: 'impression', decision_id: f },
              { id: 'g-imp', kind: 'impression', decision_id: g, ...VIEWABLE },
              { id: 'g-imp', kind: 'click', decision_id: g },
              { id: 'x-imp', kind: 'impression', decision_id: unfilled, ...VIEWABLE },
            ],
            'address-1',
            false,
            fn,
          ),
          await record(
            tx,
            [
              { id: 'a-imp', kind: 'impression', decision_id: a, ...VIEWABLE },
              { id: 'b-clk', kind: 'click', decision_id: b },
              { id: 'd-clk', kind: 'click', decision_id: d },
              { id: 'c-imp', kind: 'impression', decision_id: c, ...VIEWABLE },
              { id: 'e-imp', kind: 'impression', decision_id: e, ...VIEWABLE },
              { id: 'e-clk-2', kind: 'click', decision_id: e },
              { id: 'a-clk-2', kind: 'click', decision_id: a },
            ],
            'address-1',
            false,
            fn,
          ),
          await record(tx, [{ id: 'e-clk-3', kind: 'click', decision_id: e }], 'address-2', false, fn),
          await record(
            tx,
            [
              { id: 'h-imp', kind: 'impression', decision_id: h, ...VIEWABLE },
              { id: 'h-clk', kind: 'click', decision_id: h },
            ],
            'address-3',
            true,
            fn,
          ),
          await record(tx, [{ id: 'h-imp', kind: 'impression', decision_id: h, ...VIEWABLE }], null, false, fn),
        ];
        await asOwner(tx);
        const rows = [];
        for (const id of decisions) {
          rows.push(
            ...(await tx.query(
              `select impression_event_id, impressed_at, visible_share, visible_seconds, cost_usd, revenue_usd, click_event_id, clicked_at, click_ip_hash
               from public.ad_decisions where id = $1`,
              [id],
            )),
          );
        }
        const events = await tx.query(
          `select event_id, placement_id, user_id, decision_id, campaign_id, creative_id, kind, billable, invalid_reason, ip_hash, revenue_usd
           from public.ad_events where app_id = $1 order by event_id, kind`,
          [app.appId],
        );
        const counts = await tx.query(
          'select placement_id, campaign_id, day, requests, fills, impressions, clicks, revenue_usd, cost_usd from public.ad_traffic_counts where app_id = $1 order by id',
          [app.appId],
        );
        return { answers, rows, events, counts };
      }

      it('sdk_record_events counts, refuses and writes as before', async () => {
        const compared = await scenario(db, async (tx) => {
          await tx.exec(functionBeforeSplit('sdk_record_events'));
          await tx.exec('grant execute on function public.sdk_record_events_before_split(jsonb, text, boolean) to sdk');
          // One campaign, so that every ad of a format is the same creative: the 3-hour rule applies.
          await onlyCampaign(tx);
          await asSdk(tx, app);
          const decisions = [];
          for (const format of ['tooltip', 'sponsored_card', 'tooltip', 'inline_text', 'inline_text', 'tooltip', 'sponsored_card', 'floating_video'] as const) {
            decisions.push((await serve(tx, app.placements[format])).decision_id);
          }
          decisions.push((await serve(tx, app.paused)).decision_id);
          await asOwner(tx);
          await tx.exec('savepoint before_either');
          const after = await recordedBy(tx, 'sdk_record_events', decisions);
          await tx.exec('rollback to savepoint before_either');
          const before = await recordedBy(tx, 'sdk_record_events_before_split', decisions);
          return { after, before };
        });
        const outcomes = new Set(compared.after.answers.flat().map((r) => r.reason ?? r.outcome));
        expect([...outcomes].sort()).toEqual([
          'already_counted',
          'bot',
          'duplicate',
          'no_impression',
          'not_viewable',
          'recorded',
          'repeat_click',
          'unknown_decision',
        ]);
        expect(compared.after).toEqual(compared.before);
      });
    });
  });
}
