import { beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKeyForm } from '@/lib/publisher/forms';
import { createApiKey } from '@/lib/publisher/writes';
import { DIRECTORY_TTL_MS } from '@/lib/identity/keys/directory';
import { generateApiKey } from '@/lib/identity/keys/api-key';
import { adBody, eventsBody, validateKeyBody } from '@/lib/schemas/sdk';
import { MAX_ACTIVE_SERVER_KEYS_PER_APP } from '@/lib/schemas/console';
import { serverKeyOperations } from '@/lib/schemas/registry';
import type { Services } from '@/lib/services';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { badServerKeys, newApp, newSdkApp, sdk, sdkRequest, servedSecondsAgo, SERVER_KEY_ROUTES, type SdkApp } from '../helpers/sdk';
import { makeServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { accessToken } from '../helpers/tokens';

/**
 * Secret server keys (content/docs/server-side.md), on every engine: made in the console and
 * shown once, hashed, capped per app; sent only as `Authorization: Bearer` from a server (a
 * request with `Origin` is refused), never in `x-api-key`, and only where they are accepted; a
 * revoked one refused on every instance within the directory's few seconds. With one, the ad
 * request names the end user's client, and the ad is bound to that client: its impression is
 * billed when it comes from that client and never from another. A publishable key cannot name a
 * client.
 */

/** A conversation only the demo's Lumen Notes fits (its hints: lib/demo/seed.ts). */
const NOTES = { messages: [{ role: 'user', content: 'which app should I use to keep my meeting notes in one place?' }] };
const BROWSER_A = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';
const BROWSER_B = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';
/** The app's server: its own address and agent, which the decision must not be bound to. */
const SERVER_IP = '198.51.100.20';
const SERVER_AGENT = 'node';

const formOf = (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
};

for (const engine of testEngines()) {
  describe(`server keys on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let app: SdkApp;
    let server: { id: string; key: string; masked_key: string };

    const serverKey = async (appId: string, name = 'Server') => {
      const made = await createApiKey(suite.db, suite.users.demo, { app_id: appId, name, environment: 'production', kind: 'server' });
      if (!made.ok) throw new Error(made.error);
      return made.value;
    };

    /** An ad request from the app's server, for the client it names. */
    const ask = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}, services: Services = suite.services) =>
      sdk('/functions/v1/ads', {
        body: { placement_id: app.placement, context: NOTES, ...body },
        headers: { authorization: `Bearer ${key}`, 'user-agent': SERVER_AGENT, ...headers },
        ip: SERVER_IP,
        services,
      });
    const impression = async (token: string, id: string, ip: string, userAgent: string) => {
      const res = await sdk('/functions/v1/events', {
        body: { events: [{ id, type: 'impression', token, viewability: { visible_share: 1, visible_seconds: 1.5 } }] },
        headers: { 'x-api-key': app.key, 'user-agent': userAgent },
        ip,
        services: suite.services,
      });
      expect(res.status, res.text).toBe(200);
      return eventsBody.parse(res.body).results.map((r) => (r.reason ? `${r.status}:${r.reason}` : r.status));
    };

    beforeAll(async () => {
      app = await newSdkApp(suite.db, suite.users.demo);
      server = await serverKey(app.appId);
    });

    describe('made in the console, kept hashed', () => {
      it('is sk_live_ or sk_test_ and 32 letters and digits; the database keeps its hash, never the key', async () => {
        expect(server.key).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
        expect(server.masked_key).toBe(`${server.key.slice(0, 16)}…${server.key.slice(-4)}`);
        const test = await createApiKey(suite.db, suite.users.demo, { app_id: app.appId, name: 'Staging', environment: 'development', kind: 'server' });
        expect(test.ok && test.value.key).toMatch(/^sk_test_/);
        const rows = await rawAsService(suite.db, (q) => q.query<Record<string, unknown>>('select * from public.api_keys where id = $1', [server.id]));
        expect(rows[0]!.kind).toBe('server');
        expect(JSON.stringify(rows)).not.toContain(server.key);
        expect(JSON.stringify(rows)).not.toContain(server.key.slice(16, -4));
      });

      it(`an app has at most ${MAX_ACTIVE_SERVER_KEYS_PER_APP} active server keys, and they leave the publishable keys' room alone`, async () => {
        const appId = await newApp(suite.db, suite.users.demo, 'Server cap');
        for (let i = 0; i < MAX_ACTIVE_SERVER_KEYS_PER_APP; i++) await serverKey(appId, `Server ${i}`);
        const over = await createApiKey(suite.db, suite.users.demo, { app_id: appId, name: 'One too many', environment: 'production', kind: 'server' });
        expect(over.ok).toBe(false);
        expect(!over.ok && over.error).toMatch(new RegExp(`${MAX_ACTIVE_SERVER_KEYS_PER_APP} active server keys`));
        const publishable = await createApiKey(suite.db, suite.users.demo, { app_id: appId, name: 'Web', environment: 'production' });
        expect(publishable.ok).toBe(true);
      });

      it('GET /api/v1/me/api-keys lists it masked, with its kind', async () => {
        const res = await sdk('/api/v1/me/api-keys', { services: suite.services, headers: { authorization: `Bearer ${await accessToken(suite.users.demo)}` } });
        expect(res.status, res.text).toBe(200);
        const listed = (res.body.api_keys as { id: string; kind: string; masked_key: string }[]).find((k) => k.id === server.id);
        expect(listed).toMatchObject({ kind: 'server', masked_key: server.masked_key });
        expect(res.text).not.toContain(server.key);
      });
    });

    describe('where it may be sent', () => {
      it('GET /functions/v1/validate-key answers it as a bearer, with its kind', async () => {
        const res = await sdk('/functions/v1/validate-key', { headers: { authorization: `Bearer ${server.key}` }, ip: SERVER_IP, services: suite.services });
        expect(res.status, res.text).toBe(200);
        expect(validateKeyBody.parse(res.body).key).toMatchObject({ id: server.id, kind: 'server', masked_key: server.masked_key });
      });

      it('a request with an Origin header is a 403 that says server keys are for servers', async () => {
        const res = await ask(server.key, { client: { ip: '203.0.113.5', user_agent: BROWSER_A } }, { origin: 'https://writer.example' });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: { status: 403, code: 'forbidden', message: expect.stringMatching(/Server keys are for servers/) } });
      });

      it('is never accepted in x-api-key, and says where it goes', async () => {
        const res = await sdk('/functions/v1/validate-key', { headers: { 'x-api-key': server.key }, ip: SERVER_IP, services: suite.services });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('invalid_token');
        expect(res.body.error.message).toMatch(/Authorization: Bearer/);
        expect(res.text).not.toContain(server.key);
      });

      it('a publishable key is never accepted as a bearer', async () => {
        const res = await ask(app.key, { client: { ip: '203.0.113.5', user_agent: BROWSER_A } });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('invalid_token');
      });

      it('operations that do not take server keys refuse one with a 401 that names those that do', async () => {
        const accepting = serverKeyOperations().map((op) => `${op.method} ${op.path}`);
        expect(accepting.sort()).toEqual(['GET /functions/v1/validate-key', 'POST /functions/v1/ads']);
        const get = await sdk(`/functions/v1/ads?placement_id=${app.placement}`, {
          headers: { authorization: `Bearer ${server.key}` },
          services: suite.services,
        });
        expect(get.status).toBe(401);
        expect(get.body.error.message).toMatch(/POST \/functions\/v1\/ads/);
        const events = await sdk('/functions/v1/events', {
          body: { events: [] },
          headers: { authorization: `Bearer ${server.key}` },
          services: suite.services,
        });
        expect(events.status).toBe(401);
      });

      it('an unknown or malformed server key is a 401 invalid_token', async () => {
        for (const key of [generateApiKey('production', 'server').key, `${server.key}x`, 'sk_live_short']) {
          const res = await ask(key, { client: { ip: '203.0.113.5', user_agent: BROWSER_A } });
          expect(res.status, key).toBe(401);
          expect(res.body.error.code).toBe('invalid_token');
        }
      });

      it('a revoked server key is a 403 at once where it was revoked, and on every other instance within 5 seconds', async () => {
        const made = await serverKey(app.appId, 'Rotated');
        let clock = Date.now();
        const other = makeServices({ database: suite.db, rateLimiter: UNLIMITED(), now: () => clock });
        const client = { client: { ip: '203.0.113.9', user_agent: BROWSER_A } };
        expect((await ask(made.key, client, {}, other)).status).toBe(200);
        const revoked = await revokeApiKeyForm(formOf({ id: made.id }), { id: suite.users.demo, email: 'demo@example.com', name: null }, suite.services);
        expect(revoked.error).toBeUndefined();
        expect((await ask(made.key, client)).status).toBe(403);
        // The other instance still trusts what it looked up, for at most the directory's time.
        clock += DIRECTORY_TTL_MS;
        expect(DIRECTORY_TTL_MS).toBeLessThan(5_000);
        const later = await ask(made.key, client, {}, other);
        expect(later.status).toBe(403);
        expect(later.body.error.message).toMatch(/revoked/);
      });
    });

    describe.each(SERVER_KEY_ROUTES)('the bad server-key matrix on $method $path', ({ path, method, handler }) => {
      it('every server key that is not good, or not sent from a server, is refused in the envelope, never stored', async () => {
        const body = method === 'POST' ? JSON.stringify({ placement_id: app.placement, client: { ip: '203.0.113.5', user_agent: BROWSER_A } }) : undefined;
        const request = (headers: Record<string, string>) =>
          new Request(sdkRequest(path, { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) }, { method }), { body });
        // The key works where it belongs, so each refusal below is about where and how it is sent.
        expect((await handler(request({ authorization: `Bearer ${server.key}` }), { params: Promise.resolve({}) })).status).toBe(200);
        const cases = badServerKeys(server.key, app.key);
        for (const c of cases) {
          const res = await handler(request(c.headers), { params: Promise.resolve({}) });
          const answer: unknown = await res.json();
          const code = c.status === 401 ? 'invalid_token' : 'forbidden';
          expect({ case: c.label, status: res.status, answer }).toEqual({
            case: c.label,
            status: c.status,
            answer: { error: { status: c.status, code, message: expect.any(String) } },
          });
          expect(JSON.stringify(answer), c.label).not.toContain(server.key);
          expect(res.headers.get('cache-control'), c.label).toBe('no-store');
        }
      });
    });

    describe('budgets: a server asks for many people from one address', () => {
      it("a good server key draws on its publisher's SDK budget, not on its address's; refused keys draw on the address's", async () => {
        const limited = makeServices({
          database: suite.db,
          rateLimiter: new MemoryRateLimiter({ max: 3, windowSeconds: 60 }),
          keyRateLimiter: new MemoryRateLimiter({ max: 6, windowSeconds: 60 }),
        });
        const client = { client: { ip: '203.0.113.60', user_agent: BROWSER_A } };
        // Five requests from one address whose budget is 3: each is a 200, and the address's budget is untouched.
        for (let i = 0; i < 5; i++) {
          const res = await ask(server.key, client, {}, limited);
          expect(res.status, res.text).toBe(200);
          expect(res.headers.get('ratelimit')).toMatch(/^"default";r=3;t=\d+, "key";r=\d+;t=\d+$/);
        }
        // The publisher's budget (6) still holds: the sixth is the last.
        expect((await ask(server.key, client, {}, limited)).status).toBe(200);
        const over = await ask(server.key, client, {}, limited);
        expect(over.status).toBe(429);
        expect(over.body.error.message).toMatch(/publisher's API keys/);
        // Unknown keys from one address: each is a 401 that costs a unit of the address's, until it has none.
        const unknown = generateApiKey('production', 'server').key;
        for (let i = 0; i < 3; i++) expect((await ask(unknown, client, {}, limited)).status).toBe(401);
        const held = await ask(unknown, client, {}, limited);
        expect(held.status).toBe(429);
        expect(held.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      });
    });

    describe('the client it names', () => {
      it('is required with a server key: without it, a 400 that says what to send', async () => {
        const res = await ask(server.key, {});
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/client\.ip and client\.user_agent/) });
      });

      it('must be an address and a user agent', async () => {
        for (const client of [{ ip: 'not an address', user_agent: BROWSER_A }, { ip: '203.0.113.5', user_agent: '' }, { ip: '203.0.113.5' }]) {
          const res = await ask(server.key, { client });
          expect(res.status, JSON.stringify(client)).toBe(400);
          expect(res.body.error.message).toMatch(/client\./);
        }
      });

      it('a publishable key naming a client is a 403: only a server may', async () => {
        const res = await sdk('/functions/v1/ads', {
          body: { placement_id: app.placement, context: NOTES, client: { ip: '203.0.113.5', user_agent: BROWSER_A } },
          headers: { 'x-api-key': app.key, 'user-agent': BROWSER_A },
          ip: '203.0.113.5',
          services: suite.services,
        });
        expect(res.status).toBe(403);
        expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/Only a server key may name the client/) });
      });

      it("an ad fetched by the server for client A is billed when A's browser counts it, and never from B or from the server", async () => {
        const A = '203.0.113.44';
        const B = '198.18.40.7';
        const asked = await ask(server.key, { client: { ip: A, user_agent: BROWSER_A } });
        expect(asked.status, asked.headers.get('no-fill-reason') ?? asked.text).toBe(200);
        const ad = adBody.parse(asked.body);
        expect(ad.ad.advertiser).toBe('Lumen Notes');
        await servedSecondsAgo(suite.db, 2);
        expect(await impression(ad.token, 'from-b', B, BROWSER_B)).toEqual(['invalid:other_client']);
        expect(await impression(ad.token, 'from-b-same-agent', B, BROWSER_A)).toEqual(['invalid:other_client']);
        expect(await impression(ad.token, 'from-server', SERVER_IP, SERVER_AGENT)).toEqual(['invalid:other_client']);
        expect(await impression(ad.token, 'from-a', A, BROWSER_A)).toEqual(['recorded']);
        const [decision] = await rawAsService(suite.db, (q) =>
          q.query<{ billed: boolean }>('select impression_event_id is not null as billed from public.ad_decisions where id = $1', [ad.decision_id]),
        );
        expect(decision!.billed).toBe(true);
      });
    });
  });
}
