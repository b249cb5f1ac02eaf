import { beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { rollUp } from '@/lib/ads/serving/rollup';
import { adBody, eventsBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { newSdkApp, sdk, type SdkApp } from '../helpers/sdk';
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
    const send = async (p: App, ip: string, events: { id: string; type: string; token: string }[], userAgent = BROWSER) => {
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
      expect(await send(a, '198.18.4.10', [{ id: 'other-client', type: 'hide', token: ad.token }])).toEqual(['invalid:other_client']);
      expect(await send(a, '198.18.3.10', [{ id: 'robot', type: 'hide', token: ad.token }], 'Googlebot/2.1 (+http://www.google.com/bot.html)')).toEqual([
        'invalid:bot',
      ]);
      expect(await send(a, '198.18.3.10', [{ id: 'forged', type: 'hide', token: `${ad.token.slice(0, -2)}xx` }])).toEqual(['rejected:invalid_token']);
      await lumen(a, '198.18.3.10');
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
