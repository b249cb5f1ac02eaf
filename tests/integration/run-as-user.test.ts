import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { as, asService, type Row, type Session } from '@/lib/platform/db/roles';
import { sql, type Sql } from '@/lib/platform/db/sql';
import { asApp } from '@/lib/identity/keys/access';
import { demoUsers, testEngines } from '../helpers/db';

/**
 * Statements run as a role (lib/platform/db/roles.ts): `as(db, role, claims)` and `asService(db)`, in each
 * of the three ways a session runs them (`query` and `script` send the settings and the
 * statements as one message, the claims written as a literal; `transaction` binds them). Whatever
 * the claims hold, they arrive as they were sent, never as SQL; the statements run as the role,
 * under row-level security; the settings last for that message or transaction only (PGlite is one
 * session for the whole process); and a statement that fails takes the others down with it.
 */

type Way = 'query' | 'script' | 'transaction';

/** Runs `statement` on `session` the given way; answers its rows. */
async function run<T extends Row>(session: Session, way: Way, statement: Sql): Promise<T[]> {
  if (way === 'query') return session.query<T>(statement);
  if (way === 'script') {
    // A statement before it, so the answer must be the second statement's rows, settings left out.
    const [first, rows] = await session.script(sql`select 1 as first`, statement);
    expect(first).toEqual([{ first: 1 }]);
    return rows as T[];
  }
  return session.transaction((tx) => tx.query<T>(statement));
}

const WAYS: Way[] = ['query', 'script', 'transaction'];

const WHO = sql`select current_setting('request.jwt.claims', true) as claims, current_user::text as role`;

describe.each(testEngines())('as(db, role, claims) on $name', (engine) => {
  let db: Engine;
  let users: { demo: string; demo2: string };
  /** Who the engine's own statements run as, outside any session. */
  let owner: string;
  beforeAll(async () => {
    db = await engine.open();
    users = await demoUsers(db);
    [{ owner } = { owner: '' }] = await db.query<{ owner: string }>('select current_user::text as owner');
    expect(['authenticated', 'anon', 'sdk', 'service_role']).not.toContain(owner);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** Nothing of a session is left for the engine's next statement: no claims, no role. */
  const expectNothingSet = async () => {
    const [row] = await db.query<{ claims: string | null; role: string; uid: string | null }>(
      "select current_setting('request.jwt.claims', true) as claims, current_user::text as role, auth.uid()::text as uid",
    );
    expect(row!.claims ?? '').toBe('');
    expect(row!.role).toBe(owner);
    expect(row!.uid).toBeNull();
  };

  const hostile = [
    "it's",
    'back\\slash and "quotes"',
    '$$; drop table public.users; --',
    '$tag$ $ $$ $$$',
    '\u0000\n\t\u2028',
    'ends with $',
    "\\'; select 1; --",
    "E'x' || '",
    '*/ /* -- ;',
    '{"role": "service_role"}',
    'ünïcødé ✓ 𝄞',
  ];

  describe.each(WAYS)('%s', (way) => {
    it.each(hostile)('passes %j through as a claim, and the statement runs as authenticated', async (value) => {
      const claims = { sub: '00000000-0000-0000-0000-000000000001', client_id: value, scope: value };
      const [row] = await run<{ claims: string; role: string }>(as(db, 'authenticated', claims), way, WHO);
      expect(JSON.parse(row!.claims)).toEqual({ ...claims, role: 'authenticated' });
      expect(row!.role).toBe('authenticated');
      await expectNothingSet();
    });

    it('runs as sdk with the app and its owner in the claims, and as anon and the service without claims', async () => {
      const appId = '00000000-0000-0000-0000-0000000000a1';
      const app = sql`select public.sdk_app_id()::text as app, public.sdk_user_id()::text as owner, current_user::text as role`;
      expect(await run(as(db, 'sdk', { app_id: appId, user_id: users.demo }), way, app)).toEqual([{ app: appId, owner: users.demo, role: 'sdk' }]);
      expect(await run(asApp(db, { appId, userId: users.demo2 }), way, app)).toEqual([{ app: appId, owner: users.demo2, role: 'sdk' }]);
      expect(await run(asApp(db, { appId }), way, app)).toEqual([{ app: appId, owner: null, role: 'sdk' }]);
      const [sdk] = await run<{ claims: string }>(asApp(db, { appId, userId: users.demo }), way, WHO);
      expect(JSON.parse(sdk!.claims)).toEqual({ app_id: appId, user_id: users.demo, role: 'sdk' });
      // No claims at all: what an earlier statement set is not there either.
      for (const [session, role] of [
        [as(db, 'anon'), 'anon'],
        [asService(db), 'service_role'],
      ] as const) {
        const [row] = await run<{ claims: string | null; role: string }>(session, way, WHO);
        expect({ claims: row!.claims ?? '', role: row!.role }).toEqual({ claims: '', role });
      }
      await expectNothingSet();
    });

    it('leaves nothing set for the statements after it', async () => {
      await run(as(db, 'authenticated', { sub: users.demo }), way, sql`select 1`);
      await expectNothingSet();
      await run(as(db, 'sdk', { app_id: '00000000-0000-0000-0000-0000000000a1', user_id: users.demo }), way, sql`select 1`);
      await expectNothingSet();
      await run(as(db, 'anon'), way, sql`select 1`);
      await expectNothingSet();
      await run(asService(db), way, sql`select 1`);
      await expectNothingSet();
    });

    it('applies row-level security: a user reads their own rows only, anon is refused', async () => {
      for (const [me, other] of [
        [users.demo, users.demo2],
        [users.demo2, users.demo],
      ] as const) {
        const owners = await run<{ user_id: string }>(as(db, 'authenticated', { sub: me }), way, sql`select distinct user_id::text from public.apps`);
        expect(owners).toEqual([{ user_id: me }]);
        const theirs = await run(as(db, 'authenticated', { sub: me }), way, sql`select id from public.apps where user_id = ${other}::uuid`);
        expect(theirs).toEqual([]);
      }
      await expect(run(as(db, 'anon'), way, sql`select id from public.apps`)).rejects.toThrow(/permission denied/);
      // The service sees both publishers.
      const all = await run<{ user_id: string }>(asService(db), way, sql`select distinct user_id::text from public.apps order by 1`);
      expect(all.map((r) => r.user_id)).toEqual(expect.arrayContaining([users.demo, users.demo2]));
      await expectNothingSet();
    });

    it('a statement that fails rolls back what came before it, and leaves nothing set', async () => {
      const slug = `rolled-back-${randomBytes(4).toString('hex')}`;
      const insert = sql`insert into public.apps (user_id, name, slug) values (${users.demo}::uuid, 'Rolled back', ${slug}) returning id`;
      const session = as(db, 'authenticated', { sub: users.demo });
      const failing =
        way === 'query'
          ? // One statement that writes, then divides by zero.
            session.query(sql`with made as (${insert}) select 1 / (count(*)::int - 1) from made`)
          : way === 'script'
            ? session.script(insert, sql`select 1 / 0`)
            : session.transaction(async (tx) => {
                expect(await tx.query(insert)).toHaveLength(1);
                return tx.query(sql`select 1 / 0`);
              });
      await expect(failing).rejects.toThrow(/division by zero/);
      expect(await db.query('select id from public.apps where slug = $1', [slug])).toEqual([]);
      await expectNothingSet();
      // The same insert, not failing, is the user's to make: the rollback, not RLS, kept it out.
      await run(session, way, insert);
      expect(await db.query<{ user_id: string }>('select user_id::text from public.apps where slug = $1', [slug])).toEqual([{ user_id: users.demo }]);
      await expectNothingSet();
    });
  });

  it('a transaction keeps the role and claims for every statement in it, across awaits, and binds its values', async () => {
    const seen = await as(db, 'authenticated', { sub: users.demo }).transaction(async (tx) => {
      const before = await tx.query<{ uid: string; role: string }>(sql`select auth.uid()::text as uid, current_user::text as role`);
      await new Promise((r) => setTimeout(r, 5));
      const echoed = await tx.query<{ v: string }>(sql`select ${"'; select 1; --"}::text as v`);
      const after = await tx.query<{ uid: string; role: string }>(sql`select auth.uid()::text as uid, current_user::text as role`);
      return [...before, ...echoed, ...after];
    });
    expect(seen).toEqual([{ uid: users.demo, role: 'authenticated' }, { v: "'; select 1; --" }, { uid: users.demo, role: 'authenticated' }]);
    await expectNothingSet();
  });

  it('a transaction that throws in code rolls back its statements', async () => {
    const slug = `thrown-${randomBytes(4).toString('hex')}`;
    const thrown = as(db, 'authenticated', { sub: users.demo }).transaction(async (tx) => {
      await tx.query(sql`insert into public.apps (user_id, name, slug) values (${users.demo}::uuid, 'Thrown', ${slug})`);
      throw new Error('decided against it');
    });
    await expect(thrown).rejects.toThrow('decided against it');
    expect(await db.query('select id from public.apps where slug = $1', [slug])).toEqual([]);
    await expectNothingSet();
  });

  it('concurrent sessions of two users, in every way, never see each other’s claims', async () => {
    const uid = sql`select auth.uid()::text as uid`;
    const seen = await Promise.all(
      Array.from({ length: 48 }, async (_, i) => {
        const me = i % 2 === 0 ? users.demo : users.demo2;
        const session = as(db, 'authenticated', { sub: me });
        const way = WAYS[Math.floor(i / 2) % WAYS.length]!;
        if (way !== 'transaction') return { me, uids: (await run<{ uid: string }>(session, way, uid)).map((r) => r.uid) };
        const uids = await session.transaction(async (tx) => {
          const [before] = await tx.query<{ uid: string }>(uid);
          // Yield to the event loop so other sessions get a chance to interleave.
          await new Promise((r) => setTimeout(r, i % 3));
          const [after] = await tx.query<{ uid: string }>(uid);
          return [before!.uid, after!.uid];
        });
        return { me, uids };
      }),
    );
    for (const s of seen) {
      expect(s.uids.length).toBeGreaterThan(0);
      expect(s.uids).toEqual(s.uids.map(() => s.me));
    }
    await expectNothingSet();
  });
});
