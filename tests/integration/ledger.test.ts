import { describe, expect, it } from 'vitest';
import { checkMoney } from '../../lib/money/ledger-check';
import type { Queryable } from '../../lib/platform/db/engine';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService, rawAsUser, runAs, type TestRole } from '../helpers/roles';
import { newApp } from '../helpers/sdk';

/**
 * The ledger (migration 20261204000000_ledger), on every engine: every transaction balances to
 * zero, nothing in it is ever updated or deleted by any role (its owner included), a kind and
 * reference are written once, what the roll-up counts enters as it counts it, exactly once
 * (interrupted, rerun, eight runs at once), and a publisher reads only their own accounts,
 * transactions and postings.
 */

const LEDGER_TABLES = ['ledger_accounts', 'ledger_transactions', 'ledger_postings'] as const;
const ROLES: TestRole[] = ['anon', 'authenticated', 'sdk', 'service_role'];

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

/** The money checks that fail on `db` (lib/money/ledger-check.ts, `npm run money:check`): none, when the ledger is right. */
const failedChecks = async (db: Parameters<typeof checkMoney>[0]) =>
  (await checkMoney(db)).filter((r) => r.count > 0).map((r) => `${r.name}: ${r.found.join('; ')}`);

for (const engine of testEngines()) {
  describe(`the ledger on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    /** A placement of a new app of the demo publisher, and the app. */
    const newPlacement = async (name: string) => {
      const appId = await newApp(suite.db, suite.users.demo, name);
      const [row] = await suite.db.query<{ id: string }>(
        `insert into public.placements (app_id, user_id, name, format) values ($1, $2, 'Ledger test', 'tooltip') returning id`,
        [appId, suite.users.demo],
      );
      return { appId, placementId: row!.id };
    };

    /** Traffic counted today for the roll-up: `impressions` at `costMicro` each, the publisher earning `revenueMicro` each. */
    const countToday = (placement: { appId: string; placementId: string }, impressions: number, costMicro: number, revenueMicro: number) =>
      suite.db.query(
        `insert into public.ad_traffic_counts (app_id, placement_id, day, requests, fills, impressions, revenue_micro, cost_micro)
         values ($1, $2, (now() at time zone 'UTC')::date, $3, $3, $3, $4, $5)`,
        [placement.appId, placement.placementId, impressions, impressions * revenueMicro, impressions * costMicro],
      );

    /** The roll-up, then the ledger's posting as it runs a day and two hours later, when today is over (in `q`'s transaction). */
    const rollUpAndCloseToday = async (q: Queryable) => {
      await q.query("select set_config('role', 'service_role', true)");
      await q.query('select * from public.roll_up_ad_traffic()');
      return one<number>(q, "select public.ledger_post_ad_revenue(1000, now() + interval '1 day 2 hours') as v");
    };

    it('holds the demo history: every day before yesterday posted per app, equal to the daily stats, and every transaction balanced', async () => {
      // Balanced, equal to the daily stats app by app and day, no day over left out, equal to the decisions kept.
      expect(await failedChecks(suite.db)).toEqual([]);
      const days = await one<number>(suite.db, "select count(*)::int as v from public.ledger_transactions where kind = 'ad_revenue'");
      expect(days).toBeGreaterThan(50);
    });

    it('refuses a transaction that does not balance, or has one posting, at the commit', async () => {
      const post = (postings: { amount_micro: number }[]) =>
        rawAsService(suite.db, async (q) => {
          const fees = await one<string>(q, "select public.ledger_account('platform_fees', null) as v");
          const sales = await one<string>(q, "select public.ledger_account('ad_sales', null) as v");
          return one<string | null>(q, `select public.ledger_post('adjustment', $1, now(), 'test', $2::jsonb) as v`, [
            `unbalanced-${postings.length}-${postings[0]!.amount_micro}`,
            JSON.stringify(postings.map((p, i) => ({ account_id: i % 2 ? fees : sales, amount_micro: p.amount_micro }))),
          ]);
        });
      await expect(post([{ amount_micro: -100 }, { amount_micro: 99 }])).rejects.toThrow(/does not balance/);
      await expect(post([{ amount_micro: 100 }])).rejects.toThrow(/does not balance/);
      expect(await suite.db.query("select id from public.ledger_transactions where reference like 'unbalanced-%'")).toEqual([]);
      // Balanced, it is written; asked again, it writes nothing and answers null.
      const first = await post([{ amount_micro: -100 }, { amount_micro: 100 }]);
      const again = await post([{ amount_micro: -100 }, { amount_micro: 100 }]);
      expect(first).toMatch(/^[0-9a-f-]{36}$/);
      expect(again).toBeNull();
      expect(await one<number>(suite.db, "select count(*)::int as v from public.ledger_transactions where reference = 'unbalanced-2--100'")).toBe(1);
    });

    it('lets no role update, delete or truncate an entry, and refuses its owner by trigger', async () => {
      const refusals: string[] = [];
      for (const role of ROLES) {
        for (const table of LEDGER_TABLES) {
          for (const statement of [`update public.${table} set created_at = created_at`, `delete from public.${table}`, `truncate public.${table}`]) {
            const claims =
              role === 'authenticated' ? { sub: suite.users.demo } : role === 'sdk' ? { app_id: '00000000-0000-4000-8000-000000000000' } : undefined;
            await runAs(suite.db, role, claims, (q) => q.query(statement)).then(
              () => refusals.push(`${role}: ${statement}: ALLOWED`),
              (err: Error) => expect(err.message, `${role}: ${statement}`).toMatch(/permission denied/),
            );
            // Nor may any role write one directly.
          }
          await runAs(suite.db, role, role === 'authenticated' ? { sub: suite.users.demo } : undefined, (q) =>
            q.query(`insert into public.ledger_accounts (kind) values ('payouts')`),
          ).then(
            () => refusals.push(`${role}: insert: ALLOWED`),
            (err: Error) => expect(err.message).toMatch(/permission denied|violates/),
          );
        }
      }
      expect(refusals).toEqual([]);
      // The owner (the migrations' role) is refused by the tables' triggers.
      for (const table of LEDGER_TABLES) {
        await expect(suite.db.query(`update public.${table} set created_at = created_at`)).rejects.toThrow(/append-only/);
        await expect(suite.db.query(`delete from public.${table}`)).rejects.toThrow(/append-only/);
        await expect(suite.db.query(`truncate public.${table} cascade`)).rejects.toThrow(/append-only/);
      }
      expect(await one<number>(suite.db, 'select count(*)::int as v from public.ledger_postings')).toBeGreaterThan(100);
    });

    /** What the ledger holds for `appId` (the postings attributed to the app), by transaction kind and account kind. */
    const postedForApp = (appId: string) =>
      suite.db.query<{ kind: string; postings: string }>(
        `select t.kind, string_agg(x.kind || ' ' || x.micro, ', ' order by x.kind) as postings
         from (select p.transaction_id, a.kind, sum(p.amount_micro) as micro
               from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
               where p.app_id = $1 group by p.transaction_id, a.kind) x
         join public.ledger_transactions t on t.id = x.transaction_id
         group by t.kind order by t.kind`,
        [appId],
      );

    it('posts what the roll-up counts as it counts it, exactly once: the roll-up interrupted, rerun, and run again', async () => {
      const placement = await newPlacement('Ledger once');
      await countToday(placement, 1000, 4000, 2800);
      // Interrupted (the transaction rolled back, as a killed server's is): nothing posted.
      await suite.db
        .transaction(async (tx) => {
          await tx.query("select set_config('role', 'service_role', true)");
          const [run] = await tx.query<{ events: number }>('select * from public.roll_up_ad_traffic()');
          expect(Number(run!.events)).toBeGreaterThan(0);
          throw new Error('killed');
        })
        .catch((err: Error) => expect(err.message).toBe('killed'));
      expect(await postedForApp(placement.appId)).toEqual([]);
      // Rerun: posted once, in one ad_spend transaction; run again, and once the day is over, nothing more.
      await rawAsService(suite.db, (q) => q.query('select * from public.roll_up_ad_traffic()'));
      const expected = [{ kind: 'ad_spend', postings: 'platform_fees 1200000, publisher 2800000' }];
      expect(await postedForApp(placement.appId)).toEqual(expected);
      // (What else it posts is other apps' days: in the first two hours of a UTC day, the seed's
      // yesterday is one, over too recently for the seed to have posted it.)
      await suite.db.transaction((tx) => rollUpAndCloseToday(tx));
      expect(await postedForApp(placement.appId)).toEqual(expected);
      // The counts had no campaign with an advertiser account: `ad_sales` paid, and the transaction balances.
      expect(
        await one<number>(
          suite.db,
          `select sum(p.amount_micro)::bigint as v from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
           where a.kind = 'ad_sales' and p.transaction_id in (select q.transaction_id from public.ledger_postings q where q.app_id = $1)`,
          [placement.appId],
        ),
      ).toBe(-4_000_000);
      expect(await failedChecks(suite.db)).toEqual([]);
    });

    if (engine.name === 'postgres')
      it('posts what it counts once when runs overlap: eight at once', async () => {
        const placement = await newPlacement('Ledger race');
        await countToday(placement, 10, 4000, 2800);
        await Promise.all(
          Array.from({ length: 8 }, () =>
            suite.db.transaction(async (tx) => {
              await tx.query("select set_config('role', 'service_role', true)");
              await tx.query('select * from public.roll_up_ad_traffic()');
              await tx.query('select pg_sleep(0.05)');
            }),
          ),
        );
        expect(await postedForApp(placement.appId)).toEqual([{ kind: 'ad_spend', postings: 'platform_fees 12000, publisher 28000' }]);
        expect(await failedChecks(suite.db)).toEqual([]);
      });

    it('shows a publisher their own accounts, transactions and postings, and nobody else’s', async () => {
      const mine = (user: string) =>
        rawAsUser(suite.db, { sub: user }, async (q) => ({
          accounts: await q.query<{ user_id: string | null; kind: string }>('select user_id, kind from public.ledger_accounts'),
          transactions: await one<number>(q, 'select count(*)::int as v from public.ledger_transactions'),
          foreignPostings: await one<number>(
            q,
            'select count(*)::int as v from public.ledger_postings p where p.account_id not in (select id from public.ledger_accounts)',
          ),
          postings: await one<number>(q, 'select count(*)::int as v from public.ledger_postings'),
        }));
      const [demo, demo2] = [await mine(suite.users.demo), await mine(suite.users.demo2)];
      const own = (user: string) => [
        { user_id: user, kind: 'publisher' },
        { user_id: user, kind: 'publisher_available' },
      ];
      expect([...demo.accounts].sort((a, b) => a.kind.localeCompare(b.kind))).toEqual(own(suite.users.demo));
      expect([...demo2.accounts].sort((a, b) => a.kind.localeCompare(b.kind))).toEqual(own(suite.users.demo2));
      expect(demo.foreignPostings).toBe(0);
      expect(demo2.foreignPostings).toBe(0);
      // Each sees the postings on their own accounts, and the transactions those are in (a month's close moves money
      // between their two accounts: one transaction, two postings).
      const expected = async (user: string, what: 'p.id' | 'distinct p.transaction_id' = 'p.id') =>
        one<number>(
          suite.db,
          `select count(${what})::int as v from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id where a.user_id = $1`,
          [user],
        );
      expect(demo.postings).toBe(await expected(suite.users.demo));
      expect(demo.transactions).toBe(await expected(suite.users.demo, 'distinct p.transaction_id'));
      expect(demo2.postings).toBe(await expected(suite.users.demo2));
      expect(demo.postings).toBeGreaterThan(0);
      expect(demo2.postings).toBeGreaterThan(0);
      // Nobody without a user reads anything.
      expect(await runAs(suite.db, 'anon', undefined, (q) => q.query('select id from public.ledger_postings')).catch((e: Error) => e.message)).toMatch(
        /permission denied/,
      );
    });
  });
}
