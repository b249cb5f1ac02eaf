import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEnv, resetEnv } from '@/lib/platform/env';
import { createApp, createPlacement } from '@/lib/publisher/writes';
import type { Engine } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import type { Services } from '@/lib/services';
import { clientHash } from '@/lib/platform/http/client-ip';
import { adBody, type AdBody } from '@/lib/schemas/sdk';
import { rollUp } from '@/lib/ads/serving/rollup';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { makeServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';
import { newKey, sdk, servedSecondsAgo } from '../helpers/sdk';

/**
 * The attack on the money path (issue: "Billing that cannot be gamed"), redone on every engine.
 * A fraudster with only the key from a page's source fetched 1,200 ads of a $2.00/day campaign in
 * seconds and sent their impressions at once, some after the campaign had ended: it was billed
 * $14.34. They sent impressions milliseconds after their ads, from other addresses, with evidence
 * no browser could have measured (86,400 s of video at second 0, a one-line text ad "large").
 * Now spend is checked when an impression is billed, and an impression must be plausible.
 */

const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };

interface App {
  appId: string;
  key: string;
  placement: string;
}

async function app(db: Engine, userId: string, format: 'sponsored_card' | 'inline_text' | 'floating_video'): Promise<App> {
  const slug = `billing-${Math.random().toString(36).slice(2, 10)}`;
  const made = await createApp(db, userId, { name: `Billing ${slug}`, slug, description: '', category: [], allowed_origins: [] });
  if (!made.ok) throw new Error(made.error);
  const placement = await createPlacement(db, userId, { app_id: made.value.id, name: `${format} slot`, format });
  if (!placement.ok) throw new Error(placement.error);
  const key = await newKey(db, userId, { appId: made.value.id });
  return { appId: made.value.id, key: key.key, placement: placement.value.id };
}

/** A campaign of its own, with one creative of the format, that the draw all but always picks (its budget dwarfs the demo's). */
async function campaign(db: Engine, format: string, dailyBudgetUsd: number, frequencyCap = 100): Promise<string> {
  return rawAsService(db, async (q) => {
    const [row] = await q.query<{ id: string }>(
      `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap) values ('Fraud Target', 'Two dollars a day', $1, $2) returning id`,
      [dailyBudgetUsd * 1_000_000, frequencyCap],
    );
    await q.query(`insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, $2, 'Buy now', 'https://target.example/')`, [
      row!.id,
      format,
    ]);
    return row!.id;
  });
}

async function setCampaign(db: Engine, id: string, change: { daily_budget_usd?: number; status?: string }): Promise<void> {
  await rawAsService(db, (q) =>
    q.query('update public.campaigns set daily_budget_micro = coalesce($2, daily_budget_micro), status = coalesce($3, status) where id = $1', [
      id,
      change.daily_budget_usd === undefined ? null : change.daily_budget_usd * 1_000_000,
      change.status ?? null,
    ]),
  );
}

/** What an impression of the format costs, in dollars: its CPM / 1000, to the micro-dollar. */
async function costOf(db: Engine, format: string): Promise<number> {
  const [row] = await db.query<{ cost: string }>(`select round(cpm_${format}_micro / 1000.0)::text as cost from public.pricing_settings`);
  return Number(row!.cost) / 1_000_000;
}

async function billed(db: Engine, campaignId: string): Promise<{ impressions: number; cost: number }> {
  const [row] = await rawAsService(db, (q) =>
    q.query<{ impressions: number; cost: string }>(
      'select count(*)::int as impressions, coalesce(sum(cost_micro), 0)::text as cost from public.ad_decisions where campaign_id = $1 and impression_event_id is not null',
      [campaignId],
    ),
  );
  return { impressions: row!.impressions, cost: Number(row!.cost) / 1_000_000 };
}

for (const engine of testEngines()) {
  describe(`billing that cannot be gamed, on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let n = 0;
    const id = () => `bill-${++n}-${Math.random().toString(36).slice(2, 8)}`;

    const fetchAd = async (a: App, client: { ip?: string; ua?: string; services?: Services } = {}): Promise<AdBody | null> => {
      const res = await sdk(`/functions/v1/ads?placement_id=${a.placement}`, {
        headers: { 'x-api-key': a.key, ...(client.ua ? { 'user-agent': client.ua } : {}) },
        ip: client.ip,
        services: client.services,
      });
      if (res.status === 204) return null;
      expect(res.status, res.text).toBe(200);
      return adBody.parse(res.body);
    };
    const send = (a: App, events: unknown[], client: { ip?: string; ua?: string; services?: Services } = {}) =>
      sdk('/functions/v1/events', {
        body: { events },
        ip: client.ip,
        headers: { 'x-api-key': a.key, ...(client.ua ? { 'user-agent': client.ua } : {}) },
        services: client.services,
      });
    /** The suite's services, with hourly caps of their own on billable impressions. */
    const capped = (perNetwork: number, perPublisher: number): Services =>
      makeServices({
        database: suite.db,
        rateLimiter: UNLIMITED(),
        impressionLimits: {
          network: new MemoryRateLimiter({ max: perNetwork, windowSeconds: 3600 }),
          publisher: new MemoryRateLimiter({ max: perPublisher, windowSeconds: 3600 }),
        },
      });

    describe('spend is checked when an impression is billed', () => {
      let target: App;
      let campaignId: string;
      let price: number;
      const served: { ad: AdBody; ua: string }[] = [];

      beforeAll(async () => {
        target = await app(suite.db, suite.users.demo, 'sponsored_card');
        price = await costOf(suite.db, 'sponsored_card');
        // Served while the budget was large, as ads served early in a day are: more than $2.00 of them.
        campaignId = await campaign(suite.db, 'sponsored_card', 100_000);
        const wanted = Math.ceil(2 / price) + 60;
        for (let client = 0; served.length < wanted; client++) {
          const ua = `Fraud/${client}`;
          for (let i = 0; i < 100 && served.length < wanted; i++) {
            const ad = await fetchAd(target, { ua });
            if (ad?.ad.advertiser === 'Fraud Target') served.push({ ad, ua });
          }
        }
        await servedSecondsAgo(suite.db, 5);
      });

      it('bills a $2.00/day campaign at most its budget and one impression, however many of its ads were served, and the rest over_budget', async () => {
        await setCampaign(suite.db, campaignId, { daily_budget_usd: 2 });
        const last = served.splice(served.length - 5);
        // Each client sends its impressions at once, all clients together.
        const byClient = new Map<string, AdBody[]>();
        for (const { ad, ua } of served) byClient.set(ua, [...(byClient.get(ua) ?? []), ad]);
        const answers = await Promise.all(
          [...byClient].map(([ua, ads]) =>
            send(
              target,
              ads.map((ad) => ({ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE })),
              { ua },
            ),
          ),
        );
        const results = answers.flatMap((r) => {
          expect(r.status, r.text).toBe(200);
          return r.body.results as { status: string; reason?: string }[];
        });
        const recorded = results.filter((r) => r.status === 'recorded').length;
        expect(results.filter((r) => r.status !== 'recorded').map((r) => r.reason)).toEqual(Array(results.length - recorded).fill('over_budget'));
        const bill = await billed(suite.db, campaignId);
        expect(bill.impressions).toBe(recorded);
        expect(bill.cost).toBeLessThanOrEqual(2 + price + 1e-9);
        expect(bill.cost).toBeGreaterThanOrEqual(2 - 1e-9);
        // What the roll-up counts as spent is what was billed, to the millionth.
        await rollUp(suite.db);
        const [spend] = await rawAsService(suite.db, (q) =>
          q.query<{ spent: string }>('select coalesce(sum(spent_micro), 0)::text as spent from public.campaign_daily_spend where campaign_id = $1', [
            campaignId,
          ]),
        );
        expect(Number(spend!.spent) / 1_000_000).toBeCloseTo(bill.cost, 6);

        // Ended: its last ads, served while it ran, bill nothing.
        await setCampaign(suite.db, campaignId, { daily_budget_usd: 100_000, status: 'completed' });
        for (const { ad, ua } of last) {
          const res = await send(target, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }], { ua });
          expect(res.body.results[0]).toMatchObject({ status: 'invalid', reason: 'campaign_ended' });
        }
        expect((await billed(suite.db, campaignId)).impressions).toBe(recorded);
      });
    });

    describe("spend is checked against the advertiser's funds when an impression is billed (issue 39: $50 went to −$550 between two roll-ups)", () => {
      /** A price per impression that does not divide $50: the impression that crosses the last of the funds is a real case. */
      const PRICE_USD = 12;

      /** A new advertiser account with `usd` of funds (credited by the operator's adjustment), and its ledger balance. */
      const advertiser = async (usd: number) => {
        const user = await rawAsService(suite.db, async (q) => {
          const [row] = await q.query<{ id: string }>('insert into public.users (email, name) values ($1, $2) returning id', [
            `${id()}@funds.test`,
            'Funds Co',
          ]);
          await q.query(
            `select public.ledger_post('adjustment', 'test-funds:' || $1, now(), 'test: funds',
               jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('advertiser', $1::uuid), 'amount_micro', $2::bigint),
                                 jsonb_build_object('account_id', public.ledger_account('payments_in', null), 'amount_micro', -$2::bigint)))`,
            [row!.id, usd * 1_000_000],
          );
          return row!.id;
        });
        return user;
      };
      const balance = async (user: string) => {
        const [row] = await rawAsService(suite.db, (q) =>
          q.query<{ micro: string }>("select public.ledger_balance_micro('advertiser', $1)::text as micro", [user]),
        );
        return Number(row!.micro) / 1_000_000;
      };
      /** An active campaign of the advertiser's, with one sponsored card, that the draw all but always picks. */
      const fundedCampaign = (owner: string, name: string) =>
        rawAsService(suite.db, async (q) => {
          const [row] = await q.query<{ id: string }>(
            `insert into public.campaigns (advertiser_id, advertiser, name, daily_budget_micro, frequency_cap) values ($1, $2, $2, 100000000000, 100) returning id`,
            [owner, name],
          );
          await q.query(
            `insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'sponsored_card', $2, 'https://funds.example/')`,
            [row!.id, name],
          );
          return row!.id;
        });
      /** `count` ads of each named campaign, served to one client (`ua`). */
      const serveOf = async (a: App, names: string[], count: number, ua: string) => {
        const served = new Map<string, AdBody[]>(names.map((name) => [name, []]));
        for (let i = 0; [...served.values()].some((list) => list.length < count) && i < 40 * count * names.length; i++) {
          const ad = await fetchAd(a, { ua });
          const list = ad ? served.get(ad.ad.advertiser) : undefined;
          if (ad && list && list.length < count) list.push(ad);
        }
        for (const [name, list] of served) expect(list.length, name).toBe(count);
        return served;
      };
      const impressions = (list: AdBody[]) => list.map((ad) => ({ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }));
      /** Billed at the test price: the pricing row as it was is put back after. */
      const atPrice = async <T>(fn: () => Promise<T>): Promise<T> => {
        const [before] = await rawAsService(suite.db, (q) =>
          q.query<{ cpm: string }>('select cpm_sponsored_card_micro::text as cpm from public.pricing_settings'),
        );
        await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set cpm_sponsored_card_micro = $1', [PRICE_USD * 1000 * 1_000_000]));
        try {
          return await fn();
        } finally {
          await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set cpm_sponsored_card_micro = $1', [before!.cpm]));
        }
      };
      const stop = (ids: string[]) =>
        rawAsService(suite.db, (q) => q.query("update public.campaigns set status = 'completed' where id = any($1::uuid[]) and status <> 'completed'", [ids]));

      it('bills an advertiser with $50 at most $50 and one impression between two roll-ups, however many of its ads were served', async () => {
        const owner = await advertiser(50);
        const name = `Funds One ${id()}`;
        const campaignId = await fundedCampaign(owner, name);
        try {
          const a = await app(suite.db, suite.users.demo2, 'sponsored_card');
          const ua = `Funds/${id()}`;
          const served = (await serveOf(a, [name], 12, ua)).get(name)!;
          await servedSecondsAgo(suite.db, 5);
          const results = await atPrice(async () => {
            // One client's impressions in three batches, and no roll-up between them.
            const out: { status: string; reason?: string }[] = [];
            for (let i = 0; i < served.length; i += 4) {
              const res = await send(a, impressions(served.slice(i, i + 4)), { ua });
              expect(res.status, res.text).toBe(200);
              out.push(...(res.body.results as { status: string; reason?: string }[]));
            }
            return out;
          });
          const recorded = results.filter((r) => r.status === 'recorded').length;
          expect(results.filter((r) => r.status !== 'recorded').map((r) => r.reason)).toEqual(Array(results.length - recorded).fill('over_budget'));
          // $48 of the $50 in four impressions; the fifth crosses the last $2 and is the last billed.
          expect(recorded).toBe(5);
          expect((await billed(suite.db, campaignId)).cost).toBeCloseTo(5 * PRICE_USD, 6);
          await rollUp(suite.db);
          const left = await balance(owner);
          expect(left).toBeLessThanOrEqual(0);
          expect(left).toBeGreaterThan(-PRICE_USD);
          const [state] = await rawAsService(suite.db, (q) =>
            q.query<{ status: string; pause_reason: string | null }>('select status, pause_reason from public.campaigns where id = $1', [campaignId]),
          );
          expect(state).toEqual({ status: 'paused', pause_reason: 'out_of_funds' });
          // Posted, the spend left billing's count of the funds: what it still counts as taken is what the leases hold unspent.
          const [count] = await rawAsService(suite.db, (q) =>
            q.query<{ taken: string; held: string }>(
              `select (select taken_micro from public.sdk_advertiser_funds where advertiser_id = $1)::text as taken,
                      (select coalesce(sum(granted - spent), 0) from public.sdk_budget_leases where campaign_id = $2)::text as held`,
              [owner, campaignId],
            ),
          );
          expect(Number(count!.taken)).toBe(Number(count!.held));
        } finally {
          await stop([campaignId]);
        }
      });

      /** Two campaigns of one advertiser with $50, eight ads of each served, and `batches` of their impressions sent at once. */
      const race = async (batches: (served: Map<string, AdBody[]>, names: string[]) => AdBody[][]) => {
        const owner = await advertiser(50);
        const names = [`Funds Two A ${id()}`, `Funds Two B ${id()}`];
        const ids = [await fundedCampaign(owner, names[0]!), await fundedCampaign(owner, names[1]!)];
        try {
          const a = await app(suite.db, suite.users.demo2, 'sponsored_card');
          const ua = `Funds/${id()}`;
          const served = await serveOf(a, names, 8, ua);
          await servedSecondsAgo(suite.db, 5);
          const answers = await atPrice(() => Promise.all(batches(served, names).map((batch) => send(a, impressions(batch), { ua }))));
          const results = answers.flatMap((res) => {
            expect(res.status, res.text).toBe(200);
            return res.body.results as { status: string; reason?: string }[];
          });
          const recorded = results.filter((r) => r.status === 'recorded').length;
          expect(results.filter((r) => r.status !== 'recorded').map((r) => r.reason)).toEqual(Array(results.length - recorded).fill('over_budget'));
          const cost = (await billed(suite.db, ids[0]!)).cost + (await billed(suite.db, ids[1]!)).cost;
          expect(cost).toBeCloseTo(recorded * PRICE_USD, 6);
          expect(recorded).toBe(5);
          await rollUp(suite.db);
          const left = await balance(owner);
          expect(left).toBeLessThanOrEqual(0);
          expect(left).toBeGreaterThan(-PRICE_USD);
        } finally {
          await stop(ids);
        }
      };

      it("bills an advertiser with $50 at most $50 and one impression when two of its campaigns' batches are billed at once", () =>
        // Each campaign's ads as one batch: two batches at once.
        race((served, names) => names.map((name) => served.get(name)!)));

      it('bills an advertiser with $50 at most $50 and one impression when eight batches, each of both its campaigns, are billed at once', () =>
        // Each batch one ad of each campaign: every batch takes from both campaigns' budgets and then the one advertiser's funds.
        race((served, names) => Array.from({ length: 8 }, (_, i) => names.map((name) => served.get(name)![i]!))));
    });

    describe('an impression must be plausible', () => {
      it('is never billed sooner after its ad than its viewability rule allows (the attack sent it 7-11 ms after)', async () => {
        const a = await app(suite.db, suite.users.demo, 'sponsored_card');
        const ad = (await fetchAd(a))!;
        const res = await send(a, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }]);
        expect(res.body.results[0]).toMatchObject({ status: 'invalid', reason: 'too_soon' });
        // Sent again later under another id: the ad had its chance, and still may count once.
        await servedSecondsAgo(suite.db, 5);
        const later = await send(a, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }]);
        expect(later.body.results[0]).toMatchObject({ status: 'recorded' });
      });

      it('is never billed from a client other than the one its ad was served to', async () => {
        const a = await app(suite.db, suite.users.demo, 'sponsored_card');
        const ad = (await fetchAd(a, { ip: '198.51.100.20', ua: 'Browser/1' }))!;
        await servedSecondsAgo(suite.db, 5);
        const impression = () => ({ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE });
        expect((await send(a, [impression()], { ip: '203.0.113.20', ua: 'Browser/1' })).body.results[0]).toMatchObject({ reason: 'other_client' });
        expect((await send(a, [impression()], { ip: '198.51.100.20', ua: 'Browser/2' })).body.results[0]).toMatchObject({ reason: 'other_client' });
        // Another address of the same network, with the same browser, is the same client.
        expect((await send(a, [impression()], { ip: '198.51.100.21', ua: 'Browser/1' })).body.results[0]).toMatchObject({ status: 'recorded' });
      });

      it('is never billed on impossible evidence: more seconds in view than have passed, or the large-ad rule on a text format', async () => {
        const video = await app(suite.db, suite.users.demo, 'floating_video');
        const clip = (await fetchAd(video))!;
        await servedSecondsAgo(suite.db, 3);
        const day = await send(video, [{ id: id(), type: 'impression', token: clip.token, viewability: { visible_share: 1, visible_seconds: 86_400 } }]);
        expect(day.body.results[0]).toMatchObject({ status: 'invalid', reason: 'impossible_evidence' });

        const text = await app(suite.db, suite.users.demo, 'inline_text');
        const line = (await fetchAd(text))!;
        expect(line.viewability).not.toHaveProperty('large_ad');
        await servedSecondsAgo(suite.db, 3);
        const large = await send(text, [
          { id: id(), type: 'impression', token: line.token, viewability: { visible_share: 0.31, visible_seconds: 1.5, area_px: 242_500 } },
        ]);
        expect(large.body.results[0]).toMatchObject({ status: 'invalid', reason: 'not_viewable' });
        const [kept] = await rawAsService(suite.db, (q) =>
          q.query<{ impression_event_id: string | null }>('select impression_event_id from public.ad_decisions where id = $1', [line.decision_id]),
        );
        expect(kept).toEqual({ impression_event_id: null });
      });

      it('is not billed once the impression window has passed, on the server clock', async () => {
        const a = await app(suite.db, suite.users.demo, 'sponsored_card');
        const ad = (await fetchAd(a))!;
        await servedSecondsAgo(suite.db, 16 * 60);
        const res = await send(a, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }]);
        expect(res.body.results[0]).toMatchObject({ status: 'invalid', reason: 'too_late' });
      });

      it("caps billable impressions per network and per publisher per hour, and counts the rest in the placement's invalid traffic", async () => {
        const services = capped(2, 2);
        const a = await app(suite.db, suite.users.demo2, 'sponsored_card');
        const ads: AdBody[] = [];
        for (let i = 0; i < 4; i++) ads.push((await fetchAd(a, { ua: 'Capped/1' }))!);
        const other = (await fetchAd(a, { ip: '203.0.113.40', ua: 'Capped/2' }))!;
        await servedSecondsAgo(suite.db, 5);
        const res = await send(
          a,
          ads.map((ad) => ({ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE })),
          { ua: 'Capped/1', services },
        );
        expect(res.body.results.map((r: { status: string; reason?: string }) => r.reason ?? r.status)).toEqual([
          'recorded',
          'recorded',
          'client_limit',
          'client_limit',
        ]);

        // Another network, with room of its own: the publisher's two are taken.
        const second = await send(a, [{ id: id(), type: 'impression', token: other.token, viewability: VIEWABLE }], {
          ip: '203.0.113.40',
          ua: 'Capped/2',
          services,
        });
        expect(second.body.results[0]).toMatchObject({ status: 'invalid', reason: 'publisher_limit' });

        await rollUp(suite.db);
        const [row] = await rawAsService(suite.db, (q) =>
          q.query<{ impressions: number; invalid_events: number }>('select impressions, invalid_events from public.placements where id = $1', [a.placement]),
        );
        expect(row).toEqual({ impressions: 2, invalid_events: 3 });
      });
    });

    describe('what the review of the rules found', () => {
      it('lets an impression count when an earlier one of the same ad in the batch failed the rules', async () => {
        const a = await app(suite.db, suite.users.demo, 'sponsored_card');
        const ad = (await fetchAd(a))!;
        await servedSecondsAgo(suite.db, 5);
        const res = await send(a, [
          { id: id(), type: 'impression', token: ad.token, viewability: { visible_share: 0.4, visible_seconds: 1.2 } },
          { id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE },
          { id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE },
        ]);
        expect(res.body.results.map((r: { status: string; reason?: string }) => r.reason ?? r.status)).toEqual(['not_viewable', 'recorded', 'already_counted']);
      });

      it("does not count impressions the budget refused against the network's hourly cap", async () => {
        const services = capped(2, 1000);
        const a = await app(suite.db, suite.users.demo2, 'sponsored_card');
        const campaignId = await campaign(suite.db, 'sponsored_card', 100_000);
        const ads: AdBody[] = [];
        for (let i = 0; ads.length < 4 && i < 200; i++) {
          const ad = await fetchAd(a, { ua: 'Refunded/1' });
          if (ad?.ad.advertiser === 'Fraud Target') ads.push(ad);
        }
        await servedSecondsAgo(suite.db, 5);
        // Spent: both refused over_budget, and the network's hour still has room for two.
        await rawAsService(suite.db, (q) =>
          q.query(
            `insert into public.sdk_counters (name, period, used)
             values ('budget:' || $1, date_trunc('day', now(), 'UTC'), 100000000000::bigint)
             on conflict (name, period) do update set used = excluded.used`,
            [campaignId],
          ),
        );
        const impressions = (list: AdBody[]) => list.map((ad) => ({ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }));
        const refused = await send(a, impressions(ads.slice(0, 2)), { ua: 'Refunded/1', services });
        expect(refused.body.results.map((r: { reason?: string }) => r.reason)).toEqual(['over_budget', 'over_budget']);
        await rawAsService(suite.db, (q) => q.query(`delete from public.sdk_counters where name = 'budget:' || $1`, [campaignId]));
        const billed = await send(a, impressions(ads.slice(2)), { ua: 'Refunded/1', services });
        expect(billed.body.results.map((r: { status: string }) => r.status)).toEqual(['recorded', 'recorded']);
        await setCampaign(suite.db, campaignId, { status: 'completed' });
      });

      // PGlite has one connection: two transactions cannot wait on each other there.
      if (engine.name === 'postgres')
        it('never deadlocks: a batch with a click waits for the ads it names before it takes any counter', async () => {
          const a = await app(suite.db, suite.users.demo, 'sponsored_card');
          const ua = 'Deadlock/1';
          const [x, y, z] = [(await fetchAd(a, { ua }))!, (await fetchAd(a, { ua }))!, (await fetchAd(a, { ua }))!];
          await servedSecondsAgo(suite.db, 5);
          const secret = await suite.services.sdkSecret();
          const client = clientHash(secret, '192.0.2.66', ua);
          const [owner] = await rawAsService(suite.db, (q) => q.query<{ user_id: string }>('select user_id from public.apps where id = $1', [a.appId]));
          const claims = JSON.stringify({ role: 'sdk', app_id: a.appId, user_id: owner!.user_id });
          const record = (tx: { query: (text: string, params?: unknown[]) => Promise<unknown[]> }, events: object[]) =>
            tx.query(`select * from public.sdk_record_events($1::jsonb, 'address', $2, false, 1000, 1000000)`, [JSON.stringify(events), client]);
          const imp = (ad: AdBody, n: number) => ({ n, id: `${ad.decision_id}.impression`, kind: 'impression', decision_id: ad.decision_id, ...VIEWABLE });
          let holding!: () => void;
          const held = new Promise<void>((resolve) => (holding = resolve));
          // B holds X, as its first step would; A then sends Y's impression and X's click; then B records X and Z.
          const b = suite.db.transaction(async (tx) => {
            await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'sdk', true)", [claims]);
            await tx.query('select id from public.ad_decisions where id = $1 for update', [x.decision_id]);
            holding();
            await new Promise((r) => setTimeout(r, 300));
            return record(tx, [imp(x, 0), imp(z, 1)]);
          });
          await held;
          const a_ = suite.db.transaction(async (tx) => {
            await tx.query("select set_config('request.jwt.claims', $1, true), set_config('role', 'sdk', true)", [claims]);
            return record(tx, [imp(y, 0), { n: 1, id: `${x.decision_id}.click`, kind: 'click', decision_id: x.decision_id }]);
          });
          const byN = (rows: unknown[]) => [...(rows as { n: number }[])].sort((x, y) => x.n - y.n);
          const [fromB, fromA] = (await Promise.all([b, a_])).map(byN);
          // Both went through: B's impressions first (A waited for X), then A's impression and X's click.
          expect(fromA).toEqual([
            { n: 0, outcome: 'recorded', reason: null },
            { n: 1, outcome: 'recorded', reason: null },
          ]);
          expect(fromB).toEqual([
            { n: 0, outcome: 'recorded', reason: null },
            { n: 1, outcome: 'recorded', reason: null },
          ]);
        });

      it('never deadlocks a batch of an impression and a click against a batch of impressions of the same ads', async () => {
        const a = await app(suite.db, suite.users.demo, 'sponsored_card');
        for (let round = 0; round < 10; round++) {
          const [x, y, z] = [
            (await fetchAd(a, { ua: `Race/${round}` }))!,
            (await fetchAd(a, { ua: `Race/${round}` }))!,
            (await fetchAd(a, { ua: `Race/${round}` }))!,
          ];
          await servedSecondsAgo(suite.db, 5);
          const imp = (ad: AdBody) => ({ id: `${ad.decision_id}.impression`, type: 'impression', token: ad.token, viewability: VIEWABLE });
          await send(a, [imp(x)], { ua: `Race/${round}` });
          const answers = await Promise.all([
            send(a, [imp(y), { id: `${x.decision_id}.click`, type: 'click', token: x.token }], { ua: `Race/${round}` }),
            send(a, [imp(x), imp(z)], { ua: `Race/${round}` }),
          ]);
          for (const res of answers) expect(res.status, res.text).toBe(200);
        }
      });
    });

    describe('caps count networks, not browser names (issue 39: one address, a new User-Agent per ad, billed 6,633 impressions an hour)', () => {
      /** The suite's services as a deployment makes them from its environment, with `vars` set: the caps as configured, not as a test builds them. */
      const configured = (vars: Record<string, string>): Services => {
        const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
        Object.assign(process.env, vars);
        resetEnv();
        try {
          return makeServices({ database: suite.db, rateLimiter: UNLIMITED() });
        } finally {
          for (const [k, v] of Object.entries(saved)) {
            if (v === undefined) delete process.env[k];
            else process.env[k] = v;
          }
          resetEnv();
        }
      };

      it("the documented allowances of a network are the defaults: 960 billable impressions an hour per publisher, four times a campaign's frequency cap", async () => {
        const rules = await readFile(path.join(process.cwd(), 'content/docs/sdk-integration.md'), 'utf8');
        expect(rules).toContain('At most 960 billable impressions per hour from one network');
        expect(rules).toContain('four times its frequency cap of requests from this network');
        const defaults = parseEnv({});
        expect(defaults.SDK_NETWORK_IMPRESSIONS_PER_HOUR).toBe(960);
        expect(defaults.SDK_NETWORK_FREQUENCY_FACTOR).toBe(4);
        // The old name still configures the cap when the new one is not set.
        expect(parseEnv({ SDK_CLIENT_IMPRESSIONS_PER_HOUR: '240' }).SDK_NETWORK_IMPRESSIONS_PER_HOUR).toBe(240);
        expect(parseEnv({ SDK_CLIENT_IMPRESSIONS_PER_HOUR: '240', SDK_NETWORK_IMPRESSIONS_PER_HOUR: '500' }).SDK_NETWORK_IMPRESSIONS_PER_HOUR).toBe(500);
      });

      it('bills one address that names a new User-Agent for every ad no more than the hourly cap of its network', async () => {
        const PER_NETWORK = 6;
        const services = configured({ SDK_NETWORK_IMPRESSIONS_PER_HOUR: String(PER_NETWORK) });
        const a = await app(suite.db, suite.users.demo2, 'sponsored_card');
        // The attack's shape: each ad fetched as a browser never seen before, from one IPv4 address.
        const served: { ad: AdBody; ua: string }[] = [];
        for (let i = 0; i < 3 * PER_NETWORK; i++) {
          const ua = `Mozilla/5.0 (rotating ${i}) ${id()}`;
          served.push({ ad: (await fetchAd(a, { ip: '198.51.100.77', ua, services }))!, ua });
        }
        const elsewhere = await fetchAd(a, { ip: '203.0.113.77', ua: 'Mozilla/5.0 (elsewhere)', services });
        await servedSecondsAgo(suite.db, 5);
        // Each impression from the browser its ad was served to, so that the same-client rule passes; the
        // first half from the address, the rest from its neighbours in the /24.
        const reasons: string[] = [];
        for (const [n, { ad, ua }] of served.entries()) {
          const ip = n < served.length / 2 ? '198.51.100.77' : `198.51.100.${100 + n}`;
          const res = await send(a, [{ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }], { ip, ua, services });
          expect(res.status, res.text).toBe(200);
          reasons.push(res.body.results[0].reason ?? res.body.results[0].status);
        }
        expect(reasons.filter((r) => r === 'recorded')).toHaveLength(PER_NETWORK);
        expect(reasons.filter((r) => r !== 'recorded')).toEqual(Array(served.length - PER_NETWORK).fill('client_limit'));
        const [billedHere] = await rawAsService(suite.db, (q) =>
          q.query<{ n: number }>('select count(*)::int as n from public.ad_decisions where app_id = $1 and impression_event_id is not null', [a.appId]),
        );
        expect(billedHere!.n).toBe(PER_NETWORK);
        // Another network has a budget of its own.
        const other = await send(a, [{ id: id(), type: 'impression', token: elsewhere!.token, viewability: VIEWABLE }], {
          ip: '203.0.113.77',
          ua: 'Mozilla/5.0 (elsewhere)',
          services,
        });
        expect(other.body.results[0]).toMatchObject({ status: 'recorded' });
      });

      it("stops showing a campaign's ads to one network with a new User-Agent per ad at four times its frequency cap; another network still sees them", async () => {
        const CAP = 2;
        const a = await app(suite.db, suite.users.demo2, 'inline_text');
        // A campaign the draw all but always picks while it may fill (its budget dwarfs every other).
        const campaignId = await rawAsService(suite.db, async (q) => {
          const [row] = await q.query<{ id: string }>(
            `insert into public.campaigns (advertiser, name, daily_budget_micro, frequency_cap) values ('Network Cap', 'Capped per network', 1000000000000000, $1) returning id`,
            [CAP],
          );
          await q.query(
            `insert into public.creatives (campaign_id, format, headline, landing_url) values ($1, 'inline_text', 'Capped', 'https://capped.example/')`,
            [row!.id],
          );
          return row!.id;
        });
        try {
          const shown: boolean[] = [];
          for (let i = 0; i < 4 * CAP + 6; i++) {
            // A new browser each time, from two addresses of one /24.
            const ad = await fetchAd(a, { ip: `198.51.100.${30 + (i % 2)}`, ua: `Mozilla/5.0 (rotating ${i}) ${id()}` });
            shown.push(ad?.ad.advertiser === 'Network Cap');
          }
          expect(shown).toEqual([...Array(4 * CAP).fill(true), ...Array(6).fill(false)]);
          // Another /24, and an IPv6 /64, are other networks.
          expect((await fetchAd(a, { ip: '203.0.113.30', ua: 'Mozilla/5.0 (rotating 0)' }))?.ad.advertiser).toBe('Network Cap');
          expect((await fetchAd(a, { ip: '2001:db8:30::1', ua: 'Mozilla/5.0 (rotating 0)' }))?.ad.advertiser).toBe('Network Cap');
        } finally {
          await setCampaign(suite.db, campaignId, { status: 'completed' });
        }
      });
    });

    describe('invalid traffic is counted, not kept per request', () => {
      it('keeps one row per ad, kind and reason however many events a stranger sends with one token', async () => {
        const a = await app(suite.db, suite.users.demo, 'sponsored_card');
        const ad = (await fetchAd(a))!;
        const events = Array.from({ length: 100 }, () => ({ id: id(), type: 'impression', token: ad.token, viewability: VIEWABLE }));
        // No key: a beacon, authenticated by its token alone.
        const res = await sdk('/functions/v1/events', { method: 'POST', body: JSON.stringify({ events }), headers: { 'content-type': 'text/plain' } });
        expect(res.status, res.text).toBe(200);
        expect(res.body.invalid).toBe(100);
        const [kept] = await rawAsService(suite.db, (q) =>
          q.query<{ n: number }>('select count(*)::int as n from public.ad_events where decision_id = $1', [ad.decision_id]),
        );
        expect(kept!.n).toBe(1);
        await rollUp(suite.db);
        const [row] = await rawAsService(suite.db, (q) =>
          q.query<{ invalid_events: number }>('select invalid_events from public.placements where id = $1', [a.placement]),
        );
        expect(row!.invalid_events).toBe(100);
      });
    });
  });
}
