import { beforeAll, describe, expect, it } from 'vitest';
import { archiveAppForm, revokeApiKeyForm } from '@/lib/publisher/forms';
import { revokeApiKey } from '@/lib/publisher/writes';
import type { Queryable } from '@/lib/platform/db/engine';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { hashApiKey } from '@/lib/identity/keys/api-key';
import { validateKeyBody } from '@/lib/schemas/sdk';
import { instrumented } from '../helpers/account';
import { suiteDatabase, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { badKeys, newApp, newKey, SDK_KEY_ROUTES, sdkRequest } from '../helpers/sdk';
import { makeServices } from '../helpers/services';
import { rawAsAnon, rawAsService, rawAsUser } from '../helpers/roles';

/**
 * The SDK surface's credential, an app's key in `x-api-key`, on every engine: what
 * `GET /functions/v1/validate-key` answers for a good key (content/docs/sdk-integration.md), the
 * shared bad-key matrix on every SDK route, revocation and archiving taking effect at once,
 * publishers kept apart, CORS for pages that send the key, and the database function the lookup
 * goes through (it finds one key by its hash, and lists nothing).
 */

const PATH = '/functions/v1/validate-key';
const validateKey = handlersOf(PATH);
const ctx = () => ({ params: Promise.resolve({}) });

async function call(headers: Record<string, string>, method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' = 'GET') {
  const res = await validateKey[method](sdkRequest(PATH, headers, { method }), ctx());
  const text = await res.text();
  return { res, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const formOf = (fields: Record<string, string>) => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  return form;
};
const publisher = (id: string) => ({ id, email: 'someone@example.com', name: null });

/** The error envelope, exactly: `{error: {status, code, message}}`, its status the answer's. */
function expectEnvelope(res: Response, body: unknown, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/json');
  expect(body).toEqual({ error: { status, code, message: expect.any(String) } });
  expect(Object.keys(body as object)).toEqual(['error']);
  expect(Object.keys((body as { error: object }).error).sort()).toEqual(['code', 'message', 'status']);
  expect((body as { error: { message: string } }).error.message.length).toBeGreaterThan(0);
}

for (const engine of testEngines()) {
  describe(`SDK keys on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    /** The names and ids each demo publisher owns, to look for in the other's answers. */
    const owned: Record<'demo' | 'demo2', string[]> = { demo: [], demo2: [] };

    beforeAll(async () => {
      for (const who of ['demo', 'demo2'] as const) {
        const rows = await suite.db.query<{ id: string; name: string }>(
          `select id::text, name from public.apps where user_id = $1
           union all select id::text, name from public.api_keys where user_id = $1
           union all select id::text, email from public.users where id = $1`,
          [suite.users[who]],
        );
        owned[who] = rows.flatMap((r) => [r.id, r.name]);
      }
      // A name both publishers use says nothing about either.
      const shared = new Set(owned.demo.filter((v) => owned.demo2.includes(v)));
      for (const who of ['demo', 'demo2'] as const) owned[who] = owned[who].filter((v) => !shared.has(v));
    });

    describe('GET /functions/v1/validate-key with a valid key', () => {
      it('answers 200 with the documented body: the app, and the key masked', async () => {
        const made = await newKey(suite.db, suite.users.demo, { name: 'Writer web', environment: 'production' });
        const [app] = await suite.db.query<{ name: string }>('select name from public.apps where id = $1', [made.appId]);
        const { res, body, text } = await call({ 'x-api-key': made.key });
        expect(res.status).toBe(200);
        expect(body).toEqual({
          valid: true,
          app: { id: made.appId, name: app!.name },
          key: { id: made.id, name: 'Writer web', kind: 'publishable', environment: 'production', masked_key: made.masked_key },
        });
        expect(validateKeyBody.strict().parse(body)).toEqual(body);
        expect(made.masked_key).toBe(`${made.key.slice(0, 16)}…${made.key.slice(-4)}`);
        // The key itself is never answered, masked only.
        expect(text).not.toContain(made.key);
        expect(text).not.toContain(made.key.slice(16, -4));
      });

      it('says `development` for a pk_test_ key', async () => {
        const made = await newKey(suite.db, suite.users.demo2, { name: 'Staging', environment: 'development' });
        const { res, body } = await call({ 'x-api-key': made.key });
        expect(res.status).toBe(200);
        expect(body).toMatchObject({ valid: true, key: { id: made.id, environment: 'development', masked_key: expect.stringMatching(/^pk_test_.{8}….{4}$/) } });
      });

      it('carries the headers of every API answer, and is never stored by a cache', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        // Without Origin (a server, a native app); pages and their origins: tests/integration/sdk-money.test.ts.
        const { res } = await call({ 'x-api-key': made.key });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('api-version')).toBe('1');
        expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
        expect(res.headers.get('ratelimit-policy')).toMatch(/^"default";q=\d+;w=\d+, "key";q=\d+;w=\d+$/);
        expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      });

      it('answers HEAD like GET, without a body; any other method is a 405 with Allow', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        const head = await call({ 'x-api-key': made.key }, 'HEAD');
        expect(head.res.status).toBe(200);
        expect(head.text).toBe('');
        for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
          const { res, body } = await call({ 'x-api-key': made.key }, method);
          expectEnvelope(res, body, 405, 'method_not_allowed');
          expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
        }
      });
    });

    describe.each(SDK_KEY_ROUTES)('the bad-key matrix on $method $path', ({ path, method, handler }) => {
      it('every request without a valid key in x-api-key is a 401 invalid_token in the envelope, never stored', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        // The key works where it belongs, so each refusal below is about where and how it is sent.
        expect((await handler(sdkRequest(path, { 'x-api-key': made.key }, { method }), ctx())).status).not.toBe(401);
        const cases = badKeys(made.key);
        expect(cases.length).toBeGreaterThanOrEqual(10);
        for (const c of cases) {
          const res = await handler(sdkRequest(path, c.headers, { method }), ctx());
          const body: unknown = await res.json();
          expect({ case: c.label, status: res.status, body }).toEqual({
            case: c.label,
            status: 401,
            body: { error: { status: 401, code: 'invalid_token', message: expect.any(String) } },
          });
          expectEnvelope(res, body, 401, 'invalid_token');
          expect(res.headers.get('cache-control'), c.label).toBe('no-store');
          expect(res.headers.get('access-control-allow-origin'), c.label).toBe('*');
        }
      });
    });

    describe('revoking and archiving', () => {
      it('a key revoked in the console is a 403 forbidden at once on the instance that revoked it', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        expect((await call({ 'x-api-key': made.key })).res.status).toBe(200);
        const revoked = await revokeApiKeyForm(formOf({ id: made.id }), publisher(suite.users.demo), suite.services);
        expect(revoked.notice).toMatch(/within 5 seconds/);
        const { res, body } = await call({ 'x-api-key': made.key });
        expectEnvelope(res, body, 403, 'forbidden');
        expect(JSON.stringify(body)).toMatch(/revoked/);
        expect(res.headers.get('cache-control')).toBe('no-store');
      });

      it("only the owner can revoke: another publisher's attempt changes nothing", async () => {
        const made = await newKey(suite.db, suite.users.demo);
        const attempt = await revokeApiKey(suite.db, suite.users.demo2, made.id);
        expect(attempt.ok).toBe(false);
        expect((await call({ 'x-api-key': made.key })).res.status).toBe(200);
      });

      it('a key of an archived app is a 403 forbidden, archived in the console', async () => {
        const appId = await newApp(suite.db, suite.users.demo, 'Archived soon');
        const made = await newKey(suite.db, suite.users.demo, { appId });
        expect((await call({ 'x-api-key': made.key })).res.status).toBe(200);
        expect((await archiveAppForm(formOf({ id: appId }), publisher(suite.users.demo), suite.services)).error).toBeUndefined();
        const { res, body } = await call({ 'x-api-key': made.key });
        expectEnvelope(res, body, 403, 'forbidden');
      });

      it('a key of an archived app is a 403 even while the key itself is still active', async () => {
        // The console revokes an archived app's keys; the lookup refuses them by the app as well.
        const appId = await newApp(suite.db, suite.users.demo2, 'Archived alone');
        const made = await newKey(suite.db, suite.users.demo2, { appId });
        await rawAsService(suite.db, (q) => q.query('update public.apps set archived_at = now() where id = $1', [appId]));
        const [key] = await suite.db.query<{ status: string }>('select status from public.api_keys where id = $1', [made.id]);
        expect(key!.status).toBe('active');
        const { res, body } = await call({ 'x-api-key': made.key });
        expectEnvelope(res, body, 403, 'forbidden');
        expect(JSON.stringify(body)).toMatch(/archived/);
      });
    });

    describe('publishers apart', () => {
      it("a key answers its own app and nothing of the other publisher's", async () => {
        for (const [who, other] of [
          ['demo', 'demo2'],
          ['demo2', 'demo'],
        ] as const) {
          const made = await newKey(suite.db, suite.users[who], { name: `Own key of ${who}` });
          const { res, body, text } = await call({ 'x-api-key': made.key });
          expect(res.status).toBe(200);
          const [owner] = await suite.db.query<{ user_id: string }>('select user_id from public.apps where id = $1', [
            (body as { app: { id: string } }).app.id,
          ]);
          expect(owner!.user_id).toBe(suite.users[who]);
          for (const value of owned[other]) expect(text, `${who}'s answer names ${other}'s ${value}`).not.toContain(value);
        }
      });
    });

    describe('CORS', () => {
      it('a preflight from any page allows GET with x-api-key (the app is not known yet), is not counted, and runs no check', async () => {
        const send = () =>
          validateKey.OPTIONS(
            sdkRequest(
              PATH,
              { origin: 'https://writer.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
              { method: 'OPTIONS' },
            ),
            ctx(),
          );
        const preflight = await send();
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get('access-control-allow-origin')).toBe('https://writer.example');
        expect(preflight.headers.get('vary')).toBe('Origin');
        expect(preflight.headers.get('access-control-allow-methods')!.split(/,\s*/)).toContain('GET');
        expect(preflight.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/)).toContain('x-api-key');
        expect(preflight.headers.get('access-control-max-age')).toBe('600');
        // It says the budget, as every answer does, and takes nothing from it.
        const remaining = preflight.headers.get('x-ratelimit-remaining');
        expect(remaining).toMatch(/^\d+$/);
        expect((await send()).headers.get('x-ratelimit-remaining')).toBe(remaining);
      });
    });

    describe('order of checks and failures', () => {
      it('the rate limit comes first: a client over its budget gets 429, valid key or not', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        const spent = handlersOf(PATH, makeServices({ database: suite.db, rateLimiter: new MemoryRateLimiter({ max: 0, windowSeconds: 60 }) }));
        for (const headers of [{ 'x-api-key': made.key }, {}] as Record<string, string>[]) {
          const res = await spent.GET(sdkRequest(PATH, headers), ctx());
          expectEnvelope(res, await res.json(), 429, 'rate_limited');
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        }
      });

      it('a database outage is a 503 unavailable, and a malformed key still a 401 without asking it', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        const probe = instrumented(suite.db);
        const route = handlersOf(PATH, makeServices({ database: probe.engine }));
        probe.state.failing = true;
        const down = await route.GET(sdkRequest(PATH, { 'x-api-key': made.key }), ctx());
        expectEnvelope(down, await down.json(), 503, 'unavailable');
        expect(down.headers.get('retry-after')).toBe('5');
        const malformed = await route.GET(sdkRequest(PATH, { 'x-api-key': 'pk_live_x' }), ctx());
        expectEnvelope(malformed, await malformed.json(), 401, 'invalid_token');
        probe.state.failing = false;
        expect((await route.GET(sdkRequest(PATH, { 'x-api-key': made.key }), ctx())).status).toBe(200);
      });
    });

    describe('the lookup function public.sdk_key', () => {
      const lookUp = (q: Queryable, hash: unknown) => q.query<Record<string, unknown>>('select * from public.sdk_key($1)', [hash]);

      it('answers the one key whose hash is given, with its app', async () => {
        const made = await newKey(suite.db, suite.users.demo2, { name: 'Lookup', environment: 'development' });
        const rows = await rawAsAnon(suite.db, (q) => lookUp(q, hashApiKey(made.key)));
        expect(rows).toEqual([
          {
            id: made.id,
            name: 'Lookup',
            kind: 'publishable',
            environment: 'development',
            status: 'active',
            key_prefix: made.key.slice(0, 16),
            key_last4: made.key.slice(-4),
            app_id: made.appId,
            app_name: expect.any(String),
            app_archived: false,
            user_id: suite.users.demo2,
            allowed_origins: expect.any(Array),
          },
        ]);
      });

      it('finds each key by its own hash, and only that key', async () => {
        const keys = await rawAsService(suite.db, (q) => q.query<{ id: string; key_hash: string }>('select id, key_hash from public.api_keys'));
        expect(keys.length).toBeGreaterThanOrEqual(5);
        for (const k of keys) {
          const rows = await rawAsAnon(suite.db, (q) => lookUp(q, k.key_hash));
          expect(rows.map((r) => r.id)).toEqual([k.id]);
        }
      });

      it('cannot list keys: anything but a whole hash finds nothing', async () => {
        const made = await newKey(suite.db, suite.users.demo);
        const hash = hashApiKey(made.key);
        for (const probe of [
          null,
          '',
          '%',
          '_%',
          '*',
          hash.slice(0, 32),
          `${hash.slice(0, 63)}%`,
          hash.toUpperCase(),
          made.key,
          made.key.slice(0, 16),
          `' or true --`,
        ]) {
          const rows = await rawAsAnon(suite.db, (q) => lookUp(q, probe));
          expect(rows, JSON.stringify(probe)).toEqual([]);
        }
        // One function of one argument: no overload that takes nothing or a pattern.
        const overloads = await suite.db.query<{ args: string }>(
          "select pg_get_function_identity_arguments(p.oid) as args from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public' and p.proname = 'sdk_key'",
        );
        expect(overloads).toEqual([{ args: 'p_key_hash text' }]);
      });

      it('is the only way in: anon still cannot read api_keys or apps', async () => {
        for (const sql of ['select id from public.api_keys', 'select key_hash from public.api_keys', 'select id from public.apps']) {
          const result = await rawAsAnon(suite.db, (q) => q.query(sql)).then(
            (rows) => ({ rows }),
            (err: Error) => ({ error: err.message }),
          );
          expect(result, sql).toEqual({ error: expect.stringMatching(/permission denied/) });
        }
      });

      it('runs as its owner with a fixed, empty search_path; anon and authenticated may call it, nobody else', async () => {
        const [fn] = await suite.db.query<{
          prosecdef: boolean;
          proconfig: string[];
          provolatile: string;
          owner_bypasses_rls: boolean;
          anon: boolean;
          authenticated: boolean;
          service_role: boolean;
          public_acl: boolean;
        }>(
          `select p.prosecdef, p.proconfig, p.provolatile, (r.rolsuper or r.rolbypassrls) as owner_bypasses_rls,
                  has_function_privilege('anon', p.oid, 'execute') as anon,
                  has_function_privilege('authenticated', p.oid, 'execute') as authenticated,
                  has_function_privilege('service_role', p.oid, 'execute') as service_role,
                  exists (select 1 from unnest(p.proacl) a where a::text like '=%') as public_acl
           from pg_proc p join pg_namespace n on n.oid = p.pronamespace join pg_roles r on r.oid = p.proowner
           where n.nspname = 'public' and p.proname = 'sdk_key'`,
        );
        expect(fn).toEqual({
          prosecdef: true,
          proconfig: ['search_path=""'],
          provolatile: 's',
          // Row-level security is forced on api_keys: an owner bound by it would find no key at all.
          owner_bypasses_rls: true,
          anon: true,
          authenticated: true,
          service_role: false,
          public_acl: false,
        });
        // A signed-in user finds a key of another publisher's by its hash, as anyone holding the key could.
        const made = await newKey(suite.db, suite.users.demo);
        const rows = await rawAsUser(suite.db, { sub: suite.users.demo2 }, (q) => lookUp(q, hashApiKey(made.key)));
        expect(rows.map((r) => r.id)).toEqual([made.id]);
      });
    });
  });
}
