import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_APPS } from '@/lib/account/sandbox';
import { createPublisher } from '@/lib/identity/auth/users';
import type { Engine } from '@/lib/platform/db/engine';
import { openPglite, openPostgres } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { SCOPES } from '@/lib/identity/oauth/scopes';
import { apiKeysBody, appsBody, campaignsBody, dailyBody, earningsBody, licensesBody, profileBody } from '@/lib/schemas/account';
import type { Services } from '@/lib/services';
import { ACCOUNT_ROUTES, get, instrumented, postBatch } from '../helpers/account';
import { demoUsers, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';
import { accessToken, confusedToken, expiredToken, foreignSignedToken, otherIssuerToken, staleToken, unsignedToken } from '../helpers/tokens';
import { rawAsService } from '../helpers/roles';
import { micro, microToUsd } from '@/lib/platform/kit/micro';

const METADATA = 'http://localhost:3000/.well-known/oauth-protected-resource/api/v1';

/**
 * An engine of the same kind whose database cannot be reached, failing the way the driver fails
 * in an outage: a PostgreSQL on a port where nothing listens (ECONNREFUSED), or an embedded
 * PGlite that has been closed.
 */
async function unreachable(kind: 'pglite' | 'postgres'): Promise<Engine> {
  if (kind === 'postgres') return openPostgres('postgres://postgres@127.0.0.1:1/postgres');
  const closed = await openPglite();
  await closed.close();
  return closed;
}
const index = handlersOf('/api/v1');
const SCHEMAS = {
  '/api/v1/me': profileBody,
  '/api/v1/me/apps': appsBody,
  '/api/v1/me/earnings': earningsBody,
  '/api/v1/me/earnings/daily': dailyBody,
  '/api/v1/me/api-keys': apiKeysBody,
  '/api/v1/me/campaigns': campaignsBody,
  '/api/v1/me/licenses': licensesBody,
};
const routeAt = (path: string) => ACCOUNT_ROUTES.find((r) => r.path === path)!;

for (const engine of testEngines()) {
  describe(`account API on ${engine.name}`, () => {
    let db: Engine;
    let users: { demo: string; demo2: string };
    let probe: ReturnType<typeof instrumented>;
    /** The suite's services, on the instrumented database. */
    let services: Services;
    beforeAll(async () => {
      db = await engine.open();
      probe = instrumented(db);
      // Hundreds of calls from one test address: the budget is not what is tested here.
      services = makeServices({ database: probe.engine, rateLimiter: new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 60 }) });
      setTestServices(services);
      users = await demoUsers(db);
    });
    afterAll(async () => {
      setTestServices(undefined);
      await db?.close();
    });
    afterEach(() => {
      probe.state.failing = false;
      setTestServices(services);
    });

    describe.each(ACCOUNT_ROUTES)('the bad-credential matrix on $path', ({ path, scope, GET }) => {
      const expect401 = async (token: string | undefined, description?: RegExp) => {
        const { res, body } = await get(GET, path, token);
        expect(res.status).toBe(401);
        const challenge = res.headers.get('www-authenticate');
        if (token === undefined) {
          // RFC 6750 §3.1: no error attribute when no credential was sent; discovery starts here.
          expect(challenge).toBe(`Bearer resource_metadata="${METADATA}"`);
        } else {
          expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="[^"]+"$/);
          expect(challenge).toContain(`resource_metadata="${METADATA}"`);
          if (description) expect(challenge).toMatch(description);
        }
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(body).toEqual({ error: { status: 401, code: 'invalid_token', message: expect.any(String) } });
      };

      it('no token: 401 with the resource metadata to start discovery', () => expect401(undefined));
      it('a malformed token: 401 invalid_token', () => expect401('not-a-jwt'));
      it('a malformed Authorization header: 401 invalid_token', () => expect401('Basic dXNlcjpwYXNz'));
      it('a bad signature: 401 invalid_token', async () => expect401(await foreignSignedToken(users.demo)));
      it('an expired token: 401 invalid_token', async () => expect401(await expiredToken(users.demo), /expired/));
      it('a token of ours issued 2 hours ago whose exp is still ahead: 401 invalid_token', async () => expect401(await staleToken(users.demo), /expired/));
      it('a token issued for the MCP resource only: 401 invalid_token', async () =>
        expect401(await accessToken(users.demo, { resources: ['mcp'] }), /not issued for this resource/));
      it('a token of another issuer: 401 invalid_token', async () => expect401(await otherIssuerToken(users.demo)));
      it('an unsigned token (alg none): 401 invalid_token', async () => expect401(await unsignedToken(users.demo)));
      it('a token signed HS256 with our public key (algorithm confusion): 401 invalid_token', async () => expect401(await confusedToken(users.demo)));

      it(`a token without ${scope}: 403 insufficient_scope naming it`, async () => {
        const { res, body } = await get(GET, path, await accessToken(users.demo, { scopes: SCOPES.filter((s) => s !== scope) }));
        expect(res.status).toBe(403);
        expect(res.headers.get('www-authenticate')).toBe(
          `Bearer error="insufficient_scope", error_description="The ${scope} scope is required", scope="${scope}", resource_metadata="${METADATA}"`,
        );
        expect(body).toEqual({ error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining(scope) } });
      });

      it(`a token with only ${scope}: 200 in the documented shape`, async () => {
        const { res, body } = await get(GET, path, await accessToken(users.demo, { scopes: [scope], resources: ['api'] }));
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('api-version')).toBe('1');
        expect(res.headers.get('service-sandbox')).toBeNull();
        expect(SCHEMAS[path as keyof typeof SCHEMAS].strict().parse(body)).toEqual(body);
        expect(body).not.toHaveProperty('sandbox');
      });

      it('checks the credential before the parameters: no token and a bad filter is still 401', async () => {
        const { res } = await get(GET, `${path}?placement_status=nope&payout_limit=99&environment=nope&days=nope&status=nope&limit=0&cursor=forged`);
        expect(res.status).toBe(401);
      });
    });

    describe('parameters', () => {
      const [appsRoute, earningsRoute, dailyRoute, keysRoute] = [
        '/api/v1/me/apps',
        '/api/v1/me/earnings',
        '/api/v1/me/earnings/daily',
        '/api/v1/me/api-keys',
      ].map(routeAt) as [(typeof ACCOUNT_ROUTES)[number], (typeof ACCOUNT_ROUTES)[number], (typeof ACCOUNT_ROUTES)[number], (typeof ACCOUNT_ROUTES)[number]];
      const bad = async (route: (typeof ACCOUNT_ROUTES)[number], query: string, param: string) => {
        const { res, body } = await get(route.GET, `${route.path}?${query}`, await accessToken(users.demo));
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining(param) } });
      };

      it.each(['all', 'active', 'paused'] as const)('placement_status=%s returns only matching placements', async (status) => {
        const { body } = await get(appsRoute.GET, `/api/v1/me/apps?placement_status=${status}`, await accessToken(users.demo));
        const placements = (body as { placements: { status: string }[] }).placements;
        expect(placements.length).toBeGreaterThan(0);
        if (status !== 'all') expect(new Set(placements.map((p) => p.status))).toEqual(new Set([status]));
      });
      it.each(['archived', 'ACTIVE', '', 'active&placement_status=paused'])('placement_status=%j is a 400', (v) =>
        bad(appsRoute, `placement_status=${v}`, 'placement_status'),
      );

      it.each([
        ['0', 0],
        ['50', 50],
        [undefined, 10],
        ['3', 3],
      ])('payout_limit=%s returns %i payouts', async (value, n) => {
        const q = value === undefined ? '' : `?payout_limit=${value}`;
        const { body } = await get(earningsRoute.GET, `/api/v1/me/earnings${q}`, await accessToken(users.demo));
        const [all] = await db.query<{ n: number }>('select count(*)::int as n from public.payouts where user_id = $1', [users.demo]);
        expect(all!.n).toBeGreaterThanOrEqual(3);
        expect((body as { payouts: unknown[] }).payouts.length).toBe(Math.min(n, all!.n));
      });
      it.each(['51', '-1', '1.5', 'abc', '', '1&payout_limit=2'])('payout_limit=%j is a 400', (v) => bad(earningsRoute, `payout_limit=${v}`, 'payout_limit'));

      it.each(['all', 'development', 'production'] as const)('environment=%s filters the keys', async (environment) => {
        const { body } = await get(keysRoute.GET, `/api/v1/me/api-keys?environment=${environment}`, await accessToken(users.demo));
        const keys = (body as { api_keys: { environment: string; kind: string; masked_key: string }[] }).api_keys;
        expect(keys.length).toBeGreaterThan(0);
        if (environment !== 'all') for (const k of keys) expect(k.environment).toBe(environment);
        // A publishable key masks as pk_…, a server key (the demo chat's) as sk_….
        for (const k of keys)
          expect(k.masked_key).toMatch(
            k.kind === 'server' ? /^sk_(live|test)_[A-Za-z0-9]{8}…[A-Za-z0-9]{4}$/ : /^pk_(live|test)_[A-Za-z0-9]{8}…[A-Za-z0-9]{4}$/,
          );
      });
      it.each(['sandbox', 'prod', ''])('environment=%j is a 400', (v) => bad(keysRoute, `environment=${v}`, 'environment'));

      it.each([
        ['7', 7],
        ['30', 30],
        ['90', 90],
        [undefined, 30],
      ])('days=%s gives one point per day, ending today, whose counts sum to the totals and whose revenue is the exact sum rounded once', async (value, n) => {
        const q = value === undefined ? '' : `?days=${value}`;
        const { body } = await get(dailyRoute.GET, `/api/v1/me/earnings/daily${q}`, await accessToken(users.demo));
        const d = dailyBody.parse(body);
        expect(d.daily).toHaveLength(n);
        expect(d.to).toBe(new Date().toISOString().slice(0, 10));
        expect(d.daily[0]!.date).toBe(d.from);
        expect(d.totals.impressions).toBe(d.daily.reduce((s, p) => s + p.impressions, 0));
        expect(d.totals.impressions).toBeGreaterThan(0);
        // The period's revenue: the daily stats' exact sum, rounded once (within half a cent a day of the rounded days' sum).
        const [exact] = await db.query<{ usd: string }>(
          `select round(coalesce(sum(revenue_micro), 0) / 1000000.0, 2)::text as usd from public.daily_stats where user_id = $1 and day between $2 and $3`,
          [users.demo, d.from, d.to],
        );
        expect(d.totals.revenue_usd).toBe(Number(exact!.usd));
        expect(Math.abs(d.totals.revenue_usd - d.daily.reduce((s, p) => s + p.revenue_usd, 0))).toBeLessThanOrEqual(n * 0.005 + 1e-9);
      });
      it.each(['1', '365', '', '30&days=7'])('days=%j is a 400', (v) => bad(dailyRoute, `days=${v}`, 'days'));
      it.each([
        ['app_id', 'nope'],
        ['placement_id', '12'],
      ])('%s=%j is a 400', (param, v) => bad(dailyRoute, `${param}=${v}`, param));

      it('narrows to one app or one placement, and finds nothing of another publisher', async () => {
        const token = await accessToken(users.demo);
        const all = dailyBody.parse((await get(dailyRoute.GET, '/api/v1/me/earnings/daily?days=90', token)).body);
        const { placements } = (await get(appsRoute.GET, '/api/v1/me/apps', token)).body as { placements: { id: string; app_id: string }[] };
        const perApp = new Map<string, number>();
        for (const appId of new Set(placements.map((p) => p.app_id))) {
          const one = dailyBody.parse((await get(dailyRoute.GET, `/api/v1/me/earnings/daily?days=90&app_id=${appId}`, token)).body);
          expect(one.app_id).toBe(appId);
          perApp.set(appId, one.totals.impressions);
        }
        expect([...perApp.values()].reduce((a, b) => a + b, 0)).toBe(all.totals.impressions);
        const placement = placements[0]!;
        const one = dailyBody.parse((await get(dailyRoute.GET, `/api/v1/me/earnings/daily?days=90&placement_id=${placement.id}`, token)).body);
        expect(one.totals.impressions).toBeLessThanOrEqual(perApp.get(placement.app_id)!);
        const theirs = (await get(appsRoute.GET, '/api/v1/me/apps', await accessToken(users.demo2))).body as { apps: { id: string }[] };
        const foreign = dailyBody.parse((await get(dailyRoute.GET, `/api/v1/me/earnings/daily?days=90&app_id=${theirs.apps[0]!.id}`, token)).body);
        expect(foreign.totals).toEqual({ revenue_usd: 0, revenue_micro: 0, impressions: 0, clicks: 0 });
      });
    });

    it('reports money rounded to cents once: items their exact amounts rounded, totals the exact sums rounded', async () => {
      const token = await accessToken(users.demo);
      const { body: apps } = await get(ACCOUNT_ROUTES[1]!.GET, '/api/v1/me/apps?placement_status=all', token);
      const { body: earnings } = await get(ACCOUNT_ROUTES[2]!.GET, '/api/v1/me/earnings?payout_limit=50', token);
      const placements = (
        apps as { placements: { revenue_usd: number; revenue_micro: number; impressions: number; clicks: number; fill_rate: number; rpm_usd: number }[] }
      ).placements;
      const cents = (n: number) => Math.round(n * 100);
      for (const p of placements) {
        expect(cents(p.revenue_usd) / 100).toBe(p.revenue_usd);
        // The exact figure beside it, which it is the rounding of.
        expect(Number.isInteger(p.revenue_micro)).toBe(true);
        expect(p.revenue_usd).toBe(microToUsd(micro(p.revenue_micro)));
        expect(p.fill_rate).toBeGreaterThan(0.8);
        expect(p.fill_rate).toBeLessThanOrEqual(1);
      }
      const e = earnings as {
        ad_revenue_tracked_usd: number;
        impressions: number;
        clicks: number;
        payouts_paid_usd: number;
        payouts_pending_usd: number;
        balance_available_usd: number;
        balance_pending_usd: number;
        data_revenue_usd: number;
        payouts: { amount_usd: number; status: string; paid_at: string | null; failure_reason: string | null }[];
      };
      // What the placements earned, exactly (the ledger's posted days and the daily stats of the rest, which add up to the
      // placements' totals), rounded once; within half a cent a placement of the sum of their rounded revenues.
      const [exact] = await db.query<{ usd: string }>(
        'select round(sum(revenue_micro) / 1000000.0, 2)::text as usd from public.placements where user_id = $1',
        [users.demo],
      );
      expect(e.ad_revenue_tracked_usd).toBe(Number(exact!.usd));
      // The daily figures: each day's exact revenue beside its rounding, and the total the exact sum of the days.
      const dailyGet = ACCOUNT_ROUTES.find((r) => r.path === '/api/v1/me/earnings/daily')!.GET;
      const { body: daily } = await get(dailyGet, '/api/v1/me/earnings/daily?days=30', token);
      const d = dailyBody.parse(daily);
      for (const point of d.daily) expect(point.revenue_usd).toBe(microToUsd(micro(point.revenue_micro)));
      expect(d.totals.revenue_micro).toBe(d.daily.reduce((n, p) => n + p.revenue_micro, 0));
      expect(d.totals.revenue_usd).toBe(microToUsd(micro(d.totals.revenue_micro)));
      expect(Math.abs(e.ad_revenue_tracked_usd - placements.reduce((n, p) => n + p.revenue_usd, 0))).toBeLessThanOrEqual(placements.length * 0.005 + 1e-9);
      expect(e.impressions).toBe(placements.reduce((n, p) => n + p.impressions, 0));
      expect(e.clicks).toBe(placements.reduce((n, p) => n + p.clicks, 0));
      expect(cents(e.payouts_paid_usd)).toBe(e.payouts.filter((p) => p.status === 'paid').reduce((n, p) => n + cents(p.amount_usd), 0));
      expect(cents(e.payouts_pending_usd)).toBe(
        e.payouts.filter((p) => ['pending', 'processing'].includes(p.status)).reduce((n, p) => n + cents(p.amount_usd), 0),
      );
      for (const p of e.payouts) expect(p.paid_at !== null).toBe(p.status === 'paid');
      for (const p of e.payouts) expect(p.failure_reason !== null).toBe(p.status === 'failed');
      // What was earned is in exactly one place: each figure rounded once, so the four are within two cents of the whole.
      const parts = e.balance_pending_usd + e.balance_available_usd + e.payouts_pending_usd + e.payouts_paid_usd;
      expect(Math.abs(cents(parts) - cents(e.ad_revenue_tracked_usd + e.data_revenue_usd))).toBeLessThanOrEqual(2);
      expect(e.balance_available_usd).toBeGreaterThanOrEqual(0);
    });

    describe('cross-tenant isolation', () => {
      /** Every id (and the email) in one user's answers, on every route and through batch. */
      const fingerprint = async (userId: string) => {
        const token = await accessToken(userId);
        const texts: string[] = [];
        for (const r of ACCOUNT_ROUTES) texts.push((await get(r.GET, `${r.path}${r.path.endsWith('earnings') ? '?payout_limit=50' : ''}`, token)).text);
        texts.push((await postBatch({ requests: ACCOUNT_ROUTES.map((r) => ({ path: r.path })) }, { token })).text);
        return texts;
      };
      const idsOf = async (userId: string) => {
        const ids = new Set<string>([userId]);
        const rows = await rawAsService(db, (q) =>
          q.query<{ id: string }>(
            `select id::text from public.apps where user_id = $1 union all select id::text from public.placements where user_id = $1
               union all select id::text from public.api_keys where user_id = $1 union all select email from public.users where id = $1
               union all select key_prefix from public.api_keys where user_id = $1`,
            [userId],
          ),
        );
        for (const r of rows) ids.add(r.id);
        return ids;
      };

      // The reads name no user: row-level security alone keeps the two apart.
      it("no id of one publisher appears in the other's answers", async () => {
        const [ids1, ids2] = [await idsOf(users.demo), await idsOf(users.demo2)];
        const [seen1, seen2] = [(await fingerprint(users.demo)).join('\n'), (await fingerprint(users.demo2)).join('\n')];
        for (const id of ids2) expect(seen1).not.toContain(id);
        for (const id of ids1) expect(seen2).not.toContain(id);
        // And each does see its own data (the test would pass vacuously on empty answers).
        for (const id of ids1) expect(seen1).toContain(id);
        for (const id of ids2) expect(seen2).toContain(id);
      });
    });

    describe('account_unavailable', () => {
      it('answers 502 for a token whose user was deleted', async () => {
        const created = await createPublisher({ email: `deleted-${Date.now()}@example.com`, password: 'a-long-password', name: 'Gone', company: '' }, db);
        if (!created.ok) throw new Error(created.error);
        const token = await accessToken(created.user.id);
        expect((await get(ACCOUNT_ROUTES[0]!.GET, '/api/v1/me', token)).res.status).toBe(200);
        await rawAsService(db, (q) => q.query('delete from public.users where id = $1', [created.user.id]));
        for (const r of ACCOUNT_ROUTES) {
          const { res, body } = await get(r.GET, r.path, token);
          expect(res.status).toBe(502);
          expect(body).toEqual({ error: { status: 502, code: 'account_unavailable', message: expect.stringContaining('authorize again') } });
        }
      });

      it('answers 502 while the database cannot be reached, and 200 on the next request after it recovers', async () => {
        const token = await accessToken(users.demo);
        const down = await unreachable(engine.name);
        try {
          // The same running services (their secrets already loaded), their database gone.
          setTestServices({ ...services, database: () => Promise.resolve(down) });
          for (const r of ACCOUNT_ROUTES) {
            const { res, body } = await get(r.GET, r.path, token);
            expect(res.status).toBe(502);
            expect((body as { error: { code: string; message: string } }).error.code).toBe('account_unavailable');
            expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|PGlite/);
          }
        } finally {
          setTestServices(services);
          await down.close().catch(() => {});
        }
        for (const r of ACCOUNT_ROUTES) expect((await get(r.GET, r.path, token)).res.status).toBe(200);
      });
    });

    describe('the sandbox token', () => {
      it('answers every route with demo data, sandbox: true and Service-Sandbox: true, without touching the database', async () => {
        probe.state.failing = true;
        const before = probe.state.userReads;
        for (const r of ACCOUNT_ROUTES) {
          const { res, body } = await get(r.GET, r.path, 'svc_sandbox');
          expect(res.status).toBe(200);
          expect(res.headers.get('service-sandbox')).toBe('true');
          expect(body.sandbox).toBe(true);
          expect(SCHEMAS[r.path as keyof typeof SCHEMAS].parse(body)).toBeTruthy();
        }
        expect(probe.state.userReads).toBe(before);
      });

      it('shows the same apps everywhere, and self-consistent totals', async () => {
        const { body: apps } = await get(routeAt('/api/v1/me/apps').GET, '/api/v1/me/apps', 'svc_sandbox');
        const { body: earnings } = await get(routeAt('/api/v1/me/earnings').GET, '/api/v1/me/earnings?payout_limit=50', 'svc_sandbox');
        const a = apps as { apps: { id: string }[]; placements: { app_id: string; revenue_usd: number; impressions: number }[] };
        expect(a.apps.map((x) => x.id)).toEqual(SANDBOX_APPS.map((x) => x.id));
        for (const p of a.placements) expect(a.apps.map((x) => x.id)).toContain(p.app_id);
        const e = earnings as {
          ad_revenue_tracked_usd: number;
          impressions: number;
          balance_pending_usd: number;
          balance_available_usd: number;
          payouts_pending_usd: number;
          payouts_paid_usd: number;
        };
        expect(Math.round(e.ad_revenue_tracked_usd * 100)).toBe(a.placements.reduce((n, p) => n + Math.round(p.revenue_usd * 100), 0));
        // Paid plus pending never exceeds what was earned: the four places of the money add up to it.
        const parts = e.balance_pending_usd + e.balance_available_usd + e.payouts_pending_usd + e.payouts_paid_usd;
        expect(Math.abs(Math.round(parts * 100) - Math.round(e.ad_revenue_tracked_usd * 100))).toBeLessThanOrEqual(2);
        expect(e.payouts_paid_usd + e.payouts_pending_usd).toBeLessThan(e.ad_revenue_tracked_usd);
        expect(e.impressions).toBe(a.placements.reduce((n, p) => n + p.impressions, 0));
      });
    });

    describe('GET /api/v1 with a token', () => {
      it('describes the token: its scopes and expiry', async () => {
        const token = await accessToken(users.demo, { scopes: ['profile:read', 'apps:read'] });
        const { res, body } = await get(index.GET, '/api/v1', token);
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(body.token).toEqual({ scopes: ['profile:read', 'apps:read'], expires_at: expect.any(Number) });
        expect((body.token as { expires_at: number }).expires_at - Date.now() / 1000).toBeGreaterThan(3500);
      });

      it('marks the sandbox token as sandbox', async () => {
        const { res, body } = await get(index.GET, '/api/v1', 'svc_sandbox');
        expect(res.headers.get('service-sandbox')).toBe('true');
        expect(body).toMatchObject({ sandbox: true, token: { scopes: [...SCOPES] } });
      });

      it('answers an expired token with the 401 that still lists the public endpoints', async () => {
        const { res, body } = await get(index.GET, '/api/v1', await expiredToken(users.demo));
        expect(res.status).toBe(401);
        expect(body).toMatchObject({ error: { status: 401, code: 'invalid_token' }, public_endpoints: expect.any(Array) });
      });
    });
  });
}
