import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { createApp, createPlacement } from '@/lib/publisher/writes';
import { saveBuyerProfile } from '@/lib/data/buyers/account';
import { quoteLicense } from '@/lib/data/buyers/catalog';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import { pricingForm } from '@/lib/ops/forms';
import { DATA_MARKET_FIELDS, PRICING_FIELDS, pricingChange, schedulePricing, staffPricing, type PricingColumns } from '@/lib/ops/pricing';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import { migrate, readMigrations } from '@/lib/platform/db/migrate';
import { asService } from '@/lib/platform/db/roles';
import { DEFAULT_DATA_MARKET, DEFAULT_MIN_TOP_UP_USD, DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { readPricingSettings } from '@/lib/money/pricing/settings';
import { dataJobsRoute } from '@/lib/routes/cron';
import { adBody } from '@/lib/schemas/sdk';
import { applyDuePricing, rollUp, scheduleRollUps } from '@/lib/ads/serving/rollup';
import type { Services } from '@/lib/services';
import { establishedPublisher } from '../helpers/data-market';
import { UNLIMITED } from '../helpers/db';
import { giveFinalEarnings } from '../helpers/payouts';
import { rawAsAnon, rawAsService, rawAsUser } from '../helpers/roles';
import { handlersOf } from '../helpers/routes';
import { newKey, sdk, servedSecondsAgo } from '../helpers/sdk';
import { bound, makeServices, setTestServices } from '../helpers/services';
import { unseededEngines } from '../helpers/unseeded';

/**
 * Pricing in a production deployment (issue 39, finding 8), on every engine, on a database as
 * production starts it: migrated, never seeded. The pricing row used to come from the demo seed
 * alone, so such a database answered `live: false` forever and priced every impression, license,
 * top-up and payout minimum at NULL. Migration 20261213000100_pricing_in_production writes the
 * published defaults; staff change them from /ops, effective now or later, audited, and never
 * reaching what was billed before.
 */

const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };
const DENIED = /permission denied|insufficient_privilege|staff only|row-level security/i;

async function one<T>(q: Queryable, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(text, params);
  return row!.v;
}

/** The defaults of lib/money/pricing/defaults.ts by column, as a change sets them. */
const DEFAULT_COLUMNS: PricingColumns = {
  publisher_ad_revenue_share: DEFAULT_PRICING.publisher_ad_revenue_share,
  platform_ad_fee: DEFAULT_PRICING.platform_ad_fee,
  publisher_data_revenue_share: DEFAULT_PRICING.publisher_data_revenue_share,
  cpm_floating_video_usd: DEFAULT_PRICING.advertiser_cpm_usd.floating_video,
  cpm_tooltip_usd: DEFAULT_PRICING.advertiser_cpm_usd.tooltip,
  cpm_sponsored_card_usd: DEFAULT_PRICING.advertiser_cpm_usd.sponsored_card,
  cpm_inline_text_usd: DEFAULT_PRICING.advertiser_cpm_usd.inline_text,
  cpm_sponsored_follow_up_usd: DEFAULT_PRICING.advertiser_cpm_usd.sponsored_follow_up,
  cpc_floor_usd: DEFAULT_PRICING.cpc_floor_usd,
  price_per_ai_interaction_row_usd: DEFAULT_PRICING.dataset_prices_usd.per_ai_interaction_row,
  price_per_ux_session_recording_usd: DEFAULT_PRICING.dataset_prices_usd.per_ux_session_recording,
  price_per_gb_bundle_usd: DEFAULT_PRICING.dataset_prices_usd.per_gb_bundle,
  exclusive_license_multiplier: DEFAULT_PRICING.exclusive_license_multiplier,
  min_payout_usd: DEFAULT_PRICING.min_payout_usd,
  min_top_up_usd: DEFAULT_MIN_TOP_UP_USD,
  ...DEFAULT_DATA_MARKET,
};

/** The same by column, as the database keeps them and public.staff_pricing_schedule takes them: prices and minimums in micro-dollars. */
const DEFAULT_BY_COLUMN: Record<string, number> = Object.fromEntries(
  PRICING_FIELDS.map((f) => [f.column, f.column === f.name ? DEFAULT_COLUMNS[f.name] : Math.round(DEFAULT_COLUMNS[f.name] * 1_000_000)]),
);

for (const engine of unseededEngines()) {
  describe(`pricing in production on ${engine.name} (migrated, never seeded)`, () => {
    let db: Engine;
    let services: Services;
    let publisherId: string;
    let staff: SignedInUser;
    let target: { key: string; placement: string };
    let campaignId: string;
    let n = 0;
    const unique = () => `${++n}-${Math.random().toString(36).slice(2, 8)}`;

    const cpm = async () =>
      Number(await rawAsService(db, (q) => one<string>(q, 'select cpm_sponsored_card_micro::text as v from public.pricing_settings'))) / 1_000_000;
    /** The data market's settings in force, by column. */
    const dataMarket = async () => {
      const row = await rawAsService(db, (q) => one<Record<string, string | number>>(q, 'select to_jsonb(s) as v from public.pricing_settings s'));
      return Object.fromEntries(DATA_MARKET_FIELDS.map((f) => [f.name, Number(row[f.name])]));
    };

    /** An ad of the test's campaign, served and its impression sent as the SDK sends them; answers the decision's cost and the publisher's revenue. */
    const billOne = async (): Promise<{ decision: string; cost: number; revenue: number }> => {
      const res = await sdk(`/functions/v1/ads?placement_id=${target.placement}`, { headers: { 'x-api-key': target.key }, services });
      expect(res.status, res.text).toBe(200);
      const ad = adBody.parse(res.body);
      await servedSecondsAgo(db, 5);
      const sent = await sdk('/functions/v1/events', {
        body: { events: [{ id: `evt-${unique()}`, type: 'impression', token: ad.token, viewability: VIEWABLE }] },
        headers: { 'x-api-key': target.key },
        services,
      });
      expect(sent.status, sent.text).toBe(200);
      expect(sent.body.results).toEqual([expect.objectContaining({ status: 'recorded' })]);
      return decision(ad.decision_id);
    };
    const decision = async (id: string) => {
      const row = await rawAsService(db, (q) =>
        one<{ cost: string; revenue: string; campaign_id: string }>(
          q,
          'select json_build_object($$cost$$, cost_micro::text, $$revenue$$, revenue_micro::text, $$campaign_id$$, campaign_id) as v from public.ad_decisions where id = $1',
          [id],
        ),
      );
      expect(row.campaign_id).toBe(campaignId);
      return { decision: id, cost: Number(row.cost) / 1_000_000, revenue: Number(row.revenue) / 1_000_000 };
    };

    beforeAll(async () => {
      db = await engine.open();
      services = makeServices({ database: db, rateLimiter: UNLIMITED() });
      setTestServices(services);
      const ids = await rawAsService(db, async (q) => {
        const publisher = await one<string>(q, "insert into public.users (email, name) values ('publisher@production.test', 'Pub') returning id as v");
        const operator = await one<string>(q, "insert into public.users (email, name) values ('operator@production.test', 'Op') returning id as v");
        await q.query("insert into public.staff_members (user_id, totp_secret_ciphertext) values ($1, 'v1.sealed')", [operator]);
        // An advertiser's campaign as the SDK tests make one (tests/integration/sdk-billing.test.ts): the only one, so every ad is its.
        const campaign = await one<string>(
          q,
          "insert into public.campaigns (advertiser, name, daily_budget_micro) values ('Production Co', 'Launch', 1000000000) returning id as v",
        );
        await q.query(
          "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'sponsored_card', 'Try it', 'https://production.example/')",
          [campaign],
        );
        return { publisher, operator, campaign };
      });
      publisherId = ids.publisher;
      campaignId = ids.campaign;
      staff = { id: ids.operator, email: 'operator@production.test', name: 'Op' };
      const app = await createApp(db, publisherId, {
        name: 'Production app',
        slug: `production-${unique()}`,
        description: '',
        category: [],
        allowed_origins: [],
      });
      if (!app.ok) throw new Error(app.error);
      const placement = await createPlacement(db, publisherId, { app_id: app.value.id, name: 'Card', format: 'sponsored_card' });
      if (!placement.ok) throw new Error(placement.error);
      target = { key: (await newKey(db, publisherId, { appId: app.value.id })).key, placement: placement.value.id };
    });
    afterAll(async () => {
      setTestServices(undefined);
      await db?.close();
    });

    it('starts with the published defaults of lib/money/pricing/defaults.ts, and no demo data', async () => {
      expect(await rawAsService(db, (q) => one<number>(q, "select count(*)::int as v from public.users where email like '%@example.com'"))).toBe(0);
      expect(await readPricingSettings(asService(db))).toEqual(DEFAULT_PRICING);
      const row = await rawAsService(db, (q) => one<Record<string, string>>(q, 'select to_jsonb(s) as v from public.pricing_settings s'));
      for (const f of PRICING_FIELDS) expect(Number(row[f.column]), f.column).toBe(DEFAULT_BY_COLUMN[f.column]);
      expect(await rawAsService(db, (q) => one<number>(q, 'select count(*)::int as v from public.pricing_settings'))).toBe(1);
    });

    it('GET /api/v1/pricing answers live: true with the defaults', async () => {
      const res = await handlersOf('/api/v1/pricing', services).GET(
        new Request('http://localhost/api/v1/pricing', { headers: { 'x-forwarded-for': '192.0.2.10' } }),
        {
          params: Promise.resolve({}),
        },
      );
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        currency: 'USD',
        live: true,
        publisher_ad_revenue_share: DEFAULT_PRICING.publisher_ad_revenue_share,
        platform_ad_fee: DEFAULT_PRICING.platform_ad_fee,
        publisher_data_revenue_share: DEFAULT_PRICING.publisher_data_revenue_share,
        advertiser_cpm_usd: DEFAULT_PRICING.advertiser_cpm_usd,
        dataset_prices_usd: DEFAULT_PRICING.dataset_prices_usd,
        exclusive_license_multiplier: DEFAULT_PRICING.exclusive_license_multiplier,
        min_payout_usd: DEFAULT_PRICING.min_payout_usd,
        min_top_up_usd: DEFAULT_PRICING.min_top_up_usd,
        cpc_floor_usd: DEFAULT_PRICING.cpc_floor_usd,
        cpc_prior_click_rate: DEFAULT_PRICING.cpc_prior_click_rate,
        cpc_prior_impressions: DEFAULT_PRICING.cpc_prior_impressions,
        markdown: expect.stringMatching(/\/pricing\.md$/),
      });
    });

    it('bills an impression at the default CPM through the SDK', async () => {
      const billed = await billOne();
      const cost = DEFAULT_PRICING.advertiser_cpm_usd.sponsored_card / 1000;
      expect(billed.cost).toBe(cost);
      expect(billed.revenue).toBeCloseTo(cost * DEFAULT_PRICING.publisher_ad_revenue_share, 6);
    });

    it('accepts a payout request at exactly the default minimum, and refuses a cent less', async () => {
      const minimum = DEFAULT_PRICING.min_payout_usd * 1_000_000;
      // What the SDK recorded above, rolled up as the server's timer does: a month closes only once its counts are in.
      await rollUp(db);
      const publisher = (name: string, micro: number) =>
        rawAsService(db, async (q) => {
          const id = await one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${name}@production.test`, name]);
          expect(await giveFinalEarnings(q, id, micro)).toBe(1);
          await q.query(
            "insert into public.payout_methods (user_id, rail, details_ciphertext, masked, ready) values ($1, 'manual', 'v1.sealed', 'Bank · 1234', true)",
            [id],
          );
          return id;
        });
      const request = (user: string) => rawAsUser(db, { sub: user }, (q) => one<Record<string, unknown>>(q, 'select public.request_payout() as v'));
      const short = await publisher('short', minimum - 10_000);
      expect(await request(short)).toEqual({ ok: false, reason: 'below_minimum', available_micro: minimum - 10_000, minimum_micro: minimum });
      const exact = await publisher('exact', minimum);
      expect(await request(exact)).toMatchObject({ ok: true, amount_micro: minimum });
    });

    it('refuses scheduling and the queue to anyone but staff signed in with the second factor', async () => {
      const values = JSON.stringify({ ...DEFAULT_BY_COLUMN, cpm_sponsored_card_micro: 100_000_000, data_clawback_days: 0, data_license_max_app_share: 1 });
      for (const claims of [{ sub: publisherId }, { sub: publisherId, aal: 'aal2' }, { sub: staff.id }]) {
        await expect(
          rawAsUser(db, claims, (q) => q.query('select public.staff_pricing_schedule($1::jsonb, null, $2)', [values, 'mine now'])),
          JSON.stringify(claims),
        ).rejects.toThrow(DENIED);
        await expect(rawAsUser(db, claims, (q) => q.query('select public.staff_pricing(50)'))).rejects.toThrow(DENIED);
        await expect(rawAsUser(db, claims, (q) => q.query('select * from public.pricing_changes'))).rejects.toThrow(DENIED);
        await expect(rawAsUser(db, claims, (q) => q.query('select public.pricing_apply_due()'))).rejects.toThrow(DENIED);
        await expect(rawAsUser(db, claims, (q) => q.query('update public.pricing_settings set cpm_sponsored_card_micro = 100000000'))).rejects.toThrow(DENIED);
      }
      await expect(rawAsAnon(db, (q) => q.query('select * from public.pricing_changes'))).rejects.toThrow(DENIED);
      await expect(rawAsAnon(db, (q) => q.query('select public.staff_pricing_schedule($1::jsonb, null, $2)', [values, 'anon']))).rejects.toThrow(DENIED);
      expect(await cpm()).toBe(DEFAULT_PRICING.advertiser_cpm_usd.sponsored_card);
      expect(await dataMarket()).toEqual(DEFAULT_DATA_MARKET);
      expect(await rawAsService(db, (q) => one<number>(q, 'select count(*)::int as v from public.pricing_changes'))).toBe(0);
    });

    it('refuses values the row in force could not hold, and a time in the past, each with the reason', async () => {
      const refused = async (change: Partial<Record<keyof PricingColumns, number>>, effectiveAt: Date | null = null) =>
        schedulePricing(db, staff, { values: { ...DEFAULT_COLUMNS, ...change }, effectiveAt, reason: 'test' });
      expect(await refused({ publisher_ad_revenue_share: 0.75 })).toEqual({ ok: false, error: expect.stringMatching(/add up to 1/) });
      expect(await refused({ cpm_tooltip_usd: -1 })).toEqual({ ok: false, error: 'CPM, tooltip cannot be negative.' });
      expect(await refused({ exclusive_license_multiplier: 0.5 })).toEqual({ ok: false, error: expect.stringMatching(/multiplier is at least 1/) });
      expect(await refused({ publisher_data_revenue_share: 1.2 })).toEqual({ ok: false, error: expect.stringMatching(/between 0 and 1/) });
      expect(await refused({ min_payout_usd: 10.005 })).toEqual({ ok: false, error: expect.stringMatching(/at most 2 decimals/) });
      expect(await refused({}, new Date(Date.now() - 10 * 60_000))).toEqual({ ok: false, error: expect.stringMatching(/never in the past/) });
      // The data market's settings: shares above 0 and at most 1, whole numbers of records and days within bounds, none negative.
      const share = 'Largest share of a license one app may supply is a share: more than 0, at most 1.';
      expect(await refused({ data_license_max_app_share: 0 })).toEqual({ ok: false, error: share });
      expect(await refused({ data_license_max_app_share: 1.5 })).toEqual({ ok: false, error: share });
      expect(await refused({ data_license_max_app_share: -0.1 })).toEqual({
        ok: false,
        error: 'Largest share of a license one app may supply cannot be negative.',
      });
      expect(await refused({ data_license_max_publisher_share: 0.00001 })).toEqual({
        ok: false,
        error: expect.stringMatching(/one publisher may supply: at most 4 decimals/),
      });
      expect(await refused({ data_license_max_publisher_share: 0 })).toEqual({
        ok: false,
        error: expect.stringMatching(/^Largest share of a license one publisher.*more than 0/),
      });
      const records = 'Records any app or publisher may always supply: a whole number from 1 to 9999999.';
      expect(await refused({ data_license_min_share_records: 0 })).toEqual({ ok: false, error: records });
      expect(await refused({ data_license_min_share_records: 2.5 })).toEqual({ ok: false, error: records });
      expect(await refused({ data_license_min_share_records: 10_000_000 })).toEqual({ ok: false, error: records });
      expect(await refused({ data_clawback_days: 1.5 })).toEqual({ ok: false, error: 'Claw-back window: a whole number from 0 to 3650.' });
      expect(await refused({ data_clawback_days: 3651 })).toEqual({ ok: false, error: 'Claw-back window: a whole number from 0 to 3650.' });
      expect(await refused({ data_clawback_days: -1 })).toEqual({ ok: false, error: 'Claw-back window cannot be negative.' });
      expect(await refused({ data_seller_min_age_days: 1e9 })).toEqual({
        ok: false,
        error: expect.stringMatching(/^Days an app and its publisher must exist.*0 to 3650/),
      });
      expect(await refused({ data_seller_min_ad_days: 7.25 })).toEqual({
        ok: false,
        error: expect.stringMatching(/^Days with billable ad impressions.*whole number/),
      });
      // Each field is named in the database's answer (the form's message comes from it).
      const raw = await rawAsUser(db, { sub: staff.id, aal: 'aal2' }, (q) =>
        one<Record<string, unknown>>(q, 'select public.staff_pricing_schedule($1::jsonb, null, $2) as v', [
          JSON.stringify({ ...DEFAULT_BY_COLUMN, data_seller_min_ad_days: 0.5 }),
          'raw',
        ]),
      );
      expect(raw).toEqual({ ok: false, error: 'not_whole_number', field: 'data_seller_min_ad_days' });
      const withoutWindow: Partial<PricingColumns> = { ...DEFAULT_COLUMNS };
      delete withoutWindow.data_clawback_days;
      expect(await schedulePricing(db, staff, { values: withoutWindow as PricingColumns, effectiveAt: null, reason: 'test' })).toEqual({
        ok: false,
        error: 'Claw-back window: give a number.',
      });
      // The form says so before the database is asked.
      const form = new FormData();
      for (const f of PRICING_FIELDS) form.set(f.name, String(DEFAULT_COLUMNS[f.name]));
      form.set('platform_ad_fee', '0.4');
      form.set('when', 'now');
      form.set('reason', 'A mistake');
      expect(await pricingForm(form, staff, services)).toMatchObject({
        error: expect.stringMatching(/add up to 1/),
        values: expect.objectContaining({ platform_ad_fee: '0.4' }),
      });
      form.set('platform_ad_fee', String(DEFAULT_COLUMNS.platform_ad_fee));
      for (const [name, value, error] of [
        ['data_license_max_app_share', '0', /one app may supply is a share: more than 0, at most 1/],
        ['data_license_max_publisher_share', '1.0001', /one publisher may supply is a share: more than 0, at most 1/],
        ['data_license_min_share_records', '0', /Records any app or publisher may always supply: a whole number from 1/],
        ['data_clawback_days', '2.5', /Claw-back window: a whole number, not negative/],
        ['data_seller_min_age_days', '4000', /Days an app and its publisher must exist before selling data: a whole number from 0 to 3650/],
      ] as const) {
        const bad = new FormData();
        for (const [k, v] of form.entries()) bad.set(k, v);
        bad.set(name, value);
        expect(await pricingForm(bad, staff, services), name).toMatchObject({
          error: expect.stringMatching(error),
          values: expect.objectContaining({ [name]: value }),
        });
      }
      // The console sends a later time as a day (its calendar) and a time apart: read as one UTC instant, and refused without the time.
      const later = Object.fromEntries([...form.entries()].map(([k, v]) => [k, String(v)]));
      expect(pricingChange.parse({ ...later, when: 'later', effective_day: '2031-02-03', effective_time: '04:05' }).effectiveAt).toEqual(
        new Date('2031-02-03T04:05:00Z'),
      );
      expect(pricingChange.safeParse({ ...later, when: 'later', effective_day: '2031-02-03', effective_time: '' }).success).toBe(false);
      expect(await rawAsService(db, (q) => one<number>(q, 'select count(*)::int as v from public.pricing_changes'))).toBe(0);
      expect(await cpm()).toBe(DEFAULT_PRICING.advertiser_cpm_usd.sponsored_card);
      expect(await dataMarket()).toEqual(DEFAULT_DATA_MARKET);
    });

    it('puts a change effective now in force at once, audited; an impression billed before it keeps its price', async () => {
      const before = await billOne();
      const form = new FormData();
      for (const f of PRICING_FIELDS) form.set(f.name, String(DEFAULT_COLUMNS[f.name]));
      form.set('cpm_sponsored_card_usd', '10');
      form.set('when', 'now');
      form.set('reason', 'New card prices');
      expect(await pricingForm(form, staff, services)).toEqual({ notice: expect.stringMatching(/in force/) });
      expect(await cpm()).toBe(10);
      // Billed before: unchanged, in the decision and in what the roll-up takes from it.
      expect(await decision(before.decision)).toEqual(before);
      expect(before.cost).toBe(0.008);
      // Billed after: at the new price.
      expect((await billOne()).cost).toBe(0.01);
      // The route reads the new values (its reused read forgotten by the form).
      expect((await services.pricing.values())?.advertiser_cpm_usd.sponsored_card).toBe(10);

      const seen = await staffPricing(db, staff);
      expect(seen.current).toMatchObject({ cpm_sponsored_card_usd: 10 });
      expect(seen.changes).toHaveLength(1);
      expect(seen.changes[0]).toMatchObject({
        cpm_sponsored_card_usd: 10,
        reason: 'New card prices',
        scheduled_by_email: staff.email,
        applied_at: expect.any(Date),
      });
      const audit = await rawAsService(db, (q) =>
        one<{ staff_user_id: string; subject: string; reason: string; details: { values: Record<string, number> } }>(
          q,
          "select to_json(l) as v from public.staff_audit_log l where action = 'pricing.scheduled' order by id desc limit 1",
        ),
      );
      expect(audit).toMatchObject({ staff_user_id: staff.id, subject: String(seen.changes[0]!.id), reason: 'New card prices' });
      expect(Number(audit.details.values.cpm_sponsored_card_micro)).toBe(10_000_000);
    });

    it('applies a change effective later only once its time has come, by the server’s timer', async () => {
      const at = new Date(Date.now() + 2_000);
      const scheduled = await schedulePricing(db, staff, { values: { ...DEFAULT_COLUMNS, cpm_sponsored_card_usd: 12 }, effectiveAt: at, reason: 'Later' });
      expect(scheduled).toEqual({ ok: true, effectiveAt: at, applied: false });
      // Not before its time, however often the job runs.
      expect(await applyDuePricing(db)).toBe(0);
      expect(await cpm()).toBe(10);
      expect((await billOne()).cost).toBe(0.01);
      // After it: the roll-up's timer puts it in force.
      await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now()) + 100));
      const timer = scheduleRollUps(() => Promise.resolve(db), 50);
      try {
        await expect.poll(cpm, { timeout: 10_000, interval: 100 }).toBe(12);
      } finally {
        timer.stop();
      }
      const change = (await staffPricing(db, staff)).changes[0]!;
      expect(change).toMatchObject({ reason: 'Later', effective_at: at });
      expect(change.applied_at!.getTime()).toBeGreaterThanOrEqual(at.getTime());
      expect((await billOne()).cost).toBe(0.012);
      expect(await applyDuePricing(db)).toBe(0);
    });

    it('applies a due change on the scheduler’s call (Vercel), where no server’s timer runs', async () => {
      const at = new Date(Date.now() + 1_000);
      expect(await schedulePricing(db, staff, { values: { ...DEFAULT_COLUMNS, min_payout_usd: 60 }, effectiveAt: at, reason: 'Scheduler' })).toMatchObject({
        ok: true,
        applied: false,
      });
      await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now()) + 100));
      const secret = 'cron-secret-of-this-test-0123456789abcdef';
      const res = await bound(dataJobsRoute, makeServices({ database: db, cronSecret: secret })).GET(
        new Request('http://localhost:3000/api/cron/data-jobs', { headers: { authorization: `Bearer ${secret}` } }),
      );
      expect(res.status).toBe(200);
      expect(Number(await rawAsService(db, (q) => one<string>(q, 'select min_payout_micro::text as v from public.pricing_settings')))).toBe(60_000_000);
      expect(await cpm()).toBe(DEFAULT_PRICING.advertiser_cpm_usd.sponsored_card);
    });

    it('schedules the data market’s settings like the prices: the claw-back window and the share caps change at their time, and a quote after it uses the new cap', async () => {
      // One seller of 20 records; under the default caps an app supplies at most max(ceil(5% × 15), 10) = 10 records of a license of 15.
      const category = `production-${unique()}`;
      await establishedPublisher(db, `seller-${unique()}`, [category], 20);
      const buyer = await rawAsService(db, (q) =>
        one<string>(q, "insert into public.users (email, name) values ('buyer@production.test', 'Buyer') returning id as v"),
      );
      expect(
        await saveBuyerProfile(db, buyer, {
          company: 'Buyer Co',
          intended_use: 'Training an assistant.',
          billing_email: 'billing@production.test',
          country: 'DE',
          accept_terms: true,
        }),
      ).toMatchObject({ ok: true });
      const quote = (quantity: number) =>
        quoteLicense(db, buyer, { listing: 'ai_interactions', filter: catalogFilter.parse({ categories: [category] }), quantity, exclusive: false });
      expect(await quote(15)).toEqual({ ok: false, error: expect.stringMatching(/^At most 10 records/) });

      const changed = { data_clawback_days: 7, data_license_max_app_share: 1, data_license_max_publisher_share: 1 };
      const at = new Date(Date.now() + 1_500);
      expect(await schedulePricing(db, staff, { values: { ...DEFAULT_COLUMNS, ...changed }, effectiveAt: at, reason: 'One app may fill a license' })).toEqual({
        ok: true,
        effectiveAt: at,
        applied: false,
      });
      // Not before its time.
      expect(await applyDuePricing(db)).toBe(0);
      expect(await dataMarket()).toEqual(DEFAULT_DATA_MARKET);
      expect(await quote(15)).toMatchObject({ ok: false });
      await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now()) + 100));
      expect(await applyDuePricing(db)).toBe(1);
      expect(await dataMarket()).toEqual({ ...DEFAULT_DATA_MARKET, ...changed });
      // The claw-back window in force is the new one: sales from now on keep it (migration
      // 20261213001200_clawback_window_per_license; tests/integration/data-earnings-hold.test.ts).
      expect(await rawAsService(db, (q) => one<number>(q, 'select data_clawback_days as v from public.pricing_settings'))).toBe(7);
      // A quote after it: one app may now fill all of it.
      expect(await quote(15)).toMatchObject({ ok: true, value: { units: 15, available_records: 20 } });

      const seen = await staffPricing(db, staff);
      expect(seen.current).toMatchObject(changed);
      expect(seen.changes[0]).toMatchObject({ ...changed, reason: 'One app may fill a license', applied_at: expect.any(Date) });
      const audit = await rawAsService(db, (q) =>
        one<{ details: { values: Record<string, number> } }>(
          q,
          "select to_json(l) as v from public.staff_audit_log l where action = 'pricing.scheduled' order by id desc limit 1",
        ),
      );
      expect(Number(audit.details.values.data_clawback_days)).toBe(7);
    });

    it('says live: false only when no prices are in force, and a change writes the row back', async () => {
      const live = async () => {
        const res = await handlersOf('/api/v1/pricing', makeServices({ database: db })).GET(
          new Request('http://localhost/api/v1/pricing', { headers: { 'x-forwarded-for': '192.0.2.11' } }),
          { params: Promise.resolve({}) },
        );
        return ((await res.json()) as { live: boolean }).live;
      };
      expect(await live()).toBe(true);
      // Nothing deletes the row; were it gone, nothing could be billed, and the answer must not say these prices are live.
      await rawAsService(db, (q) => q.query('delete from public.pricing_settings'));
      expect(await live()).toBe(false);
      expect(await schedulePricing(db, staff, { values: DEFAULT_COLUMNS, effectiveAt: null, reason: 'Back to the defaults' })).toMatchObject({
        ok: true,
        applied: true,
      });
      expect(await readPricingSettings(asService(db))).toEqual(DEFAULT_PRICING);
      expect(await dataMarket()).toEqual(DEFAULT_DATA_MARKET);
      expect(await live()).toBe(true);
    });
  });
}

/**
 * Changes scheduled before the data market's settings were part of a change (migration
 * 20261213001100_pricing_data_settings) say every value in force after them too: they get the
 * settings in force when the migration runs, so one still waiting leaves them as they are.
 */
const BEFORE_DATA_SETTINGS = readMigrations().filter((m) => m.version < '20261213001100');
for (const engine of unseededEngines(BEFORE_DATA_SETTINGS)) {
  describe(`pricing changes made before the data market's settings were in them, on ${engine.name}`, () => {
    let db: Engine;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('gets the settings in force, and a change waiting keeps them when applied', async () => {
      const settings = {
        data_license_max_app_share: 0.2,
        data_license_max_publisher_share: 0.25,
        data_license_min_share_records: 3,
        data_seller_min_age_days: 2,
        data_seller_min_ad_days: 1,
        data_clawback_days: 9,
      };
      // As the database's owner: only staff_pricing_schedule writes changes, and it did not know these settings yet.
      await db.transaction(async (q) => {
        const staffId = await one<string>(q, "insert into public.users (email, name) values ('operator@before.test', 'Op') returning id as v");
        await q.query(
          `update public.pricing_settings set data_license_max_app_share = $1, data_license_max_publisher_share = $2, data_license_min_share_records = $3,
             data_seller_min_age_days = $4, data_seller_min_ad_days = $5, data_clawback_days = $6`,
          Object.values(settings),
        );
        // One applied, one waiting (its time has come by the time it is applied).
        for (const [at, applied] of [
          ["now() - interval '1 day'", 'now()'],
          ['now()', 'null'],
        ]) {
          await q.query(
            `insert into public.pricing_changes (effective_at, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
               cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd, price_per_ai_interaction_row_usd,
               price_per_ux_session_recording_usd, price_per_gb_bundle_usd, exclusive_license_multiplier, min_payout_usd, min_top_up_usd,
               reason, scheduled_by, applied_at)
             values (${at}, 0.7, 0.3, 0.8, 12, 4, 9, 5, 0.002, 0.05, 40, 3, 50, 50, 'before', $1, ${applied})`,
            [staffId],
          );
        }
      });
      expect(await migrate(db)).toContain('20261213001100');
      const rows = await rawAsService(db, (q) =>
        q
          .query<Record<string, string | number>>('select to_jsonb(c) as v from public.pricing_changes c order by id')
          .then((r) => r.map((x) => x.v as unknown as Record<string, string | number>)),
      );
      expect(rows).toHaveLength(2);
      for (const row of rows) expect(Object.fromEntries(DATA_MARKET_FIELDS.map((f) => [f.name, Number(row[f.name])]))).toEqual(settings);
      expect(await rawAsService(db, (q) => one<number>(q, 'select public.pricing_apply_due() as v'))).toBe(1);
      const inForce = await rawAsService(db, (q) => one<Record<string, string | number>>(q, 'select to_jsonb(s) as v from public.pricing_settings s'));
      // The prices came through the migrations that followed in micro-dollars (migration 20261214001000_money_in_micro_dollars).
      expect(Number(inForce.cpm_sponsored_card_micro)).toBe(9_000_000);
      expect(Object.fromEntries(DATA_MARKET_FIELDS.map((f) => [f.name, Number(inForce[f.name])]))).toEqual(settings);
    });
  });
}
