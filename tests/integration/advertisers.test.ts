import { beforeAll, describe, expect, it } from 'vitest';
import { COMPANY_REVIEWED, saveProfile } from '@/lib/ads/advertisers/account';
import { createApp, createPlacement } from '@/lib/publisher/writes';
import { checkMoney } from '@/lib/money/ledger-check';
import type { Engine, Queryable } from '@/lib/platform/db/engine';
import type { PlacementFormat } from '@/lib/schemas/account';
import { adBody } from '@/lib/schemas/sdk';
import { rollUp } from '@/lib/ads/serving/rollup';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, rawAsUser, runAs } from '../helpers/roles';
import { newKey, sdk, servedSecondsAgo } from '../helpers/sdk';

/**
 * Advertisers on the ledger (migration 20261207000000_advertisers), on every engine: funds come
 * in once (the operator records a manual top-up; a retry credits nothing more), a campaign serves
 * only once approved, funded and running (never as a draft, in review, rejected, paused or out of
 * funds), what its impressions cost leaves its advertiser's balance to the micro-dollar and
 * reaches the publisher and the platform in the same roll-up, a campaign whose budget or funds
 * run out stops within one roll-up (and resumes after a top-up), and an advertiser reads and
 * changes only their own campaigns, creatives, funds and spend, never a publisher's data or
 * another advertiser's, and makes no move that is the operator's.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };
const failedChecks = async (db: Engine) => (await checkMoney(db)).filter((r) => r.count > 0).map((r) => `${r.name}: ${r.found.join('; ')}`);

for (const engine of testEngines()) {
  describe(`advertisers on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let publisher: { appId: string; key: string; placements: Record<PlacementFormat, string> };
    let n = 0;
    const unique = () => `${Date.now().toString(36)}-${++n}`;

    const staff = async () => ({
      sub: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"),
      aal: 'aal2',
    });
    const asStaff = async <T>(fn: (q: Queryable) => Promise<T>) => runAs(suite.db, 'authenticated', await staff(), fn);

    /** A new advertiser account (profile included), with `fundsUsd` credited by a manual top-up the operator recorded. */
    const advertiser = async (company: string, fundsUsd = 0) => {
      const id = await rawAsService(suite.db, (q) =>
        one<string>(q, 'insert into public.users (email, name) values ($1, $2) returning id as v', [`${unique()}@advertisers.test`, company]),
      );
      await rawAsUser(suite.db, { sub: id }, (q) =>
        q.query(
          `insert into public.advertiser_profiles (user_id, company, billing_name, billing_email, billing_address, country)
           values ($1, $2, $2, 'billing@advertisers.test', '1 Test Street', 'GB')`,
          [id, company],
        ),
      );
      if (fundsUsd > 0) await fund(id, fundsUsd);
      return id;
    };
    const requestTopUp = (user: string, usd: number) =>
      rawAsUser(suite.db, { sub: user }, (q) =>
        one<{ ok: boolean; top_up_id?: string; error?: string; invoice_number?: string }>(q, 'select public.top_up_request($1) as v', [usd * 1_000_000]),
      );
    const fund = async (user: string, usd: number) => {
      const asked = await requestTopUp(user, usd);
      expect(asked.ok, JSON.stringify(asked)).toBe(true);
      const paid = await asStaff((q) => one<{ ok: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-REF-1') as v", [asked.top_up_id]));
      expect(paid.ok).toBe(true);
      return asked.top_up_id!;
    };
    const balance = (user: string) =>
      rawAsService(suite.db, (q) => one<string>(q, "select public.ledger_balance_micro('advertiser', $1)::text as v", [user])).then(Number);

    /**
     * A campaign of `owner`'s with one inline-text creative, made as the advertiser (a draft), sent to
     * review and, unless `review` says otherwise, approved with its creative by the operator. Each
     * test pauses its campaigns when done: what serves is one test's campaign, or nothing.
     */
    const campaign = async (owner: string, options: { review?: 'approve' | 'reject' | 'none' | 'draft'; budgetUsd?: number; capUsd?: number } = {}) => {
      const headline = `Test ad ${unique()}`;
      const id = await rawAsUser(suite.db, { sub: owner }, async (q) => {
        const id = await one<string>(
          q,
          `insert into public.campaigns (advertiser_id, name, lifetime_budget_micro, daily_cap_micro, frequency_cap, formats, starts_at)
           values ($1, $2, $3, $4, 100, '{inline_text}', now() - interval '1 minute') returning id as v`,
          [owner, headline, (options.budgetUsd ?? 1_000_000) * 1_000_000, options.capUsd === undefined ? null : options.capUsd * 1_000_000],
        );
        await q.query(
          "insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', $2, 'https://advertiser.example/')",
          [id, headline],
        );
        if (options.review !== 'draft') await q.query("update public.campaigns set status = 'in_review' where id = $1", [id]);
        return id;
      });
      const creative = await rawAsService(suite.db, (q) => one<string>(q, 'select id as v from public.creatives where campaign_id = $1', [id]));
      if (options.review === undefined || options.review === 'approve' || options.review === 'reject') {
        const approve = options.review !== 'reject';
        await asStaff(async (q) => {
          expect((await one<{ ok: boolean }>(q, 'select public.staff_campaign_review($1, $2, $3) as v', [id, approve, 'Not for this network'])).ok).toBe(true);
          expect((await one<{ ok: boolean }>(q, 'select public.staff_creative_review($1, $2, $3) as v', [creative, approve, 'Not for this network'])).ok).toBe(
            true,
          );
        });
      }
      return { id, creative, headline };
    };
    const status = (id: string) =>
      rawAsService(suite.db, (q) => one<string>(q, "select status || coalesce(':' || pause_reason, '') as v from public.campaigns where id = $1", [id]));

    /** How many of `tries` ad requests for the publisher's inline-text placement the creative won. */
    const wins = async (creative: string, tries = 12) => {
      let won = 0;
      for (let i = 0; i < tries; i++) {
        const res = await sdk(`/functions/v1/ads?placement_id=${publisher.placements.inline_text}&session_id=s-${unique()}`, {
          headers: { 'x-api-key': publisher.key },
          ip: `198.51.100.${(i % 200) + 1}`,
        });
        if (res.status === 200 && adBody.parse(res.body).ad.headline === (await headlineOf(creative))) won++;
      }
      return won;
    };
    const headlineOf = (creative: string) =>
      rawAsService(suite.db, (q) => one<string>(q, 'select headline as v from public.creatives where id = $1', [creative]));

    /** Serves the creative once and sends its viewable impression: the ad's decision. */
    const impression = async (creative: string) => {
      const want = await headlineOf(creative);
      for (let i = 0; i < 50; i++) {
        const res = await sdk(`/functions/v1/ads?placement_id=${publisher.placements.inline_text}&session_id=s-${unique()}`, {
          headers: { 'x-api-key': publisher.key },
          ip: '203.0.113.9',
        });
        if (res.status !== 200) continue;
        const body = adBody.parse(res.body);
        if (body.ad.headline !== want) continue;
        await servedSecondsAgo(suite.db, 5);
        const sent = await sdk('/functions/v1/events', {
          body: { events: [{ id: `imp-${unique()}`, type: 'impression', token: body.token, viewability: VIEWABLE }] },
          ip: '203.0.113.9',
          headers: { 'x-api-key': publisher.key },
        });
        expect(sent.body.recorded, sent.text).toBe(1);
        return body.decision_id;
      }
      throw new Error('the creative was never served');
    };

    beforeAll(async () => {
      const slug = `adv-${Math.random().toString(36).slice(2, 10)}`;
      const app = await createApp(suite.db, suite.users.demo, {
        name: `Advertised ${slug}`,
        slug,
        description: '',
        category: ['education'],
        allowed_origins: [],
      });
      if (!app.ok) throw new Error(app.error);
      const placements = {} as Record<PlacementFormat, string>;
      for (const format of ['inline_text'] as const) {
        const made = await createPlacement(suite.db, suite.users.demo, { app_id: app.value.id, name: `${format} slot`, format });
        if (!made.ok) throw new Error(made.error);
        placements[format] = made.value.id;
      }
      const key = await newKey(suite.db, suite.users.demo, { appId: app.value.id });
      publisher = { appId: app.value.id, key: key.key, placements };
      // The demo advertisers' campaigns paused (in this suite's database only): what serves is this suite's.
      await rawAsService(suite.db, (q) => q.query("update public.campaigns set status = 'paused' where status = 'active'"));
    });

    describe('funds', () => {
      it('a manual top-up is credited once, when the operator records it: below the minimum it is refused, a retry credits nothing more', async () => {
        const user = await advertiser('Funds Co');
        const minimum = await rawAsService(suite.db, (q) =>
          one<string>(q, 'select (min_top_up_micro / 1000000.0)::text as v from public.pricing_settings'),
        ).then(Number);
        expect(await requestTopUp(user, minimum - 1)).toEqual({ ok: false, error: 'amount_out_of_range', minimum_micro: minimum * 1_000_000 });
        const asked = await requestTopUp(user, 250);
        expect(asked).toEqual({ ok: true, top_up_id: expect.any(String), invoice_number: expect.stringMatching(/^INV-\d{8}-[0-9A-F]{8}$/) });
        expect(await balance(user)).toBe(0);
        // Nobody but staff records a payment; the advertiser cannot.
        await expect(
          rawAsUser(suite.db, { sub: user }, (q) => q.query("select public.staff_top_up_record($1, true, 'mine') as v", [asked.top_up_id])),
        ).rejects.toThrow(/staff only/);
        const record = () =>
          asStaff((q) => one<{ ok: boolean; already: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-77') as v", [asked.top_up_id]));
        expect(await record()).toMatchObject({ ok: true, already: false });
        expect(await record()).toMatchObject({ ok: true, already: true });
        expect(await balance(user)).toBe(250_000_000);
        const audit = await rawAsService(suite.db, (q) =>
          q.query<{ action: string }>('select action from public.staff_audit_log where subject = $1 order by id', [asked.top_up_id]),
        );
        expect(audit.map((r) => r.action)).toEqual(['top_up.paid']);
        expect(await failedChecks(suite.db)).toEqual([]);
      });

      if (engine.name === 'postgres')
        it('two operators recording one payment at once credit it once', async () => {
          const user = await advertiser('Race Co');
          const asked = await requestTopUp(user, 100);
          const answers = await Promise.all(
            Array.from({ length: 6 }, () =>
              asStaff((q) => one<{ ok: boolean; already: boolean }>(q, "select public.staff_top_up_record($1, true, 'BANK-RACE') as v", [asked.top_up_id])),
            ),
          );
          expect(answers.filter((a) => a.ok && !a.already)).toHaveLength(1);
          expect(await balance(user)).toBe(100_000_000);
        });
    });

    describe('what serves', () => {
      it('a campaign in draft, in review, rejected or paused never serves; approved, funded and started, it does', async () => {
        const owner = await advertiser('Serving Co', 100);
        const draft = await campaign(owner, { review: 'draft' });
        const inReview = await campaign(owner, { review: 'none' });
        const rejected = await campaign(owner, { review: 'reject' });
        const paused = await campaign(owner);
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [paused.id]));
        expect([await status(draft.id), await status(inReview.id), await status(rejected.id), await status(paused.id)]).toEqual([
          'draft',
          'in_review',
          'rejected',
          'paused:advertiser',
        ]);
        for (const c of [draft, inReview, rejected, paused]) expect(await wins(c.creative, 8), c.headline).toBe(0);
        // Resumed by its advertiser, it serves.
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'active' where id = $1", [paused.id]));
        expect(await status(paused.id)).toBe('active');
        expect(await wins(paused.creative, 8)).toBe(8);
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [paused.id]));
      });

      it('an approved campaign of an advertiser without funds is paused for want of them, serves nothing, and resumes after a top-up', async () => {
        const owner = await advertiser('Broke Co');
        const c = await campaign(owner);
        expect(await status(c.id)).toBe('paused:out_of_funds');
        expect(await wins(c.creative, 8)).toBe(0);
        await fund(owner, 50);
        expect(await status(c.id)).toBe('active');
        expect(await wins(c.creative, 8)).toBe(8);
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [c.id]));
      });

      it('an edited creative goes back to review and stops serving until approved again', async () => {
        const owner = await advertiser('Edit Co', 100);
        const c = await campaign(owner);
        expect(await wins(c.creative, 6)).toBe(6);
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.creatives set headline = headline || ' (new)' where id = $1", [c.creative]));
        expect(await rawAsService(suite.db, (q) => one<string>(q, 'select status as v from public.creatives where id = $1', [c.creative]))).toBe('in_review');
        expect(await wins(c.creative, 6)).toBe(0);
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [c.id]));
      });
    });

    describe('spend', () => {
      it("an impression debits its advertiser CPM / 1000 and credits the publisher its share and the platform the rest, in the roll-up's one transaction", async () => {
        const owner = await advertiser('Spend Co', 100);
        const c = await campaign(owner);
        const price = await rawAsService(suite.db, (q) =>
          q.query<{ cpm: string; share: string }>(
            'select cpm_inline_text_micro::text as cpm, publisher_ad_revenue_share::text as share from public.pricing_settings',
          ),
        );
        const costMicro = Math.round(Number(price[0]!.cpm) / 1000);
        const earnedMicro = Math.round(costMicro * Number(price[0]!.share));
        const publisherBefore = await rawAsService(suite.db, (q) =>
          one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [suite.users.demo]),
        ).then(Number);
        await impression(c.creative);
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [c.id]));
        await rollUp(suite.db);
        expect(await balance(owner)).toBe(100_000_000 - costMicro);
        const postings = await rawAsService(suite.db, (q) =>
          q.query<{ kind: string; micro: string; tx: string }>(
            `select a.kind, p.amount_micro::text as micro, p.transaction_id::text as tx from public.ledger_postings p
             join public.ledger_accounts a on a.id = p.account_id join public.ledger_transactions t on t.id = p.transaction_id
             where t.kind = 'ad_spend' and (p.campaign_id = $1 or p.app_id = $2)`,
            [c.id, publisher.appId],
          ),
        );
        expect(postings.map((p) => [p.kind, Number(p.micro)]).sort()).toEqual(
          [
            ['advertiser', -costMicro],
            ['platform_fees', costMicro - earnedMicro],
            ['publisher', earnedMicro],
          ].sort(),
        );
        expect(new Set(postings.map((p) => p.tx)).size).toBe(1);
        const publisherAfter = await rawAsService(suite.db, (q) =>
          one<string>(q, "select public.ledger_balance_micro('publisher', $1)::text as v", [suite.users.demo]),
        ).then(Number);
        expect(publisherAfter - publisherBefore).toBe(earnedMicro);
        expect(await failedChecks(suite.db)).toEqual([]);
      });

      it('a campaign whose budget is spent is completed by the roll-up that bills it, and serves no more', async () => {
        const owner = await advertiser('Budget Co', 100);
        const c = await campaign(owner, { budgetUsd: 5 });
        expect(await wins(c.creative, 4)).toBe(4);
        // Its whole budget billed (as public.sdk_record_events counts what it bills, for the roll-up), in two counts.
        await rawAsService(suite.db, (q) =>
          q.query(
            `insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, revenue_micro, cost_micro)
             select $1::uuid, $2::uuid, $3::uuid, (now() at time zone 'UTC')::date, 1000, 1400000, 2000000 union all
             select $1::uuid, $2::uuid, $3::uuid, (now() at time zone 'UTC')::date, 1500, 2100000, 3000000`,
            [publisher.appId, publisher.placements.inline_text, c.id],
          ),
        );
        await rollUp(suite.db);
        expect(await status(c.id)).toBe('completed');
        expect(await wins(c.creative, 6)).toBe(0);
        // (No money check here: these counts stand for billing without the decisions it would have recorded.)
        expect(await balance(owner)).toBe(95_000_000);
      });

      it('an advertiser whose funds run out has their campaigns paused by the roll-up that bills it, and resumed by a top-up', async () => {
        const owner = await advertiser('Thin Co', 50);
        const c = await campaign(owner);
        // All but a micro-dollar spent elsewhere: the next impression takes the balance below zero.
        await rawAsService(suite.db, (q) =>
          q.query(
            `select public.ledger_post('adjustment', 'test-drain:' || $1, now(), 'test: funds spent elsewhere',
               jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('advertiser', $1::uuid), 'amount_micro', -49999999),
                                 jsonb_build_object('account_id', public.ledger_account('payments_in', null), 'amount_micro', 49999999)))`,
            [owner],
          ),
        );
        await impression(c.creative);
        await rollUp(suite.db);
        expect(await balance(owner)).toBeLessThanOrEqual(0);
        expect(await status(c.id)).toBe('paused:out_of_funds');
        expect(await wins(c.creative, 6)).toBe(0);
        await fund(owner, 50);
        expect(await status(c.id)).toBe('active');
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [c.id]));
      });
    });

    describe('who may do what', () => {
      it("an advertiser reads and changes only their own campaigns, creatives, top-ups and spend, and none of a publisher's data", async () => {
        const mine = await advertiser('Mine Co', 60);
        const theirs = await advertiser('Theirs Co', 70);
        const their = await campaign(theirs);
        await rawAsUser(suite.db, { sub: theirs }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [their.id]));
        await rawAsUser(suite.db, { sub: mine }, async (q) => {
          for (const table of ['campaigns', 'creatives', 'top_ups', 'advertiser_profiles', 'campaign_daily_spend']) {
            const rows = await q.query<Record<string, unknown>>(`select * from public.${table}`);
            expect(
              rows.filter((r) => Object.values(r).includes(theirs) || Object.values(r).includes(their.id)),
              table,
            ).toEqual([]);
          }
          expect(await q.query('select * from public.campaigns')).toEqual([]);
          // A publisher's apps, placements, stats and earnings are not theirs to read.
          for (const table of ['apps', 'placements', 'daily_stats', 'api_keys'])
            expect(await q.query(`select user_id from public.${table}`), table).toEqual([]);
          // Another advertiser's ledger is not visible either: only their own account.
          const accounts = await q.query<{ user_id: string }>('select user_id from public.ledger_accounts');
          expect(accounts.map((a) => a.user_id)).toEqual([mine]);
          // Writes to another advertiser's rows touch nothing.
          expect(await q.query("update public.campaigns set name = 'taken' where id = $1 returning id", [their.id])).toEqual([]);
          expect(await q.query("update public.creatives set headline = 'taken' where id = $1 returning id", [their.creative])).toEqual([]);
          expect(await q.query('delete from public.creatives where id = $1 returning id', [their.creative])).toEqual([]);
        });
        // Nor can they make a campaign or a creative in another advertiser's name.
        await expect(
          rawAsUser(suite.db, { sub: mine }, (q) =>
            q.query("insert into public.campaigns (advertiser_id, name, lifetime_budget_micro) values ($1, 'In their name', 100000000)", [theirs]),
          ),
        ).rejects.toThrow(/row-level security/);
        await expect(
          rawAsUser(suite.db, { sub: mine }, (q) =>
            q.query("insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', 'x', 'https://x.example/')", [
              their.id,
            ]),
          ),
        ).rejects.toThrow(/row-level security/);
        expect(await rawAsService(suite.db, (q) => one<string>(q, 'select name as v from public.campaigns where id = $1', [their.id]))).toBe(their.headline);
      });

      it("an advertiser's name on their ads is the one reviewed: no rename while a campaign is in review or approved, and none reaches approved ads", async () => {
        const profile = (company: string, billing_name = 'Billing') => ({
          company,
          billing_name,
          billing_email: 'billing@advertisers.test',
          billing_address: '1 Test Street',
          country: 'GB',
          tax_id: null,
          time_zone: 'UTC',
        });
        const advertiserOf = (id: string) => rawAsService(suite.db, (q) => one<string>(q, 'select advertiser as v from public.campaigns where id = $1', [id]));

        // A draft takes the name it is sent to review with.
        const owner = await advertiser('Named Co', 60);
        const draft = await campaign(owner, { review: 'draft' });
        expect(await saveProfile(suite.db, owner, profile('Named Co Ltd'))).toEqual({ ok: true, value: undefined });
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'in_review' where id = $1", [draft.id]));
        expect(await advertiserOf(draft.id)).toBe('Named Co Ltd');

        // In review, and approved: the company no longer changes, by the form or directly; the billing details still do.
        expect(await saveProfile(suite.db, owner, profile('Renamed Co'))).toEqual({ ok: false, error: COMPANY_REVIEWED });
        const live = await campaign(owner);
        expect(await status(live.id)).toBe('active');
        expect(await advertiserOf(live.id)).toBe('Named Co Ltd');
        expect(await saveProfile(suite.db, owner, profile('Renamed Co'))).toEqual({ ok: false, error: COMPANY_REVIEWED });
        await expect(
          rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.advertiser_profiles set company = 'Sneaky Co' where user_id = $1", [owner])),
        ).rejects.toThrow(/company name cannot change while a campaign is in review or approved/);
        expect(await saveProfile(suite.db, owner, profile('Named Co Ltd', 'New Billing Name'))).toEqual({ ok: true, value: undefined });

        // A profile renamed behind the guard (before it existed): an edit and a roll-up leave the approved ads' name as reviewed.
        await suite.db.transaction(async (tx) => {
          await tx.exec('set local session_replication_role = replica');
          await tx.query("update public.advertiser_profiles set company = 'Unreviewed Co' where user_id = $1", [owner]);
        });
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set name = 'Edited name' where id = $1", [live.id]));
        await rollUp(suite.db);
        expect(await advertiserOf(live.id)).toBe('Named Co Ltd');
        expect(await status(live.id)).toBe('active');
        await rawAsUser(suite.db, { sub: owner }, (q) => q.query("update public.campaigns set status = 'paused' where id = $1", [live.id]));
        expect(await advertiserOf(live.id)).toBe('Named Co Ltd');
      });

      it('an advertiser makes no move that is the operator’s or the roll-up’s: no approval, no completion, no funds of their own making', async () => {
        const owner = await advertiser('Sly Co', 60);
        const c = await campaign(owner, { review: 'none' });
        const refused = async (statement: string, params: unknown[], pattern: RegExp) =>
          expect(rawAsUser(suite.db, { sub: owner }, (q) => q.query(statement, params))).rejects.toThrow(pattern);
        await refused("update public.campaigns set status = 'active' where id = $1", [c.id], /cannot go from in_review to active/);
        await refused("update public.campaigns set status = 'completed' where id = $1", [c.id], /cannot go from in_review to completed/);
        await refused("update public.creatives set status = 'active' where id = $1", [c.creative], /cannot go from in_review to active/);
        await refused('update public.campaigns set advertiser_id = advertiser_id where id = $1', [c.id], /permission denied/);
        await refused('update public.campaigns set daily_budget_micro = 1000000 where id = $1', [c.id], /permission denied/);
        await refused('select public.staff_campaign_review($1, true, null)', [c.id], /staff only/);
        await refused('select public.staff_creative_review($1, true, null)', [c.creative], /staff only/);
        await refused("insert into public.top_ups (user_id, amount_micro, rail, status) values ($1, 1000000, 'manual', 'paid')", [owner], /permission denied/);
        await refused("select public.top_up_credit(gen_random_uuid(), 'x', null)", [], /permission denied/);
        await refused("select public.ledger_post('top_up', 'mine', now(), null, '[]'::jsonb)", [], /permission denied/);
        expect(await status(c.id)).toBe('in_review');
        // Someone without an advertiser profile asks for no top-up.
        const publisherOnly = suite.users.demo2;
        expect(
          await rawAsUser(suite.db, { sub: publisherOnly }, (q) => one<{ ok: boolean; error: string }>(q, 'select public.top_up_request(100000000) as v')),
        ).toEqual({
          ok: false,
          error: 'not_an_advertiser',
        });
      });
    });
  });
}
