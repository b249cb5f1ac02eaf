import { describe, expect, it } from 'vitest';
import { AD_DATA_PREFIX, appendAd, createServerClient, type NoAd } from '@/packages/server/src/index';
import { createApiKey } from '@/lib/publisher/writes';
import { eventsBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { newSdkApp, sdk, servedSecondsAgo } from '../helpers/sdk';

/**
 * The server package (packages/server) against this service's own route, in process, on every
 * engine: `getAd` with a server key gets the ad that fits the conversation, bound to the end
 * user's client, whose browser then counts it; the ad arrives as the answer's last chunk; a
 * sensitive conversation or a revoked key is `null`, never an exception.
 */

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const SERVER_IP = '198.51.100.30';

for (const engine of testEngines()) {
  describe(`the server package on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    /** `fetch` as the app's server sends it, answered by the route in process. */
    const inProcess: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const headers = new Headers(request.headers);
      headers.set('x-forwarded-for', SERVER_IP);
      const url = new URL(request.url);
      const handler = handlersOf(url.pathname as '/functions/v1/ads', suite.services)[request.method as 'POST'];
      return handler(new Request(request, { headers }), { params: Promise.resolve({}) });
    };

    /** A new app of the demo publisher's, its server key, and the package's client with it. */
    const serverApp = async () => {
      const app = await newSdkApp(suite.db, suite.users.demo);
      const made = await createApiKey(suite.db, suite.users.demo, { app_id: app.appId, name: 'Backend', environment: 'production', kind: 'server' });
      if (!made.ok) throw new Error(made.error);
      const why: NoAd[] = [];
      const monetize = createServerClient({
        key: made.value.key,
        baseUrl: 'http://localhost:3000',
        fetch: inProcess,
        timeoutMs: 10_000,
        onNoAd: (w) => why.push(w),
      });
      return { app, made, why, monetize };
    };

    it('gets the fitting ad for the user’s client, appends it to the answer, and the user’s browser counts it', async () => {
      const { app, why, monetize } = await serverApp();
      const user = { ip: '203.0.113.80', userAgent: BROWSER };

      const ad = await monetize.getAd({
        placementId: app.placement,
        messages: [{ role: 'user', content: 'which app should I use to keep my meeting notes in one place?' }],
        client: user,
      });
      expect(why).toEqual([]);
      expect(ad?.ad.advertiser).toBe('Lumen Notes');
      expect(ad?.why?.matched.length).toBeGreaterThan(0);

      const answer = new ReadableStream<string>({
        start(c) {
          c.enqueue('Keep one shared notebook per client.');
          c.close();
        },
      });
      let text = '';
      for await (const chunk of appendAd(answer, Promise.resolve(ad)) as unknown as AsyncIterable<string>) text += chunk;
      expect(text.startsWith('Keep one shared notebook per client.')).toBe(true);
      expect(text).toContain(`](${ad!.click_url})`);
      expect(text).toContain(AD_DATA_PREFIX);

      await servedSecondsAgo(suite.db, 2);
      const counted = await sdk('/functions/v1/events', {
        body: { events: [{ id: 'from-the-browser', type: 'impression', token: ad!.token, viewability: { visible_share: 1, visible_seconds: 1.2 } }] },
        headers: { 'x-api-key': app.key, 'user-agent': BROWSER },
        ip: user.ip,
        services: suite.services,
      });
      expect(eventsBody.parse(counted.body).results.map((r) => r.status)).toEqual(['recorded']);
    });

    it('answers null, never throwing, for a sensitive conversation and for a revoked key', async () => {
      const { app, made, why, monetize } = await serverApp();
      const client = { ip: '203.0.113.81', userAgent: BROWSER };
      const sensitive = [{ role: 'user' as const, content: 'my chest has been tight for two days and my left arm aches, what should I take?' }];
      expect(await monetize.getAd({ placementId: app.placement, messages: sensitive, client })).toBeNull();
      expect(why).toEqual([{ reason: 'no_fill', noFillReason: 'sensitive' }]);
      await suite.db.query(`update public.api_keys set status = 'revoked', revoked_at = now() where id = $1`, [made.value.id]);
      suite.services.sdkDirectory.clear();
      expect(await monetize.getAd({ placementId: app.placement, messages: [], client })).toBeNull();
      expect(why[1]).toEqual({ reason: 'refused', status: 403, code: 'forbidden' });
    });
  });
}
