import { beforeAll, describe, expect, it } from 'vitest';
import { rollUp } from '@/lib/ads/serving/rollup';
import { checkMoney } from '@/lib/money/ledger-check';
import type { Engine } from '@/lib/platform/db/engine';
import { adBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';
import { newSdkApp, sdk, servedSecondsAgo, type SdkApp } from '../helpers/sdk';

/**
 * Cost per click (issue 44, migration 20261221000300_cost_per_click), on both engines. One demo
 * campaign is left running on a sponsored card placement of its own and made to pay per click:
 * it draws only where its bid times its estimated click rate reaches the card's price per
 * impression; its impressions bill nothing; each valid click bills its bid once, within the
 * campaign's daily budget; the publisher earns its share; and the ledger and money:check agree.
 */

const VIEWABLE = { visible_share: 0.8, visible_seconds: 1.2 };
const failedChecks = async (db: Engine) => (await checkMoney(db)).filter((r) => r.count > 0).map((r) => `${r.name}: ${r.found.join('; ')}`);

async function one<T>(db: Engine, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await rawAsService(db, (q) => q.query<{ v: T }>(text, params));
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`cost per click on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let app: SdkApp;
    let campaign: string;
    let advertiser: string;
    /** The sponsored card's price per impression, in micro-dollars. */
    let perImpression: number;
    let ip = 20;
    let n = 0;

    /**
     * A new campaign of the demo advertiser's paying per click, with one sponsored card, and every
     * other campaign paused, so that every fill is this one's. A new one per test that needs a
     * budget of its own: a budget's leases may hold what earlier clicks took ahead.
     */
    async function fresh(dailyBudgetMicro = 500_000_000): Promise<void> {
      campaign = await rawAsService(suite.db, async (q) => {
        await q.query("update public.campaigns set status = 'paused', pause_reason = 'advertiser' where status = 'active'");
        const [row] = await q.query<{ id: string }>(
          `insert into public.campaigns (advertiser_id, advertiser, name, status, daily_budget_micro, daily_cap_micro, lifetime_budget_micro, frequency_cap, formats, starts_at)
           values ($1, 'Per click', 'Per click', 'active', $2, $2, 1000000000, 100, '{sponsored_card}', now() - interval '1 day') returning id`,
          [advertiser, dailyBudgetMicro],
        );
        await q.query(
          "insert into public.creatives (campaign_id, format, status, headline, body, cta, landing_url) values ($1, 'sponsored_card', 'active', 'Pay per click', 'A card.', 'Go', 'https://cpc.example/')",
          [row!.id],
        );
        return row!.id;
      });
    }

    beforeAll(async () => {
      app = await newSdkApp(suite.db, suite.users.demo);
      advertiser = await one<string>(suite.db, "select id as v from public.users where email = 'advertiser@example.com'");
      perImpression = await one<number>(suite.db, 'select ((cpm_sponsored_card_micro + 500) / 1000)::int as v from public.pricing_settings');
      await fresh();
    });

    const bid = (micro: number) => rawAsService(suite.db, (q) => q.query('update public.campaigns set max_cpc_micro = $2 where id = $1', [campaign, micro]));
    const ask = (from: string) => sdk(`/functions/v1/ads?placement_id=${app.placement}`, { headers: { 'x-api-key': app.key }, ip: from });

    /** An ad served and seen from a new address; its token. */
    async function seen(): Promise<{ token: string; decision: string; from: string }> {
      const from = `198.51.100.${++ip}`;
      const served = await ask(from);
      expect(served.status, served.text).toBe(200);
      const ad = adBody.parse(served.body);
      await servedSecondsAgo(suite.db, 5);
      const shown = await sdk('/functions/v1/events', {
        body: { events: [{ id: `imp-${++n}`, type: 'impression', token: ad.token, viewability: VIEWABLE }] },
        headers: { 'x-api-key': app.key },
        ip: from,
      });
      expect(shown.body.results[0], shown.text).toMatchObject({ status: 'recorded' });
      return { token: ad.token, decision: ad.token.split('.')[0]!, from };
    }

    const clickOn = async (ad: { token: string; from: string }) =>
      (
        await sdk('/functions/v1/events', {
          body: { events: [{ id: `click-${++n}`, type: 'click', token: ad.token }] },
          headers: { 'x-api-key': app.key },
          ip: ad.from,
        })
      ).body.results[0] as { status: string; reason?: string };

    const decisionMoney = (decision: string) =>
      rawAsService(suite.db, (q) =>
        q.query<{ cost_micro: number; revenue_micro: number; click_cost_micro: number; click_revenue_micro: number }>(
          'select cost_micro::int, revenue_micro::int, click_cost_micro::int, click_revenue_micro::int from public.ad_decisions where id = $1',
          [decision],
        ),
      ).then((rows) => rows[0]!);

    it("is not served where its bid times the prior click rate is below the format's price per impression, and is where it reaches it", async () => {
      // 1% prior: the card needs a bid of 100 impressions' price.
      await bid(perImpression * 100 - 100);
      const below = await ask(`198.51.100.${++ip}`);
      expect(below.status).toBe(204);
      expect(below.headers.get('no-fill-reason')).toBe('no_eligible_campaign');
      await bid(perImpression * 100);
      expect((await ask(`198.51.100.${++ip}`)).status).toBe(200);
      // With data: 100,000 impressions and no click bring the estimate near 0, and the campaign out of the draw.
      await rawAsService(suite.db, (q) =>
        q.query('insert into public.campaign_placement_stats (campaign_id, placement_id, impressions, clicks) values ($1, $2, 100000, 0)', [
          campaign,
          app.placement,
        ]),
      );
      expect((await ask(`198.51.100.${++ip}`)).status).toBe(204);
      // And 2,000 clicks of them make it clear again.
      await rawAsService(suite.db, (q) => q.query('update public.campaign_placement_stats set clicks = 2000 where campaign_id = $1', [campaign]));
      expect((await ask(`198.51.100.${++ip}`)).status).toBe(200);
      await rawAsService(suite.db, (q) => q.query('update public.campaign_placement_stats set impressions = 0, clicks = 0 where campaign_id = $1', [campaign]));
    });

    it('refuses a bid under the floor in the pricing settings, whatever the click rate', async () => {
      const floor = await one<number>(suite.db, 'select cpc_floor_micro::int as v from public.pricing_settings');
      await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set cpc_floor_micro = $1', [perImpression * 1000]));
      try {
        await bid(perImpression * 500);
        expect((await ask(`198.51.100.${++ip}`)).status).toBe(204);
      } finally {
        await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set cpc_floor_micro = $1', [floor]));
      }
    });

    it('bills each valid click its bid once, never an impression, and the publisher its share; the ledger agrees', async () => {
      const price = perImpression * 150;
      await bid(price);
      const share = await one<number>(suite.db, 'select publisher_ad_revenue_share::float8 as v from public.pricing_settings');
      const before = await one<number>(
        suite.db,
        "select coalesce(sum(p.amount_micro), 0)::bigint as v from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id where a.kind = 'advertiser' and a.user_id = $1",
        [advertiser],
      );
      const ad = await seen();
      expect(await decisionMoney(ad.decision)).toEqual({ cost_micro: 0, revenue_micro: 0, click_cost_micro: 0, click_revenue_micro: 0 });
      expect(await clickOn(ad)).toEqual({ id: expect.any(String), status: 'recorded' });
      // Clicked again, and through the click URL: once.
      expect(await clickOn(ad)).toMatchObject({ status: 'invalid', reason: 'already_counted' });
      expect(await decisionMoney(ad.decision)).toEqual({
        cost_micro: 0,
        revenue_micro: 0,
        click_cost_micro: price,
        click_revenue_micro: Math.round(price * share),
      });
      await rollUp(suite.db);
      const after = await one<number>(
        suite.db,
        "select coalesce(sum(p.amount_micro), 0)::bigint as v from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id where a.kind = 'advertiser' and a.user_id = $1",
        [advertiser],
      );
      expect(Number(before) - Number(after)).toBe(price);
      // The publisher sees what the click earned beside the impressions' earnings.
      const placement = await rawAsService(suite.db, (q) =>
        q.query<{ revenue: number; clicks: number }>(
          'select revenue_micro::int as revenue, click_revenue_micro::int as clicks from public.placements where id = $1',
          [app.placement],
        ),
      );
      expect(placement[0]).toEqual({ revenue: Math.round(price * share), clicks: Math.round(price * share) });
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('bills an ad as it was served: a bid changed, or a switch to CPM, after the ad was drawn reaches only later ads', async () => {
      await fresh();
      const price = perImpression * 150;
      await bid(price);
      const ad = await seen();
      // After the ad was served (and seen), the campaign switches to CPM, then back to a lower bid.
      await bid(null as unknown as number);
      expect(await clickOn(ad)).toMatchObject({ status: 'recorded' });
      expect(await decisionMoney(ad.decision)).toMatchObject({ cost_micro: 0, click_cost_micro: price });
      // An ad served as CPM is billed its impression, and its click nothing.
      const cpm = await seen();
      expect(await decisionMoney(cpm.decision)).toMatchObject({ cost_micro: perImpression, click_cost_micro: 0 });
      await bid(perImpression * 120);
      expect(await clickOn(cpm)).toMatchObject({ status: 'recorded' });
      expect(await decisionMoney(cpm.decision)).toMatchObject({ cost_micro: perImpression, click_cost_micro: 0 });
      await rollUp(suite.db);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    it('holds its daily budget at billing: a click past it is over_budget and bills nothing', async () => {
      const price = perImpression * 150;
      // A campaign whose budget for the day is two clicks.
      await fresh(2 * price);
      await bid(price);
      const ads = [await seen(), await seen(), await seen()];
      const outcomes = [];
      for (const ad of ads) outcomes.push(await clickOn(ad));
      expect(outcomes.map((o) => o.status)).toEqual(['recorded', 'recorded', 'invalid']);
      expect(outcomes[2]!.reason).toBe('over_budget');
      expect((await decisionMoney(ads[2]!.decision)).click_cost_micro).toBe(0);
      await rollUp(suite.db);
      expect(await failedChecks(suite.db)).toEqual([]);
    });
  });
}
