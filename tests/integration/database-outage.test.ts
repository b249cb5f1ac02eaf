import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlacement } from '@/lib/publisher/writes';
import { DatabaseTimeout, openPostgres, type Engine } from '@/lib/platform/db/engine';
import { isDatabaseError } from '@/lib/platform/db/errors';
import { resetEnv } from '@/lib/platform/env';
import { adBody } from '@/lib/schemas/sdk';
import type { Services } from '@/lib/services';
import { demoUsers, UNLIMITED } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { newApp, newKey, sdk } from '../helpers/sdk';
import { makeServices, setTestServices } from '../helpers/services';
import { TcpProxy } from '../helpers/tcp-proxy';
import { accessToken } from '../helpers/tokens';

/**
 * A real PostgreSQL behind a TCP proxy that the test cuts (as when the server stops) and stalls
 * (as when the network or the server stops answering), while the routes keep being called: every
 * request is answered at once with its documented "retry later" (502 on account reads, `live:
 * false` on pricing, 503 with `Retry-After` on the SDK surface and OAuth), nothing an SDK client
 * sent is lost once it retries, and the same services recover by themselves when the database
 * is back. Runs where the suite has a PostgreSQL (TEST_DATABASE_URL; `npm test` and CI start one).
 */

const TIMEOUT_MS = 1500;
/** Longer than any answer may take, so a hang fails the test instead of passing slowly. */
const HANG_MS = 10_000;

const template = inject('postgresTemplate');
const serverUrl = process.env.TEST_DATABASE_URL;

describe.runIf(template && serverUrl)('a PostgreSQL outage during traffic', () => {
  const name = `mp_outage_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: Engine;
  let proxy: TcpProxy;
  let engine: Engine;
  let services: Services;
  let clock = Date.now();
  let token: string;
  let key: string;
  let placement: string;

  // Every request here comes from one network, which the frequency cap counts as one person
  // whatever the user agent: the outage is what is tested, not the cap, so it is off
  // (SDK_NETWORK_FREQUENCY_FACTOR=0, as the bench has it).
  const factorBefore = process.env.SDK_NETWORK_FREQUENCY_FACTOR;

  beforeAll(async () => {
    process.env.SDK_NETWORK_FREQUENCY_FACTOR = '0';
    resetEnv();
    admin = await openPostgres(serverUrl!);
    await admin.exec(`create database ${name} template ${template}`);
    const server = new URL(serverUrl!);
    proxy = await new TcpProxy({ host: server.hostname, port: Number(server.port || 5432) }).start();
    const through = new URL(serverUrl!);
    through.port = String(proxy.port);
    through.pathname = `/${name}`;
    engine = await openPostgres(through.toString(), { timeoutMs: TIMEOUT_MS });
    services = makeServices({ database: engine, rateLimiter: UNLIMITED(), keyRateLimiter: UNLIMITED(), now: () => clock });
    setTestServices(services);
    const { demo } = await demoUsers(engine);
    token = await accessToken(demo);
    const appId = await newApp(engine, demo, 'Outage app');
    const made = await createPlacement(engine, demo, { app_id: appId, name: 'Outage slot', format: 'sponsored_card' });
    if (!made.ok) throw new Error(made.error);
    placement = made.value.id;
    key = (await newKey(engine, demo, { appId })).key;
  });

  afterAll(async () => {
    if (factorBefore === undefined) delete process.env.SDK_NETWORK_FREQUENCY_FACTOR;
    else process.env.SDK_NETWORK_FREQUENCY_FACTOR = factorBefore;
    resetEnv();
    setTestServices(undefined);
    await proxy?.restore();
    await engine?.close();
    await proxy?.close();
    await admin?.exec(`drop database if exists ${name} with (force)`);
    await admin?.close();
  });

  /** Time passes (the pricing and key caches expire). */
  const later = (ms: number) => (clock += ms);

  const answered = async <T>(call: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const hang = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS)));
    try {
      return await Promise.race([call, hang]);
    } finally {
      clearTimeout(timer);
    }
  };

  const me = () => answered(sdk('/api/v1/me', { headers: { authorization: `Bearer ${token}` } }));
  const pricing = () => answered(sdk('/api/v1/pricing'));
  // The impressions' ads from the browser their events come from (an impression is billed only
  // from the client its ad was served to); the other ad requests from browsers of their own.
  let visitor = 0;
  const IMPRESSIONS_BROWSER = 'Outage/impressions';
  const ad = (browser = `Outage/visitor-${++visitor}`) =>
    answered(sdk(`/functions/v1/ads?placement_id=${placement}`, { headers: { 'x-api-key': key, 'user-agent': browser } }));
  const events = (body: unknown) => answered(sdk('/functions/v1/events', { body, headers: { 'x-api-key': key, 'user-agent': IMPRESSIONS_BROWSER } }));
  const register = async () => {
    const res = await answered(
      handlersOf('/oauth/register').POST(
        new Request('http://localhost:3000/oauth/register', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.90' },
          body: JSON.stringify({ client_name: 'Outage client', redirect_uris: ['https://client.example/cb'], token_endpoint_auth_method: 'none' }),
        }),
        { params: Promise.resolve({}) },
      ),
    );
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  /** Everything a client does, answered "retry later" in each surface's own way. */
  async function expectRetryLater(impression: unknown) {
    const account = await me();
    expect(account.status, account.text).toBe(502);
    expect(account.body.error.code).toBe('account_unavailable');
    expect(account.headers.get('retry-after')).toBe('5');
    expect(account.headers.get('api-version')).toBeTruthy();

    const prices = await pricing();
    expect(prices.status).toBe(200);
    expect(prices.body.live).toBe(false);

    const refused = await ad();
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.error).toMatchObject({ status: 503, code: 'unavailable' });
    expect(refused.headers.get('retry-after')).toBe('5');

    const lost = await events({ events: [impression] });
    expect(lost.status, lost.text).toBe(503);
    expect(lost.headers.get('retry-after')).toBe('5');

    const client = await register();
    expect(client.status).toBe(503);
    expect(client.body.error).toBe('temporarily_unavailable');
    expect(client.headers.get('retry-after')).toBe('5');
    expect(client.headers.get('cache-control')).toBe('no-store');
  }

  /** Polls until the account read answers 200 again: the same services, no restart. */
  async function recovered(): Promise<number> {
    const started = Date.now();
    for (;;) {
      const res = await me();
      if (res.status === 200) return Date.now() - started;
      if (Date.now() - started > HANG_MS) throw new Error(`not recovered after ${HANG_MS} ms: ${res.status} ${res.text}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** An impression of a fresh ad, as the SDK would send it. */
  async function servedImpression() {
    const served = await ad(IMPRESSIONS_BROWSER);
    expect(served.status, served.text).toBe(200);
    const { decision_id, token: adToken } = adBody.parse(served.body);
    // In view for 1.2 s: no impression counts sooner after its ad, on the server's clock.
    await new Promise((r) => setTimeout(r, 1300));
    return { id: `${decision_id}.impression`, type: 'impression', token: adToken, viewability: { visible_share: 0.8, visible_seconds: 1.2 } };
  }

  async function expectDeliveredOnce(impression: unknown) {
    const sent = await events({ events: [impression] });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.results[0].status).toBe('recorded');
    const again = await events({ events: [impression] });
    expect(again.body.results[0].status).toBe('duplicate');
  }

  it('answers while the database is up', async () => {
    expect((await me()).status).toBe(200);
    expect((await pricing()).body.live).toBe(true);
    await expectDeliveredOnce(await servedImpression());
  });

  it('when PostgreSQL stops: every answer at once is a documented retry-later; after it returns, the retried events are counted once', async () => {
    const impression = await servedImpression();
    await proxy.cut();
    later(60_000);
    await expectRetryLater(impression);
    // Still down a moment later: nothing was kept in a broken state.
    later(3_000);
    await expectRetryLater(impression);

    await proxy.restore();
    later(3_000);
    const ms = await recovered();
    expect(ms).toBeLessThan(HANG_MS);
    expect((await pricing()).body.live).toBe(true);
    await expectDeliveredOnce(impression);
  });

  it('when the database stops answering (a stalled network): requests are answered within the deadline, and the service recovers when it answers again', async () => {
    const impression = await servedImpression();
    proxy.stall();
    later(60_000);
    await expectRetryLater(impression);

    await proxy.restore();
    later(3_000);
    await recovered();
    // What the stall held back reaches the server now: the refused request's statement may run
    // after all (its cancel request races it). Either way the impression counts once.
    const sent = await events({ events: [impression] });
    expect(sent.status, sent.text).toBe(200);
    expect(['recorded', 'duplicate']).toContain(sent.body.results[0].status);
    const again = await events({ events: [impression] });
    expect(again.body.results[0].status).toBe('duplicate');
  });

  it('under steady traffic through a stop and a return, every answer is a success or a documented retry-later', async () => {
    const seen = new Map<string, number>();
    const count = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);
    let running = true;
    const worker = async () => {
      while (running) {
        const [account, served, prices] = await Promise.all([me(), ad(), pricing()]);
        count(`me ${account.status}${account.headers.get('retry-after') ? ' retry' : ''}`);
        count(`ad ${served.status}${served.headers.get('retry-after') ? ' retry' : ''}`);
        count(`pricing ${prices.status} live=${prices.body.live}`);
        later(500);
      }
    };
    const workers = Promise.all(Array.from({ length: 4 }, worker));
    await new Promise((r) => setTimeout(r, 300));
    await proxy.cut();
    await new Promise((r) => setTimeout(r, 1000));
    await proxy.restore();
    await new Promise((r) => setTimeout(r, 1000));
    running = false;
    await workers;
    const kinds = [...seen.keys()].sort();
    // Only successes and the documented answers of an outage, each with Retry-After.
    expect(kinds.filter((k) => !['me 200', 'me 502 retry', 'ad 200', 'ad 503 retry', 'pricing 200 live=true', 'pricing 200 live=false'].includes(k))).toEqual(
      [],
    );
    // The outage was seen, and so was the return.
    expect(seen.get('me 502 retry')).toBeGreaterThan(0);
    expect(seen.get('ad 503 retry')).toBeGreaterThan(0);
    await recovered();
  });

  it('comes back within a couple of seconds of the database, however many connection attempts failed while it was away', async () => {
    // Three seconds of refused connections under traffic: every connection of the pool fails
    // again and again. (postgres.js's own backoff grew with each failure, to 20 s.)
    let running = true;
    const worker = async () => {
      while (running) await engine.query('select 1').catch(() => new Promise((r) => setTimeout(r, 20)));
    };
    await proxy.cut();
    const workers = Promise.all(Array.from({ length: 4 }, worker));
    await new Promise((r) => setTimeout(r, 3000));
    running = false;
    await workers;
    await proxy.restore();
    expect(await recovered()).toBeLessThan(2500);
  });

  it('cuts off a slow statement at the deadline and cancels it on the server', async () => {
    const marker = `slow_${randomBytes(4).toString('hex')}`;
    const slow = engine.query(`select pg_sleep(30) as ${marker}`);
    const err = await answered(
      slow.then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(DatabaseTimeout);
    expect(isDatabaseError(err)).toBe(true);
    // The cancel request reached the server: the statement is no longer running there.
    let running = 1;
    for (let i = 0; i < 50 && running > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      [{ running } = { running: 0 }] = await admin.query<{ running: number }>(
        "select count(*)::int as running from pg_stat_activity where state = 'active' and query like $1",
        [`%${marker}%`],
      );
    }
    expect(running).toBe(0);
  });

  it('does not queue statements without bound: with every connection busy, the ones waiting are answered at the deadline too', async () => {
    // Twice as many slow statements as the pool has connections (10): half wait for one.
    const slow = Array.from({ length: 20 }, () =>
      engine.query('select pg_sleep(30)').then(
        () => null,
        (e: unknown) => e,
      ),
    );
    const errors = await answered(Promise.all(slow));
    expect(errors.every((e) => e instanceof DatabaseTimeout)).toBe(true);
    // The pool is free again: a quick statement answers, once the cancel requests have all
    // landed (one sent for a statement queued behind a slow one can still cut the next).
    let answer: unknown;
    for (let i = 0; i < 20 && answer === undefined; i++) {
      answer = await answered(engine.query<{ one: number }>('select 1 as one')).catch(async () => {
        await new Promise((r) => setTimeout(r, 100));
        return undefined;
      });
    }
    expect(answer).toEqual([{ one: 1 }]);
  });
});
