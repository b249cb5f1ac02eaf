import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { rollUp } from '@/lib/ads/serving/rollup';
import { adBody, eventsBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { newSdkApp, sdk, servedSecondsAgo, type SdkApp } from '../helpers/sdk';
import { signDecisionToken } from '@/lib/ads/serving/tokens';
import { rawAsService } from '../helpers/roles';

/**
 * "Hide this ad", on every engine: a `hide` event from the client the ad was served to is
 * recorded once, bills nothing, keeps that campaign from that client on that app for 30 days
 * (and from no one else, nowhere else), and is counted in both sides' reports; the roll-up
 * forgets it once its 30 days are over (content/docs/sdk-integration.md, Counting rules).
 */

type App = SdkApp;

/** A conversation only the demo's Lumen Notes fits (its hints: lib/demo/seed.ts). */
const NOTES = { messages: [{ role: 'user', content: 'which app should I use to keep my meeting notes in one place?' }] };
/** One browser; each test's clients on networks (/24) of their own, which a campaign's frequency cap counts by. */
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

for (const engine of testEngines()) {
  describe(`hiding an ad on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let a: App;

    const app = (db: Engine): Promise<App> => newSdkApp(db, suite.users.demo);

    const ask = (p: App, ip: string, context: unknown = NOTES) =>
      sdk('/functions/v1/ads', {
        body: { placement_id: p.placement, ...(context ? { context } : {}) },
        headers: { 'x-api-key': p.key, 'user-agent': BROWSER },
        ip,
        services: suite.services,
      });
    const send = async (p: App, ip: string, events: { id: string; type: string; token: string; viewability?: unknown }[], userAgent = BROWSER) => {
      const res = await sdk('/functions/v1/events', {
        body: { events },
        headers: { 'x-api-key': p.key, 'user-agent': userAgent },
        ip,
        services: suite.services,
      });
      expect(res.status, res.text).toBe(200);
      return eventsBody.parse(res.body).results.map((r) => (r.reason ? `${r.status}:${r.reason}` : r.status));
    };
    /** The advertiser of the ad a request got, or why none. */
    const advertiserFor = async (p: App, ip: string, context: unknown = NOTES) => {
      const res = await ask(p, ip, context);
      return res.status === 200 ? adBody.parse(res.body).ad.advertiser : `none:${res.headers.get('no-fill-reason')}`;
    };
    const lumen = async (p: App, ip: string) => {
      const res = await ask(p, ip);
      expect(res.status, res.headers.get('no-fill-reason') ?? res.text).toBe(200);
      const body = adBody.parse(res.body);
      expect(body.ad.advertiser).toBe('Lumen Notes');
      return body;
    };
    const asService = <T>(text: string, params: unknown[] = []) => rawAsService(suite.db, (q) => q.query<T & Record<string, unknown>>(text, params));

    beforeAll(async () => {
      a = await app(suite.db);
    });

    it('records a hide from the ad’s client once, bills nothing, and keeps that campaign from that client on that app', async () => {
      const ad = await lumen(a, '198.18.1.10');
      expect(await send(a, '198.18.1.10', [{ id: 'hide-1', type: 'hide', token: ad.token }])).toEqual(['recorded']);
      // A retry changes nothing; a second hide of the same ad is not a second hide.
      expect(await send(a, '198.18.1.10', [{ id: 'hide-1', type: 'hide', token: ad.token }])).toEqual(['duplicate']);
      expect(await send(a, '198.18.1.10', [{ id: 'hide-2', type: 'hide', token: ad.token }])).toEqual(['invalid:already_counted']);

      const [decision] = await asService<{ hide_event_id: string; hidden: boolean; cost_micro: string; impressed: boolean }>(
        'select hide_event_id, hidden_at is not null as hidden, cost_micro::text, impressed_at is not null as impressed from public.ad_decisions where id = $1',
        [ad.decision_id],
      );
      expect(decision).toEqual({ hide_event_id: 'hide-1', hidden: true, cost_micro: '0', impressed: false });

      // That client, on that app: never Lumen Notes again, with the conversation or without.
      expect(await advertiserFor(a, '198.18.1.10')).toBe('none:no_eligible_campaign');
      for (let i = 0; i < 15; i++) expect(await advertiserFor(a, '198.18.1.10', null)).not.toBe('Lumen Notes');
      // Another client (another network), and the same client on another app, still get it.
      await lumen(a, '198.18.2.10');
      await lumen(await app(suite.db), '198.18.1.10');
    });

    it('refuses a hide from another client or a robot, and then hides nothing', async () => {
      const ad = await lumen(a, '198.18.3.10');
      const invalid = async () => {
        const [row] = await asService<{ n: string }>(
          `select ((select coalesce(sum(invalid), 0) from public.ad_traffic_counts where placement_id = $1)
                 + (select coalesce(sum(invalid_events), 0) from public.daily_stats where placement_id = $1))::text as n`,
          [a.placement],
        );
        return row!.n;
      };
      const before = await invalid();
      expect(await send(a, '198.18.4.10', [{ id: 'other-client', type: 'hide', token: ad.token }])).toEqual(['invalid:other_client']);
      expect(await send(a, '198.18.3.10', [{ id: 'robot', type: 'hide', token: ad.token }], 'Googlebot/2.1 (+http://www.google.com/bot.html)')).toEqual([
        'invalid:bot',
      ]);
      expect(await send(a, '198.18.3.10', [{ id: 'forged', type: 'hide', token: `${ad.token.slice(0, -2)}xx` }])).toEqual(['rejected:invalid_token']);
      // Kept for review, but no invalid traffic: a hide bills nothing either way.
      const kept = await asService<{ reason: string }>(
        "select invalid_reason as reason from public.ad_events where decision_id = $1 and kind = 'hide' order by 1",
        [ad.decision_id],
      );
      expect(kept.map((r) => r.reason)).toEqual(['bot', 'other_client']);
      expect(await invalid()).toBe(before);
      await lumen(a, '198.18.3.10');
    });

    it('takes a hide hours after its ad, with a token past its hour, and none 35 days after it', async () => {
      const ad = await lumen(a, '198.18.7.10');
      const key = await suite.services.sdkSecret();
      const token = (hoursAgo: number) =>
        signDecisionToken(key, { decisionId: ad.decision_id, appId: a.appId, expiresAt: Math.floor(Date.now() / 1000) - hoursAgo * 3600 });
      expect(await send(a, '198.18.7.10', [{ id: 'impression-late', type: 'impression', token: token(2) }])).toEqual(['rejected:expired_token']);
      expect(await send(a, '198.18.7.10', [{ id: 'hide-late', type: 'hide', token: token(35 * 24) }])).toEqual(['rejected:expired_token']);
      expect(await send(a, '198.18.7.10', [{ id: 'hide-late', type: 'hide', token: token(5) }])).toEqual(['recorded']);
    });

    it('counts an impression and a hide of one ad in one batch, and each hide of a batch of several', async () => {
      const ads = [await lumen(a, '198.18.8.10'), await lumen(a, '198.18.8.10'), await lumen(a, '198.18.8.10')];
      await servedSecondsAgo(suite.db, 5);
      const seen = { visible_share: 1, visible_seconds: 1.5 };
      expect(
        await send(a, '198.18.8.10', [
          { id: 'seen-0', type: 'impression', token: ads[0]!.token, viewability: seen },
          ...ads.map((ad, i) => ({ id: `hidden-${i}`, type: 'hide', token: ad.token })),
        ]),
      ).toEqual(['recorded', 'recorded', 'recorded', 'recorded']);
      const rows = await asService<{ impressed: boolean; hidden: boolean }>(
        'select impressed_at is not null as impressed, hidden_at is not null as hidden from public.ad_decisions where id = any($1::uuid[]) order by id',
        [ads.map((ad) => ad.decision_id).sort()],
      );
      expect(rows.filter((r) => r.hidden)).toHaveLength(3);
      expect(rows.filter((r) => r.impressed)).toHaveLength(1);
    });

    it('counts a hide once when two race for one ad', async () => {
      const ad = await lumen(a, '198.18.5.10');
      const answers = await Promise.all(['race-1', 'race-2', 'race-3'].map((id) => send(a, '198.18.5.10', [{ id, type: 'hide', token: ad.token }])));
      expect(answers.flat().sort()).toEqual(['invalid:already_counted', 'invalid:already_counted', 'recorded']);
    });

    it('counts hides in the publisher’s and the advertiser’s daily figures, and forgets a hide once its 30 days are over', async () => {
      const p = await app(suite.db);
      const ad = await lumen(p, '198.18.6.10');
      expect(await send(p, '198.18.6.10', [{ id: 'counted', type: 'hide', token: ad.token }])).toEqual(['recorded']);
      await rollUp(suite.db);
      const [publisher] = await asService<{ hides: string }>('select sum(hides)::text as hides from public.daily_stats where placement_id = $1', [p.placement]);
      expect(publisher!.hides).toBe('1');
      const [advertiser] = await asService<{ hides: string; spent: string }>(
        'select sum(hides)::text as hides, sum(spent_micro)::text as spent from public.campaign_daily_stats where app_id = $1',
        [p.appId],
      );
      // Served and hidden, never seen long enough to bill: nothing spent.
      expect(advertiser).toEqual({ hides: '1', spent: '0' });

      // Thirty days later the roll-up sweeps the hide, and the campaign may be drawn for the client again.
      expect(await advertiserFor(p, '198.18.6.10')).toBe('none:no_eligible_campaign');
      // As the database's owner: only the SDK's role and the roll-up's touch the table.
      await suite.db.query("update public.ad_hides set hidden_until = now() - interval '1 second' where app_id = $1", [p.appId]);
      await lumen(p, '198.18.6.10');
      await rollUp(suite.db);
      expect(await asService('select 1 from public.ad_hides where app_id = $1', [p.appId])).toEqual([]);
    });
  });
}
