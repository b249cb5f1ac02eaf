import { describe, expect, it } from 'vitest';
import { IDLE_CLIENT_TTL_DAYS, MAX_PENDING_CLIENTS_PER_ADDRESS, UNUSED_CLIENT_TTL_H } from '@/lib/identity/oauth/clients';
import { issueCode } from '@/lib/identity/oauth/codes';
import { suiteDatabase, testEngines } from '../helpers/db';
import { postBatch } from '../helpers/account';
import { handlersOf } from '../helpers/routes';
import { rawAsService } from '../helpers/roles';

/**
 * What a stranger can store without an account stays bounded: an address may leave only so many
 * registered clients pending (nobody approved them), clients nobody authorizes expire, and expired idempotency records are deleted
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
    /** A publisher approves the client: a code is issued for it, which marks it used. */
    const approve = (clientId: string) =>
      issueCode(
        {
          clientId,
          userId: suite.users.demo,
          redirectUri: 'https://tool.example/cb',
          codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          scopes: ['profile:read'],
          resources: [],
        },
        suite.db,
      );
    const age = (clientId: string, column: 'created_at' | 'last_used_at', interval: string) =>
      rawAsService(suite.db, (q) => q.query(`update public.oauth_clients set ${column} = now() - interval '${interval}' where client_id = $1`, [clientId]));

    it(`refuses an address (an IPv6 /64) with ${MAX_PENDING_CLIENTS_PER_ADDRESS} clients nobody approved in the last day, and no other; an approved one frees a place`, async () => {
      const ids: string[] = [];
      for (let i = 1; i <= MAX_PENDING_CLIENTS_PER_ADDRESS; i++) {
        const { res, body } = await register(`2001:db8:9:9::${(i % 0xffff).toString(16)}`);
        expect(res.status).toBe(201);
        ids.push(body.client_id!);
      }
      // Stored by a keyed hash of the /64, never the address.
      const [from] = await rawAsService(suite.db, (q) =>
        q.query<{ registered_from: string }>('select registered_from from public.oauth_clients where client_id = $1', [ids[0]]),
      );
      expect(from!.registered_from).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(from!.registered_from).not.toContain('2001');

      const refused = await register('2001:db8:9:9::ff00');
      expect(refused.res.status).toBe(429);
      expect(refused.body.error).toBe('rate_limited');
      // A place frees up when the oldest pending client expires, a day after it registered.
      expect(Number(refused.res.headers.get('retry-after'))).toBeGreaterThan(UNUSED_CLIENT_TTL_H * 3600 - 600);
      expect(refused.res.headers.get('cache-control')).toBe('no-store');
      // Another address is not affected, and an invalid registration is answered as invalid.
      expect((await register('2001:db8:9:a::1')).res.status).toBe(201);
      expect((await register('2001:db8:9:9::fe', suite.services, { client_name: 'x' })).res.status).toBe(400);

      // A publisher approves one of them: it no longer counts, and the address may register one more.
      await approve(ids[0]!);
      expect((await register('2001:db8:9:9::ff01')).res.status).toBe(201);
      expect((await register('2001:db8:9:9::ff02')).res.status).toBe(429);
      // A pending client older than a day no longer counts either.
      await age(ids[1]!, 'created_at', `${UNUSED_CLIENT_TTL_H} hours 1 minute`);
      expect((await register('2001:db8:9:9::ff03')).res.status).toBe(201);
    });

    it('takes registrations from one address in turn: many at once never pass the limit', async () => {
      const ip = (i: number) => `2001:db8:7:7::${i.toString(16)}`;
      const first = await Promise.all(Array.from({ length: MAX_PENDING_CLIENTS_PER_ADDRESS - 5 }, (_, i) => register(ip(i + 1))));
      expect(first.every((r) => r.res.status === 201)).toBe(true);
      const race = await Promise.all(Array.from({ length: 20 }, (_, i) => register(ip(0x1000 + i))));
      expect(race.filter((r) => r.res.status === 201)).toHaveLength(5);
      expect(race.filter((r) => r.res.status === 429)).toHaveLength(15);
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
      await approve(used);
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
