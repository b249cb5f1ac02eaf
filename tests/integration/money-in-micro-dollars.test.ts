import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, Queryable, Row } from '@/lib/platform/db/engine';
import { migrate, readMigrations } from '@/lib/platform/db/migrate';
import { testEngines } from '../helpers/db';
import { unseededEngines } from '../helpers/unseeded';

/**
 * Money in one unit (migration 20261214001000_money_in_micro_dollars): every amount of money the
 * schema keeps is a `bigint` of micro-dollars named `…_micro`, as the ledger's always was, so
 * that no function converts between dollars and micro-dollars and no figure is rounded on its
 * way through the database. On both engines:
 *
 * - the catalog of a migrated database has no numeric or floating-point column whose name says
 *   money (a new `…_usd numeric` column fails here), every `…_micro` column is a bigint, and no
 *   column is named in dollars;
 * - a database migrated before the change, holding dollars in every column that changed, comes
 *   out of the migration with each amount exactly a million times as many micro-dollars, and
 *   what the functions compute from them (an impression's price, the draw's layout) is what they
 *   computed in dollars.
 */

/** A column's name says it holds money. */
const MONEY = /usd|micro|price|cpm|budget|amount|revenue|cost|spent|spend|fee|balance|payout|paid|fund|charge|earn|refund|credit|debit|money|dollar/;

/**
 * Numeric columns whose name has a money word in it and that hold no amount of money, each with
 * what it holds. Anything else numeric and money-named fails the test.
 */
const NOT_MONEY: Record<string, string> = {
  'pricing_settings.publisher_ad_revenue_share': 'the publisher’s share of what an ad costs: a fraction from 0 to 1',
  'pricing_settings.publisher_data_revenue_share': 'the publisher’s share of a data sale: a fraction from 0 to 1',
  'pricing_settings.platform_ad_fee': 'the platform’s share of what an ad costs (1 less the publisher’s): a fraction from 0 to 1',
  'pricing_changes.publisher_ad_revenue_share': 'as in pricing_settings: a fraction',
  'pricing_changes.publisher_data_revenue_share': 'as in pricing_settings: a fraction',
  'pricing_changes.platform_ad_fee': 'as in pricing_settings: a fraction',
};

async function rows<T extends Row>(q: Queryable, text: string, params: unknown[] = []): Promise<T[]> {
  return q.query<T>(text, params);
}

for (const engine of testEngines()) {
  describe(`money columns of a migrated database, on ${engine.name}`, () => {
    let db: Engine;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    /** Every column of the schemas our migrations make, with its type. */
    const columns = () =>
      rows<{ name: string; type: string }>(
        db,
        `select c.table_name || '.' || c.column_name as name, c.data_type as type
         from information_schema.columns c join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
         where c.table_schema in ('public', 'auth') and t.table_type = 'BASE TABLE'
         order by 1`,
      );

    it('has no numeric or floating-point column that holds money: amounts are bigint micro-dollars', async () => {
      const decimal = (await columns()).filter((c) => ['numeric', 'real', 'double precision'].includes(c.type));
      expect(decimal.length).toBeGreaterThan(0);
      const money = decimal.filter((c) => MONEY.test(c.name.split('.')[1]!) && !(c.name in NOT_MONEY)).map((c) => `${c.name} ${c.type}`);
      expect(money).toEqual([]);
      // Each exception still names a numeric column: none is left behind by a change.
      expect(Object.keys(NOT_MONEY).filter((name) => !decimal.some((c) => c.name === name))).toEqual([]);
    });

    it('keeps every `…_micro` column as a bigint, and names no column in dollars', async () => {
      const all = await columns();
      const micro = all.filter((c) => c.name.endsWith('_micro'));
      expect(micro.length).toBeGreaterThanOrEqual(40);
      expect(micro.filter((c) => c.type !== 'bigint').map((c) => `${c.name} ${c.type}`)).toEqual([]);
      expect(all.filter((c) => /_usd$/.test(c.name)).map((c) => c.name)).toEqual([]);
    });
  });
}

/** The migrations before money moved to micro-dollars: a database as it was, with dollars in it. */
const BEFORE = readMigrations().filter((m) => m.version < '20261214001000');

for (const engine of unseededEngines(BEFORE)) {
  describe(`dollars converted to micro-dollars by the migration, on ${engine.name}`, () => {
    let db: Engine;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('turns every amount into exactly a million times as many micro-dollars, the largest each column held and sub-cent ones alike', async () => {
      // What a database held in dollars: the finest and the largest each type allows, and ordinary figures.
      const ids = await db.transaction(async (q) => {
        const [user] = await rows<{ id: string }>(q, "insert into public.users (email, name) values ('dollars@micro.test', 'Dollars') returning id");
        const [app] = await rows<{ id: string }>(q, "insert into public.apps (user_id, name, slug) values ($1, 'Dollars', 'dollars') returning id", [user!.id]);
        const [placement] = await rows<{ id: string }>(
          q,
          "insert into public.placements (app_id, user_id, name, format, revenue_usd) values ($1, $2, 'Card', 'sponsored_card', 99999999.999999) returning id",
          [app!.id, user!.id],
        );
        // One campaign with its daily budget alone; one whose lifetime budget and cap set it (public.campaigns_guard).
        const [alone] = await rows<{ id: string }>(
          q,
          "insert into public.campaigns (advertiser, name, status, daily_budget_usd) values ('Dollars', 'Alone', 'active', 1234.56) returning id",
        );
        const [capped] = await rows<{ id: string }>(
          q,
          `insert into public.campaigns (advertiser, name, status, daily_budget_usd, daily_cap_usd, lifetime_budget_usd)
           values ('Dollars', 'Capped', 'active', 1, 0.01, 9999999999.99) returning id`,
        );
        const [creative] = await rows<{ id: string }>(
          q,
          "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'sponsored_card', 'Hi', 'https://micro.test/') returning id",
          [alone!.id],
        );
        await q.query(
          `insert into public.ad_decisions (app_id, placement_id, campaign_id, creative_id, cost_usd, revenue_usd)
           values ($1, $2, $3, $4, 0.012346, 0.008642), ($1, $2, $3, $4, 0.000001, 0)`,
          [app!.id, placement!.id, alone!.id, creative!.id],
        );
        await q.query("insert into public.ad_events (event_id, placement_id, user_id, kind, revenue_usd) values ('e-1', $1, $2, 'impression', 1.000001)", [
          placement!.id,
          user!.id,
        ]);
        await q.query(
          `insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, cost_usd, promised_usd, revenue_usd)
           values ($1, $2, $3, current_date, 0.123457, 99999999.999999, 0.08642)`,
          [app!.id, placement!.id, alone!.id],
        );
        await q.query('insert into public.campaign_daily_spend (campaign_id, day, impressions, spent_usd) values ($1, current_date, 1, 12.345678)', [
          alone!.id,
        ]);
        await q.query(
          'insert into public.campaign_daily_stats (campaign_id, creative_id, app_id, day, impressions, spent_usd) values ($1, $2, $3, current_date, 1, 0.000007)',
          [alone!.id, creative!.id, app!.id],
        );
        await q.query(
          `insert into public.daily_stats (placement_id, user_id, day, revenue_usd, cost_usd, posted_usd, posted_cost_usd)
           values ($1, $2, current_date - 1, 28.000001, 40.000002, 3.5, 5)`,
          [placement!.id, user!.id],
        );
        await q.query(
          "insert into public.payouts (user_id, period, amount_usd, status, rail) values ($1, '2026-01', 999999999999.99, 'pending', 'manual'), ($1, '2026-02', 0.01, 'pending', 'manual')",
          [user!.id],
        );
        // Prices to the hundredth of a cent, one whose thousandth ends in half a micro-dollar; the minimums to the cent.
        const prices = `cpm_floating_video_usd = 999999.9999, cpm_tooltip_usd = 0.0001, cpm_sponsored_card_usd = 1.2345, cpm_inline_text_usd = 5,
                        price_per_ai_interaction_row_usd = 0.0021, price_per_ux_session_recording_usd = 0.05, price_per_gb_bundle_usd = 40,
                        min_payout_usd = 99999999.99, min_top_up_usd = 0.01`;
        await q.query(`update public.pricing_settings set ${prices}`);
        await q.query(
          `insert into public.pricing_changes (effective_at, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
             cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd, price_per_ai_interaction_row_usd,
             price_per_ux_session_recording_usd, price_per_gb_bundle_usd, exclusive_license_multiplier, min_payout_usd, min_top_up_usd,
             data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records, data_seller_min_age_days,
             data_seller_min_ad_days, data_clawback_days, reason, scheduled_by)
           select now() + interval '1 day', 0.7, 0.3, 0.8, 999999.9999, 0.0001, 1.2345, 5, 0.0021, 0.05, 40, 3, 99999999.99, 0.01,
                  0.05, 0.05, 10, 14, 7, 30, 'waiting', $1`,
          [user!.id],
        );
        return { placement: placement!.id, alone: alone!.id, capped: capped!.id };
      });

      expect(await migrate(db)).toContain('20261214001000');

      const one = async <T>(text: string, params: unknown[] = []) => (await rows<{ v: T }>(db, text, params))[0]!.v;
      const byId = (table: string, columns: string) => rows<Record<string, number>>(db, `select ${columns} from public.${table} order by 1`);
      expect(await one<number>('select revenue_micro as v from public.placements where id = $1', [ids.placement])).toBe(99_999_999_999_999);
      expect(await byId('campaigns', 'name, daily_budget_micro, daily_cap_micro, lifetime_budget_micro')).toEqual([
        { name: 'Alone', daily_budget_micro: 1_234_560_000, daily_cap_micro: null, lifetime_budget_micro: null },
        { name: 'Capped', daily_budget_micro: 10_000, daily_cap_micro: 10_000, lifetime_budget_micro: 9_999_999_999_990_000 },
      ]);
      expect(await byId('ad_decisions', 'cost_micro, revenue_micro')).toEqual([
        { cost_micro: 1, revenue_micro: 0 },
        { cost_micro: 12_346, revenue_micro: 8_642 },
      ]);
      expect(await byId('ad_events', 'revenue_micro')).toEqual([{ revenue_micro: 1_000_001 }]);
      expect(await byId('ad_traffic_counts', 'cost_micro, promised_micro, revenue_micro')).toEqual([
        { cost_micro: 123_457, promised_micro: 99_999_999_999_999, revenue_micro: 86_420 },
      ]);
      expect(await byId('campaign_daily_spend', 'spent_micro')).toEqual([{ spent_micro: 12_345_678 }]);
      expect(await byId('campaign_daily_stats', 'spent_micro')).toEqual([{ spent_micro: 7 }]);
      expect(await byId('daily_stats', 'revenue_micro, cost_micro, posted_micro, posted_cost_micro')).toEqual([
        { revenue_micro: 28_000_001, cost_micro: 40_000_002, posted_micro: 3_500_000, posted_cost_micro: 5_000_000 },
      ]);
      expect(await byId('payouts', 'amount_micro')).toEqual([{ amount_micro: 10_000 }, { amount_micro: 999_999_999_999_990_000 }]);
      const prices = {
        cpm_floating_video_micro: 999_999_999_900,
        cpm_tooltip_micro: 100,
        cpm_sponsored_card_micro: 1_234_500,
        cpm_inline_text_micro: 5_000_000,
        price_per_ai_interaction_row_micro: 2_100,
        price_per_ux_session_recording_micro: 50_000,
        price_per_gb_bundle_micro: 40_000_000,
        min_payout_micro: 99_999_999_990_000,
        min_top_up_micro: 10_000,
      };
      const columns = Object.keys(prices).join(', ');
      expect(await byId('pricing_settings', columns)).toEqual([prices]);
      expect(await byId('pricing_changes', columns)).toEqual([prices]);

      // What the functions compute from them is what they computed in dollars: a card's price is its CPM / 1000 to the
      // micro-dollar, half up (round(1.2345 / 1000, 6) = 0.001235), the publisher's 70% of it to the micro-dollar...
      expect(await one<number>("select public.sdk_cost_per_impression('sponsored_card', s) as v from public.pricing_settings s")).toBe(1_235);
      expect(await one<number>("select public.sdk_cost_per_impression('tooltip', s) as v from public.pricing_settings s")).toBe(0);
      expect(await one<number>('select public.sdk_publisher_revenue(1235, s) as v from public.pricing_settings s')).toBe(865);
      // ...and the draw lays the running campaigns out end to end by their daily budgets, in micro-dollars now.
      expect(await rows(db, "select lo::float8 as lo, hi::float8 as hi from public.campaign_draw where format = 'tooltip' order by lo")).toEqual(
        [...[ids.alone, ids.capped].sort()].map((id, i, sorted) => {
          const budget = (c: string) => (c === ids.alone ? 1_234_560_000 : 10_000);
          const lo = sorted.slice(0, i).reduce((n, c) => n + budget(c), 0);
          return { lo, hi: lo + budget(id) };
        }),
      );
      // A new default is in the new unit too: $50.
      expect(
        await one<string>(
          "select column_default as v from information_schema.columns where table_name = 'pricing_settings' and column_name = 'min_top_up_micro'",
        ),
      ).toBe('50000000');
    });
  });
}
