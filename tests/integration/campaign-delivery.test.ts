import { describe, expect, it } from 'vitest';
import { campaignDelivery, deliveryReport } from '../../lib/ads/advertisers/delivery';
import { micro } from '../../lib/platform/kit/micro';
import type { Queryable } from '../../lib/platform/db/engine';
import { newDraftAdvertiser } from '../helpers/advertisers';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/**
 * A campaign's delivery panel (public.advertiser_campaign_delivery): today's requests on the
 * placements the campaign targets and no others, the requests nobody was given and why, the ones
 * it won (counted before the roll-up folds them in), the last week's requests, the competing
 * budgets; the market's figures rounded, the campaign's own exact; nobody else's campaign.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`a campaign's delivery on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    it('counts the requests of what it targets today, what it won, and rounds what is the market’s', async () => {
      const { user, campaign } = await newDraftAdvertiser(suite.db, suite.services, { label: 'Delivery', formats: ['sponsored_card'] });
      // Only apps of one category no seeded app has: the requests it targets are this test's.
      const { targeted, other, app } = await rawAsService(suite.db, async (q) => {
        const owner = await one<string>(q, 'insert into public.users (email) values ($1) returning id as v', [`${campaign}@delivery.test`]);
        const app = await one<string>(q, "insert into public.apps (user_id, name, slug, category) values ($1, 'Odds', $2, '{gambling}') returning id as v", [
          owner,
          `odds-${campaign.slice(0, 8)}`,
        ]);
        const place = (format: string) =>
          one<string>(q, 'insert into public.placements (app_id, user_id, name, format) values ($1, $2, $3, $3) returning id as v', [app, owner, format]);
        return { targeted: await place('sponsored_card'), other: await place('inline_text'), app };
      });
      await suite.db.query("update public.campaigns set include_categories = '{gambling}' where id = $1", [campaign]);
      expect(await one<number>(suite.db, "select count(*)::int as v from public.apps where 'gambling' = any(category)")).toBe(1);

      const today = "(now() at time zone 'UTC')::date";
      await rawAsService(suite.db, async (q) => {
        const count = (placement: string, requests: number, fills: number, reason: string | null, campaignId: string | null) =>
          q.query(
            `insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, requests, fills, no_fill_reason)
             values ($1, $2, $3, ${today}, $4, $5, $6)`,
            [app, placement, campaignId, requests, fills, reason],
          );
        await count(targeted, 1200, 0, null, null);
        await count(targeted, 34, 0, 'sensitive', null);
        await count(targeted, 3, 3, null, campaign);
        await count(other, 5000, 0, null, null);
        for (let d = 1; d <= 7; d++)
          await q.query(
            `insert into public.daily_stats (placement_id, user_id, day, ad_requests) select $1, p.user_id, ${today} - $2::int, 700 from public.placements p where p.id = $1`,
            [targeted, d],
          );
      });

      const d = (await campaignDelivery(suite.db, user.id, campaign))!;
      // 1,237 requests on the one placement it targets (the 5,000 of a format it does not buy are not counted), rounded.
      expect(d.requests).toBe(1200);
      expect(d.unfilled).toEqual({ sensitive: 30, below_relevance: 0, blocked: 0, no_eligible_campaign: 0 });
      // Its own: exact, before any roll-up.
      expect(d.won).toBe(3);
      expect(d.week_requests).toBe(4900);
      expect(d.creative_formats).toEqual([]);
      // Other advertisers' budgets: rounded to two significant figures.
      expect(d.competing_budget_micro).toBeGreaterThan(0);
      expect(String(d.competing_budget_micro).replace(/0+$/, '').length).toBeLessThanOrEqual(2);

      const report = deliveryReport({ status: 'draft', formats: ['sponsored_card'], starts_at: new Date() }, d, micro(0), {
        floating_video: 12e6,
        tooltip: 4e6,
        sponsored_card: 8e6,
        inline_text: 5e6,
        sponsored_follow_up: 6e6,
      });
      expect(report.blockers).toEqual([
        'It is not approved yet: send it to review.',
        'It has no approved creative in a format it buys.',
        'Your balance is empty.',
      ]);
      expect(report.estimate.requestsPerDay).toBe(700);

      // Nobody else's campaign: not the demo publisher's, not another advertiser's.
      expect(await campaignDelivery(suite.db, suite.users.demo, campaign)).toBeNull();
      const other2 = await newDraftAdvertiser(suite.db, suite.services, { label: 'Delivery', formats: ['sponsored_card'] });
      expect(await campaignDelivery(suite.db, other2.user.id, campaign)).toBeNull();
    });
  });
}
