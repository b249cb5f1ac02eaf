import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { MemoryRateLimiter, type RateLimiter } from '@/lib/platform/http/rate-limit';
import { SCOPES } from '@/lib/identity/oauth/scopes';
import { ACCOUNT_ROUTES, get, instrumented, postBatch } from '../helpers/account';
import { demoUsers, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';
import { accessToken, expiredToken, foreignSignedToken, otherIssuerToken } from '../helpers/tokens';

const pricing = handlersOf('/api/v1/pricing');

for (const engine of testEngines()) {
  describe(`POST /api/v1/batch on ${engine.name}`, () => {
    let db: Engine;
    let users: { demo: string; demo2: string };
    let probe: ReturnType<typeof instrumented>;
    const generous = () => new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 60 });
    /** Services on the instrumented database, with `rateLimiter` as the API budget. */
    const limitedBy = (rateLimiter: RateLimiter) => makeServices({ database: probe.engine, rateLimiter });
    beforeAll(async () => {
      db = await engine.open();
      probe = instrumented(db);
      setTestServices(limitedBy(generous()));
      users = await demoUsers(db);
    });
    afterAll(async () => {
      setTestServices(undefined);
      await db?.close();
    });
    afterEach(() => setTestServices(limitedBy(generous())));

    it('answers in request order, ids defaulting to the index, each exactly as the route alone would', async () => {
      const token = await accessToken(users.demo);
      const { res, body } = await postBatch(
        {
          requests: [{ path: '/api/v1/me/earnings?payout_limit=2', id: 'earn' }, { path: '/api/v1/pricing?audience=publisher' }, { path: '/api/v1/me', id: 7 }],
        },
        { token },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('api-version')).toBe('1');
      expect(body.responses.map((r) => [r.id, r.status])).toEqual([
        ['earn', 200],
        [1, 200],
        [7, 200],
      ]);
      expect(body.responses[0]!.body).toEqual((await get(ACCOUNT_ROUTES[2]!.GET, '/api/v1/me/earnings?payout_limit=2', token)).body);
      expect(body.responses[1]!.body).toEqual((await get(pricing.GET, '/api/v1/pricing?audience=publisher')).body);
      expect(body.responses[2]!.body).toEqual((await get(ACCOUNT_ROUTES[0]!.GET, '/api/v1/me', token)).body);
    });

    it('validates each sub-request as if called alone', async () => {
      const { body } = await postBatch(
        { requests: [{ path: '/api/v1/search?q=' }, { path: '/api/v1/me/apps?placement_status=nope' }, { path: '/api/v1/pages?limit=101' }] },
        { token: 'svc_sandbox' },
      );
      expect(body.responses.map((r) => r.status)).toEqual([400, 400, 400]);
      for (const r of body.responses) expect(r.body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.any(String) } });
    });

    describe('the bad-credential matrix through batch', () => {
      const cases: [string, () => Promise<string | undefined>, number, string][] = [
        ['no token', async () => undefined, 401, 'invalid_token'],
        ['a malformed token', async () => 'not-a-jwt', 401, 'invalid_token'],
        ['a bad signature', () => foreignSignedToken(users.demo), 401, 'invalid_token'],
        ['an expired token', () => expiredToken(users.demo), 401, 'invalid_token'],
        ['a token for the MCP resource only', () => accessToken(users.demo, { resources: ['mcp'] }), 401, 'invalid_token'],
        ['a token of another issuer', () => otherIssuerToken(users.demo), 401, 'invalid_token'],
      ];
      it.each(cases)('%s: every account sub-request answers %i %s, the public one 200', async (_name, make, status, code) => {
        const { res, body } = await postBatch(
          { requests: [...ACCOUNT_ROUTES.map((r) => ({ path: r.path })), { path: '/api/v1/pricing' }] },
          { token: await make() },
        );
        expect(res.status).toBe(200);
        expect(body.responses.map((r) => r.status)).toEqual([...ACCOUNT_ROUTES.map(() => status), 200]);
        for (const r of body.responses.slice(0, ACCOUNT_ROUTES.length)) expect(r.body).toEqual({ error: { status, code, message: expect.any(String) } });
      });

      it.each(ACCOUNT_ROUTES.map((r) => [r.scope, r.path] as const))(
        'a token without %s: 403 insufficient_scope for %s and the routes of that scope only',
        async (scope) => {
          const token = await accessToken(users.demo, { scopes: SCOPES.filter((s) => s !== scope) });
          const { body } = await postBatch({ requests: ACCOUNT_ROUTES.map((r) => ({ path: r.path })) }, { token });
          for (const [i, r] of ACCOUNT_ROUTES.entries()) {
            const sub = body.responses[i]!;
            if (r.scope === scope)
              expect(sub).toEqual({
                id: i,
                status: 403,
                body: { error: { status: 403, code: 'insufficient_scope', message: expect.stringContaining(scope) } },
              });
            else expect(sub.status).toBe(200);
          }
        },
      );
    });

    describe('malformed batches are 400', () => {
      it.each([
        ['no requests field', {}],
        ['an empty list', { requests: [] }],
        ['21 requests', { requests: Array.from({ length: 21 }, () => ({ path: '/api/v1/pricing' })) }],
        ['a POST sub-request', { requests: [{ path: '/api/v1/pricing', method: 'POST' }] }],
        ['a path outside the allowed list', { requests: [{ path: '/api/v1/batch' }] }],
        ['the OpenAPI document', { requests: [{ path: '/api/v1/openapi.json' }] }],
        ['an absolute URL', { requests: [{ path: 'https://evil.example/api/v1/me' }] }],
        ['a protocol-relative URL', { requests: [{ path: '//evil.example/api/v1/me' }] }],
        ['dot segments out of the API', { requests: [{ path: '/api/v1/../../oauth/token' }] }],
        ['a path without /api/v1', { requests: [{ path: '/me' }] }],
        ['a boolean id', { requests: [{ path: '/api/v1/me', id: true }] }],
        ['a non-string path', { requests: [{ path: 42 }] }],
      ])('%s', async (_name, body) => {
        const { res, body: answer } = await postBatch(body);
        expect(res.status).toBe(400);
        expect(answer).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.any(String) } });
      });

      it('a body that is not JSON', async () => {
        const { res } = await postBatch(undefined, { raw: '{"requests": [' });
        expect(res.status).toBe(400);
      });
    });

    describe('rate limit', () => {
      it('charges one unit per sub-request', async () => {
        setTestServices(limitedBy(new MemoryRateLimiter({ max: 5, windowSeconds: 60 })));
        const { res } = await postBatch({ requests: Array.from({ length: 5 }, () => ({ path: '/api/v1/pricing' })) });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
        const next = await postBatch({ requests: [{ path: '/api/v1/pricing' }] });
        expect(next.res.status).toBe(429);
        expect(next.res.headers.get('retry-after')).toMatch(/^\d+$/);
      });

      it('refuses a batch bigger than the budget left, running none of it', async () => {
        setTestServices(limitedBy(new MemoryRateLimiter({ max: 5, windowSeconds: 60 })));
        const before = probe.state.userReads;
        const { res } = await postBatch({ requests: Array.from({ length: 6 }, () => ({ path: '/api/v1/me' })) }, { token: await accessToken(users.demo) });
        expect(res.status).toBe(429);
        expect(probe.state.userReads).toBe(before);
      });
    });

    describe('Idempotency-Key', () => {
      const requests = { requests: [{ path: '/api/v1/me' }, { path: '/api/v1/me/earnings?payout_limit=1' }] };

      it('replays the original answer byte for byte and echoes the key', async () => {
        const token = await accessToken(users.demo);
        const first = await postBatch(requests, { token, key: `replay-${engine.name}` });
        const reads = probe.state.userReads;
        const again = await postBatch(requests, { token, key: `replay-${engine.name}` });
        expect(again.res.status).toBe(200);
        expect(again.text).toBe(first.text);
        expect(first.res.headers.get('idempotency-key')).toBe(`replay-${engine.name}`);
        expect(again.res.headers.get('idempotency-key')).toBe(`replay-${engine.name}`);
        expect(probe.state.userReads).toBe(reads);
      });

      it('refuses the same key with another body', async () => {
        const token = await accessToken(users.demo);
        await postBatch(requests, { token, key: `other-${engine.name}` });
        const { res, body } = await postBatch({ requests: [{ path: '/api/v1/me' }] }, { token, key: `other-${engine.name}` });
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('Idempotency-Key') } });
      });

      it('runs the sub-requests once for two concurrent requests with one key', async () => {
        const token = await accessToken(users.demo);
        const before = probe.state.userReads;
        const [a, b] = await Promise.all([
          postBatch(requests, { token, key: `race-${engine.name}` }),
          postBatch(requests, { token, key: `race-${engine.name}` }),
        ]);
        expect(a.res.status).toBe(200);
        expect(b.res.status).toBe(200);
        expect(a.text).toBe(b.text);
        // Two sub-requests, each one read as the user: run once, not twice.
        expect(probe.state.userReads - before).toBe(2);
      });

      it('keeps one caller’s keys apart from another’s', async () => {
        const key = `shared-${engine.name}`;
        const one = await postBatch({ requests: [{ path: '/api/v1/me' }] }, { token: await accessToken(users.demo), key });
        const two = await postBatch({ requests: [{ path: '/api/v1/me' }] }, { token: await accessToken(users.demo2), key });
        expect(one.body.responses[0]!.body.user_id).toBe(users.demo);
        expect(two.body.responses[0]!.body.user_id).toBe(users.demo2);
      });

      it('never replays a stored answer to a credential that has expired since', async () => {
        const { res } = await postBatch(requests, { token: await expiredToken(users.demo), key: `expired-${engine.name}` });
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
      });

      it('marks a sandbox batch as sandbox, body and header', async () => {
        const { res, body } = await postBatch(requests, { token: 'svc_sandbox', key: `sandbox-${engine.name}` });
        expect(res.headers.get('service-sandbox')).toBe('true');
        expect(body.sandbox).toBe(true);
        expect(res.headers.get('access-control-expose-headers')).toBe('*');
      });

      it.each([
        ['a space', 'has space'],
        ['256 characters', 'k'.repeat(256)],
        ['a non-ASCII character', 'clé'],
      ])('refuses a key with %s', async (_name, key) => {
        const { res, body } = await postBatch(requests, { token: 'svc_sandbox', key });
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringContaining('Idempotency-Key') } });
      });

      it('accepts a key of 255 visible characters', async () => {
        const { res } = await postBatch(requests, { token: 'svc_sandbox', key: '!'.repeat(255) });
        expect(res.status).toBe(200);
      });
    });
  });
}
