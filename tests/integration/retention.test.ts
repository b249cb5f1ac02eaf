import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { IDLE_CLIENT_TTL_DAYS, UNUSED_CLIENT_TTL_H } from '@/lib/oauth/clients';
import { issueCode } from '@/lib/oauth/codes';
import { suiteDatabase, testEngines } from '../helpers/db';
import { postBatch } from '../helpers/account';
import { handlersOf } from '../helpers/routes';
import { makeServices } from '../helpers/services';
import { rawAsService } from '../helpers/roles';

/**
 * What a stranger can store without an account stays bounded: client registrations have a budget
 * per address, clients nobody authorizes expire, and expired idempotency records are deleted
 * as new ones are written, with no scheduler, on both engines.
 */

const registration = (name = 'Retained tool') => ({ client_name: name, redirect_uris: ['https://tool.example/cb'], token_endpoint_auth_method: 'none' });

for (const engine of testEngines()) {
  describe(`retention on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    const register = async (ip: string, services = suite.services, body: unknown = registration()) => {
      const res = await handlersOf('/oauth/register', services).POST(
        new Request('http://localhost:3000/oauth/register', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
          body: JSON.stringify(body),
        }),
        { params: Promise.resolve({}) },
      );
      return { res, body: (await res.json()) as Record<string, string> };
    };
    const clientExists = async (clientId: string) =>
      (await rawAsService(suite.db, (q) => q.query('select 1 from public.oauth_clients where client_id = $1', [clientId]))).length === 1;
    const age = (clientId: string, column: 'created_at' | 'last_used_at', interval: string) =>
      rawAsService(suite.db, (q) => q.query(`update public.oauth_clients set ${column} = now() - interval '${interval}' where client_id = $1`, [clientId]));

    it('gives registration a budget of its own per address (an IPv6 /64): past it, 429 rate_limited with Retry-After', async () => {
      const services = makeServices({ database: suite.db, registrations: new MemoryRateLimiter({ max: 3, windowSeconds: 3600 }) });
      for (let i = 1; i <= 3; i++) expect((await register(`2001:db8:9:9::${i}`, services)).res.status).toBe(201);
      const refused = await register('2001:db8:9:9::ff', services);
      expect(refused.res.status).toBe(429);
      expect(refused.body.error).toBe('rate_limited');
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(3000);
      expect(refused.res.headers.get('cache-control')).toBe('no-store');
      expect((await register('2001:db8:9:a::1', services)).res.status).toBe(201);
      // An invalid registration is answered as invalid before it is counted.
      expect((await register('2001:db8:9:9::fe', services, { client_name: 'x' })).res.status).toBe(400);
    });

    it(`deletes a client nobody authorized ${UNUSED_CLIENT_TTL_H} hours after it registered, when another registers`, async () => {
      const stale = (await register('192.0.2.140')).body.client_id!;
      const fresh = (await register('192.0.2.141')).body.client_id!;
      await age(stale, 'created_at', `${UNUSED_CLIENT_TTL_H} hours 1 minute`);
      await register('192.0.2.142');
      expect(await clientExists(stale)).toBe(false);
      expect(await clientExists(fresh)).toBe(true);
    });

    it(`keeps a client a publisher authorized, until nobody has for ${IDLE_CLIENT_TTL_DAYS} days`, async () => {
      const used = (await register('192.0.2.143')).body.client_id!;
      await issueCode(
        {
          clientId: used,
          userId: suite.users.demo,
          redirectUri: 'https://tool.example/cb',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          scopes: ['profile:read'],
          resources: [],
        },
        suite.db,
      );
      await age(used, 'created_at', '30 days');
      await register('192.0.2.144');
      expect(await clientExists(used)).toBe(true);
      await age(used, 'last_used_at', `${IDLE_CLIENT_TTL_DAYS} days 1 minute`);
      await register('192.0.2.145');
      expect(await clientExists(used)).toBe(false);
    });

    it('refuses a redirect URI over 512 characters', async () => {
      const long = { ...registration(), redirect_uris: [`https://tool.example/${'a'.repeat(500)}`] };
      const { res, body } = await register('192.0.2.146', suite.services, long);
      expect(res.status).toBe(400);
      expect(body.error).toBe('invalid_redirect_uri');
    });

    it('deletes expired idempotency records as new ones are written', async () => {
      const key = () => `retention-${Math.random().toString(36).slice(2)}`;
      const first = key();
      expect((await postBatch({ requests: [{ path: '/api/v1/pricing' }] }, { token: 'svc_sandbox', key: first })).res.status).toBe(200);
      const count = async () =>
        (await rawAsService(suite.db, (q) => q.query<{ n: number }>('select count(*)::int as n from public.idempotency_records')))[0]!.n;
      expect(await count()).toBeGreaterThan(0);
      await rawAsService(suite.db, (q) => q.query("update public.idempotency_records set expires_at = now() - interval '1 minute'"));
      const expired = await count();
      expect((await postBatch({ requests: [{ path: '/api/v1/pricing' }] }, { token: 'svc_sandbox', key: key() })).res.status).toBe(200);
      // All the expired ones were deleted (fewer than a sweep's worth here); the new one is there.
      expect(expired).toBeLessThanOrEqual(20);
      expect(await count()).toBe(1);
    });
  });
}
