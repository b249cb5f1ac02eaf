import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { migrate, readMigrations } from '@/lib/platform/db/migrate';
import { seed, DEMO_PASSWORD } from '@/lib/demo/seed';
import { verifyPassword } from '@/lib/identity/auth/password';
import { demoUsers, testEngines } from '../helpers/db';
import { PLACEMENT_FORMATS } from '@/lib/schemas/account';

for (const engine of testEngines()) {
  describe(`migrations and demo data on ${engine.name}`, () => {
    let db: Engine;
    beforeAll(async () => {
      db = await engine.open();
    });
    afterAll(async () => {
      await db?.close();
    });

    it('records every migration where the Supabase CLI looks, and re-running applies nothing', async () => {
      const rows = await db.query<{ version: string; name: string }>('select version, name from supabase_migrations.schema_migrations order by version');
      expect(rows.map((r) => r.version)).toEqual(readMigrations().map((m) => m.version));
      expect(await migrate(db)).toEqual([]);
    });

    it('the bootstrap leaves existing roles and auth.uid() alone when run again', async () => {
      const bootstrap = readMigrations()[0]!;
      await db.exec(bootstrap.sql);
      const roles = await db.query<{ rolname: string; rolbypassrls: boolean }>(
        "select rolname, rolbypassrls from pg_roles where rolname in ('anon', 'authenticated', 'service_role') order by rolname",
      );
      expect(roles).toEqual([
        { rolname: 'anon', rolbypassrls: false },
        { rolname: 'authenticated', rolbypassrls: false },
        { rolname: 'service_role', rolbypassrls: true },
      ]);
    });

    it('seeding again changes nothing', async () => {
      const before = await db.query<{ n: number }>('select count(*)::int as n from public.placements');
      expect(await seed(db)).toBe(false);
      const after = await db.query<{ n: number }>('select count(*)::int as n from public.placements');
      expect(after).toEqual(before);
    });

    it('demo@example.com has 2 apps, every format, active and paused placements, payouts paid and failed, money to request, and a revoked key', async () => {
      const { demo } = await demoUsers(db);
      const apps = await db.query('select id from public.apps where user_id = $1', [demo]);
      expect(apps).toHaveLength(2);
      const placements = await db.query<{ format: string; status: string }>('select format, status from public.placements where user_id = $1', [demo]);
      expect(placements.length).toBeGreaterThanOrEqual(6);
      expect(new Set(placements.map((p) => p.format))).toEqual(new Set(PLACEMENT_FORMATS));
      expect(new Set(placements.map((p) => p.status))).toEqual(new Set(['active', 'paused']));
      const payouts = await db.query<{ status: string; paid_at: Date | null }>('select status, paid_at from public.payouts where user_id = $1', [demo]);
      expect(new Set(payouts.map((p) => p.status))).toEqual(new Set(['paid', 'failed']));
      // The latest closed month is final and not requested yet: a payout to request.
      const [available] = await db.query<{ micro: string }>(
        `select sum(p.amount_micro)::text as micro from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
         where a.user_id = $1 and a.kind = 'publisher_available'`,
        [demo],
      );
      expect(Number(available!.micro)).toBeGreaterThan(50_000_000);
      for (const p of payouts) expect(p.paid_at !== null).toBe(p.status === 'paid');
      // The two publishers together show every status.
      const statuses = await db.query<{ status: string }>('select distinct status from public.payouts');
      expect(new Set(statuses.map((p) => p.status))).toEqual(new Set(['pending', 'processing', 'paid', 'failed', 'canceled']));
      const keys = await db.query<{ environment: string; status: string; kind: string }>(
        'select environment, status, kind from public.api_keys where user_id = $1',
        [demo],
      );
      expect(keys).toHaveLength(5);
      expect(new Set(keys.map((k) => k.environment))).toEqual(new Set(['development', 'production']));
      // One is the demo chat's server key (lib/demo/chat.ts).
      expect(keys.filter((k) => k.kind === 'server')).toHaveLength(1);
      expect(keys.filter((k) => k.status === 'revoked')).toHaveLength(1);
    });

    it('placement counters equal the sum of their daily stats', async () => {
      const rows = await db.query<{ id: string; impressions: number; clicks: number; revenue_micro: number; si: number; sc: number; sr: number }>(
        `select p.id, p.impressions, p.clicks, p.revenue_micro,
                coalesce(sum(s.impressions), 0)::bigint si, coalesce(sum(s.clicks), 0)::bigint sc, coalesce(sum(s.revenue_micro), 0)::bigint sr
         from public.placements p left join public.daily_stats s on s.placement_id = p.id group by p.id`,
      );
      for (const r of rows) expect([r.impressions, r.clicks, r.revenue_micro]).toEqual([r.si, r.sc, r.sr]);
    });

    it('the two demo users have different data, and both sign in with the demo password', async () => {
      const { demo, demo2 } = await demoUsers(db);
      const names = async (id: string) => (await db.query<{ name: string }>('select name from public.apps where user_id = $1', [id])).map((r) => r.name);
      const mine = await names(demo);
      const theirs = await names(demo2);
      expect(theirs.length).toBeGreaterThan(0);
      expect(mine.filter((n) => theirs.includes(n))).toEqual([]);
      for (const id of [demo, demo2]) {
        const [cred] = await db.query<{ password_hash: string }>('select password_hash from public.user_credentials where user_id = $1', [id]);
        expect(cred!.password_hash).toMatch(/^scrypt\$/);
        expect(await verifyPassword(DEMO_PASSWORD, cred!.password_hash)).toBe(true);
        expect(await verifyPassword('wrong-password', cred!.password_hash)).toBe(false);
      }
    });

    it('API keys are stored hashed: no column holds a whole key', async () => {
      const keys = await db.query<{ key_prefix: string; key_last4: string; key_hash: string }>('select key_prefix, key_last4, key_hash from public.api_keys');
      for (const k of keys) {
        expect(k.key_prefix).toMatch(/^[ps]k_(live|test)_[A-Za-z0-9]{8}$/);
        expect(k.key_hash).toMatch(/^[0-9a-f]{64}$/);
      }
    });

    it('record ids per subject (migration 20261213001000): the table as it was takes the migration with its records, which then keep each subject apart', async () => {
      const migration = readMigrations().find((m) => m.version === '20261213001000')!;
      class Undo extends Error {}
      let seen: { before: unknown[]; after: unknown[]; unique: string[]; indexes: string[] } | undefined;
      // In a transaction rolled back: the shared database stays as migrated.
      await db
        .transaction(async (tx) => {
          // data_records as the migrations before this one left it: unique per app, kind and record id.
          await tx.exec(`alter table public.data_records drop constraint data_records_once_per_subject;
                         alter table public.data_records add constraint data_records_once unique (app_id, kind, record_id);
                         create index data_records_subject on public.data_records (app_id, subject_hash);`);
          const rows = () => tx.query('select id, app_id, subject_hash, kind, record_id from public.data_records order by id');
          const before = await rows();
          await tx.exec(migration.sql);
          const unique = await tx.query<{ def: string }>(
            "select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'public.data_records'::regclass and contype = 'u'",
          );
          const indexes = await tx.query<{ indexname: string }>("select indexname from pg_indexes where schemaname = 'public' and tablename = 'data_records'");
          seen = { before, after: await rows(), unique: unique.map((u) => u.def), indexes: indexes.map((i) => i.indexname) };
          throw new Undo();
        })
        .catch((err: unknown) => {
          if (!(err instanceof Undo)) throw err;
        });
      expect(seen!.before.length).toBeGreaterThan(0);
      expect(seen!.after).toEqual(seen!.before);
      expect(seen!.unique).toEqual(['UNIQUE (app_id, subject_hash, kind, record_id)']);
      expect(seen!.indexes).not.toContain('data_records_subject');
      expect(seen!.indexes).not.toContain('data_records_once');
    });

    it('a claw-back window per license (migration 20261213001200): licenses sold before it get the window in force, from their sale', async () => {
      const migration = readMigrations().find((m) => m.version === '20261213001200')!;
      class Undo extends Error {}
      let seen: { id: string; status: string; window: string }[] | undefined;
      // In a transaction rolled back: the shared database stays as migrated.
      await db
        .transaction(async (tx) => {
          // data_licenses as the migrations before this one left it, and a window of 12 days in force.
          await tx.exec(`alter table public.data_licenses drop column clawback_until;
                         update public.pricing_settings set data_clawback_days = 12;`);
          await tx.exec(migration.sql);
          seen = await tx.query<{ id: string; status: string; window: string }>(
            `select l.id, l.status, case when l.clawback_until is null then 'none'
                                         when l.clawback_until = t.occurred_at + interval '12 days' then '12 days from the sale'
                                         else 'other' end as window
             from public.data_licenses l left join public.ledger_transactions t on t.id = l.transaction_id order by l.id`,
          );
          throw new Undo();
        })
        .catch((err: unknown) => {
          if (!(err instanceof Undo)) throw err;
        });
      expect(seen!.some((l) => l.status === 'active')).toBe(true);
      for (const l of seen!) expect(l.window, `${l.status} license ${l.id}`).toBe(['active', 'expired'].includes(l.status) ? '12 days from the sale' : 'none');
    });
  });
}
