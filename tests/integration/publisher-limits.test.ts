import { describe, expect, it } from 'vitest';
import { createApiKeyForm, createAppForm } from '@/lib/publisher/forms';
import { archiveApp, createApiKey, createApp, revokeApiKey } from '@/lib/publisher/writes';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { generateApiKey } from '@/lib/identity/keys/api-key';
import { MAX_ACTIVE_KEYS_PER_APP, MAX_APPS_PER_PUBLISHER } from '@/lib/schemas/console';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsUser } from '../helpers/roles';
import { newApp, newKey, sdk } from '../helpers/sdk';
import { makeServices } from '../helpers/services';

/**
 * What one publisher can create is bounded, and more keys buy no more requests (issue 27: a
 * publisher minted 25 keys in a second, each with an SDK budget of its own). On every engine:
 * the database refuses an app's key past MAX_ACTIVE_KEYS_PER_APP and a publisher's app past
 * MAX_APPS_PER_PUBLISHER, whatever path the insert takes, and creations racing for the last
 * place never all win; the console says so in words; and every key of a publisher draws on one
 * SDK budget.
 */

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
};
const publisher = (id: string) => ({ id, email: 'someone@example.com', name: null });
const appInput = (slug: string) => ({ name: `App ${slug}`, slug, description: '', category: [], allowed_origins: [] });

for (const engine of testEngines()) {
  describe(`publisher limits on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    /**
     * Opens every connection of the pool (on PostgreSQL, 10), so that the creations of a race run
     * at once: a pool that has opened one connection so far runs them about one after another
     * while it opens the others. (PGlite runs one statement at a time whatever happens.)
     */
    const warmPool = () => Promise.all(Array.from({ length: 10 }, () => suite.db.query('select pg_sleep(0.05)')));

    const activeKeys = async (appId: string) =>
      Number((await suite.db.query<{ n: number }>("select count(*)::int as n from public.api_keys where app_id = $1 and status = 'active'", [appId]))[0]!.n);
    const activeApps = async (userId: string) =>
      Number((await suite.db.query<{ n: number }>('select count(*)::int as n from public.apps where user_id = $1 and archived_at is null', [userId]))[0]!.n);

    describe('keys per app', () => {
      it(`refuses an app's key past ${MAX_ACTIVE_KEYS_PER_APP} active ones, in words in the console; revoking one makes room`, async () => {
        const appId = await newApp(suite.db, suite.users.demo, 'Many keys');
        const made: string[] = [];
        for (let i = 0; i < MAX_ACTIVE_KEYS_PER_APP; i++) made.push((await newKey(suite.db, suite.users.demo, { appId, name: `Key ${i}` })).id);
        expect(await activeKeys(appId)).toBe(MAX_ACTIVE_KEYS_PER_APP);

        const refused = await createApiKeyForm(
          form({ app_id: appId, name: 'One too many', environment: 'production' }),
          publisher(suite.users.demo),
          suite.services,
        );
        expect(refused.error).toBe(
          `This app already has ${MAX_ACTIVE_KEYS_PER_APP} active keys, the most an app can have: revoke one you no longer use to make room.`,
        );
        expect(refused.createdKey).toBeUndefined();
        expect(refused.values).toMatchObject({ name: 'One too many' });
        expect(await activeKeys(appId)).toBe(MAX_ACTIVE_KEYS_PER_APP);

        expect((await revokeApiKey(suite.db, suite.users.demo, made[0]!)).ok).toBe(true);
        expect((await createApiKey(suite.db, suite.users.demo, { app_id: appId, name: 'In its place', environment: 'development' })).ok).toBe(true);
        expect(await activeKeys(appId)).toBe(MAX_ACTIVE_KEYS_PER_APP);
        // Revoked keys do not count, and another app of the same publisher has its own room.
        expect((await newKey(suite.db, suite.users.demo, { appId: await newApp(suite.db, suite.users.demo, 'Room of its own') })).key).toMatch(/^pk_live_/);
      });

      it('is the database’s rule: an insert that does not go through the console is refused too', async () => {
        const appId = await newApp(suite.db, suite.users.demo2, 'Direct inserts');
        for (let i = 0; i < MAX_ACTIVE_KEYS_PER_APP; i++) await newKey(suite.db, suite.users.demo2, { appId });
        const key = generateApiKey('production');
        const insert = rawAsUser(suite.db, { sub: suite.users.demo2 }, (q) =>
          q.query(
            `insert into public.api_keys (app_id, user_id, name, environment, key_prefix, key_last4, key_hash)
             values ($1, $2, 'Direct', 'production', $3, $4, $5) returning id`,
            [appId, suite.users.demo2, key.prefix, key.last4, key.hash],
          ),
        );
        await expect(insert).rejects.toMatchObject({ code: '23514' });
        // As the service too, which row-level security does not bind.
        const service = suite.db.query(
          `insert into public.api_keys (app_id, user_id, name, environment, key_prefix, key_last4, key_hash)
           values ($1, $2, 'Direct', 'production', $3, $4, $5)`,
          [appId, suite.users.demo2, key.prefix, key.last4, key.hash],
        );
        await expect(service).rejects.toMatchObject({ code: '23514' });
        // Nor can a revoked key be made active again past the cap.
        const [revoked] = await suite.db.query<{ id: string }>("select id from public.api_keys where app_id = $1 and status = 'active' limit 1", [appId]);
        expect((await revokeApiKey(suite.db, suite.users.demo2, revoked!.id)).ok).toBe(true);
        await newKey(suite.db, suite.users.demo2, { appId });
        await expect(suite.db.query("update public.api_keys set status = 'active', revoked_at = null where id = $1", [revoked!.id])).rejects.toMatchObject({
          code: '23514',
        });
        expect(await activeKeys(appId)).toBe(MAX_ACTIVE_KEYS_PER_APP);
      });

      it('never lets creations racing for the last places exceed the cap', async () => {
        const appId = await newApp(suite.db, suite.users.demo, 'Racing keys');
        for (let i = 0; i < MAX_ACTIVE_KEYS_PER_APP - 3; i++) await newKey(suite.db, suite.users.demo, { appId });
        await warmPool();
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) => createApiKey(suite.db, suite.users.demo, { app_id: appId, name: `Racer ${i}`, environment: 'production' })),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(3);
        expect(results.filter((r) => !r.ok).map((r) => !r.ok && r.error)).toEqual(
          Array(9).fill(expect.stringMatching(`already has ${MAX_ACTIVE_KEYS_PER_APP} active keys`)),
        );
        expect(await activeKeys(appId)).toBe(MAX_ACTIVE_KEYS_PER_APP);
      });
    });

    describe('the SDK budget', () => {
      it("is the publisher's: all of a publisher's keys, of one app or several, share it, and another publisher's keys do not", async () => {
        const limited = makeServices({
          database: suite.db,
          rateLimiter: new MemoryRateLimiter({ max: 100, windowSeconds: 60 }),
          keyRateLimiter: new MemoryRateLimiter({ max: 3, windowSeconds: 60 }),
        });
        const a = await newKey(suite.db, suite.users.demo2);
        const b = await newKey(suite.db, suite.users.demo2, { appId: a.appId });
        const c = await newKey(suite.db, suite.users.demo2, { appId: await newApp(suite.db, suite.users.demo2, 'Second app') });
        const other = await newKey(suite.db, suite.users.demo);
        const call = (key: string) => sdk('/functions/v1/validate-key', { headers: { 'x-api-key': key }, services: limited });

        const first = await call(a.key);
        expect(first.status).toBe(200);
        expect(first.headers.get('ratelimit-policy')).toBe('"default";q=100;w=60, "key";q=3;w=60');
        expect(first.headers.get('ratelimit')).toMatch(/^"default";r=99;t=\d+, "key";r=2;t=\d+$/);
        const second = await call(b.key);
        expect(second.status).toBe(200);
        expect(second.headers.get('ratelimit')).toMatch(/^"default";r=98;t=\d+, "key";r=1;t=\d+$/);
        expect((await call(c.key)).status).toBe(200);

        // A fourth key minted now adds nothing: the publisher's budget is spent.
        const fresh = await newKey(suite.db, suite.users.demo2, { appId: a.appId });
        const over = await call(fresh.key);
        expect(over.status).toBe(429);
        expect(over.body.error.code).toBe('rate_limited');
        expect(over.body.error.message).toMatch(/all of the publisher's keys share/);
        expect(over.headers.get('x-ratelimit-limit')).toBe('3');
        expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
        expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
        expect((await call(a.key)).status).toBe(429);

        // Another publisher, from the same address, has a budget of its own.
        const theirs = await call(other.key);
        expect(theirs.status).toBe(200);
        expect(theirs.headers.get('ratelimit')).toMatch(/"key";r=2;t=\d+$/);
      });
    });
    describe('apps per publisher', () => {
      it(`refuses a publisher's app past ${MAX_APPS_PER_PUBLISHER} not archived, in words in the console; archiving one makes room`, async () => {
        const userId = suite.users.demo2;
        const have = await activeApps(userId);
        for (let i = have; i < MAX_APPS_PER_PUBLISHER; i++) expect((await createApp(suite.db, userId, appInput(`filler-${i}`))).ok).toBe(true);
        expect(await activeApps(userId)).toBe(MAX_APPS_PER_PUBLISHER);

        const refused = await createAppForm(
          form({ name: 'One too many', slug: 'one-too-many', description: '', category: '', allowed_origins: '' }),
          publisher(userId),
          suite.services,
        );
        expect(refused.error).toBe(`You already have ${MAX_APPS_PER_PUBLISHER} apps, the most you can have: archive one you no longer use to make room.`);
        expect(refused.values).toMatchObject({ name: 'One too many', slug: 'one-too-many' });
        expect(await activeApps(userId)).toBe(MAX_APPS_PER_PUBLISHER);

        const [oldest] = await suite.db.query<{ id: string }>(
          'select id from public.apps where user_id = $1 and archived_at is null order by created_at desc limit 1',
          [userId],
        );
        expect((await archiveApp(suite.db, userId, oldest!.id)).ok).toBe(true);
        expect((await createApp(suite.db, userId, appInput('in-its-place'))).ok).toBe(true);
        // An archived app cannot come back past the cap either.
        await expect(suite.db.query('update public.apps set archived_at = null where id = $1', [oldest!.id])).rejects.toMatchObject({ code: '23514' });
        expect(await activeApps(userId)).toBe(MAX_APPS_PER_PUBLISHER);
        // The other publisher is not affected.
        expect((await createApp(suite.db, suite.users.demo, appInput('not-full'))).ok).toBe(true);
      });

      it('never lets creations racing for the last places exceed the cap', async () => {
        const userId = suite.users.demo;
        const have = await activeApps(userId);
        for (let i = have; i < MAX_APPS_PER_PUBLISHER - 2; i++) expect((await createApp(suite.db, userId, appInput(`racing-filler-${i}`))).ok).toBe(true);
        await warmPool();
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => createApp(suite.db, userId, appInput(`racer-${i}`))));
        expect(results.filter((r) => r.ok)).toHaveLength(2);
        expect(await activeApps(userId)).toBe(MAX_APPS_PER_PUBLISHER);
      });
    });
  });
}
