import { describe, expect, it } from 'vitest';
import { closeMonths, staffOverview } from '../../lib/money/payouts/staff';
import { monthsDue } from '../../lib/ops/months';
import type { Queryable } from '../../lib/platform/db/engine';
import { suiteDatabase, testEngines } from '../helpers/db';

/**
 * What the operator's "Close the months that are due" states before it runs (lib/ops/months.ts):
 * the close itself run in a transaction rolled back. It leaves nothing behind (no month closed, no
 * money moved, no audit entry), and the real close that follows moves exactly what it stated.
 */

async function one<T>(q: Queryable, sql: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(sql, params);
  return row!.v;
}

for (const engine of testEngines()) {
  describe(`the months due, on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const operator = async () => ({
      id: await one<string>(suite.db, "select id as v from public.users where email = 'operator@example.com'"),
      email: 'operator@example.com',
      name: null,
    });
    const trace = async () => ({
      closes: await suite.db.query('select month::text, publishers, amount_micro::text from public.ledger_month_closes order by month'),
      transactions: await one<string>(suite.db, 'select count(*)::text as v from public.ledger_transactions'),
      audit: await one<string>(suite.db, 'select count(*)::text as v from public.staff_audit_log'),
    });

    it('states nothing when no month is due, and leaves no trace', async () => {
      const staff = await operator();
      const before = await trace();
      expect(await monthsDue(suite.db, staff)).toEqual([]);
      expect(await trace()).toEqual(before);
    });

    it('states what the close then moves, to the micro-dollar, and moves nothing itself', async () => {
      expect(Number((await suite.db.query<{ n: string }>('select count(*)::text as n from public.ledger_month_closes'))[0]!.n)).toBeGreaterThan(0);
      const staff = await operator();
      // The newest closed month as it was before the roll-up closed it: its close and the
      // transactions that close wrote taken out (past the ledger's append-only triggers, which only
      // a test's superuser can step around). Closing it again moves what it moved then.
      const month = await one<string>(suite.db, 'select max(month)::text as v from public.ledger_month_closes');
      const moved = await suite.db.query<{ publishers: number; amount_micro: string }>(
        'select publishers, amount_micro::text from public.ledger_month_closes where month = $1::date',
        [month],
      );
      await suite.db.transaction(async (tx) => {
        await tx.query('set local session_replication_role = replica');
        const ofMonth = `from public.ledger_transactions t where t.kind = 'month_close' and t.reference like '%:' || to_char($1::date, 'YYYY-MM')`;
        await tx.query(`delete from public.ledger_postings p where p.transaction_id in (select t.id ${ofMonth})`, [month]);
        await tx.query(`delete ${ofMonth}`, [month]);
        await tx.query('delete from public.ledger_month_closes where month = $1::date', [month]);
      });
      const before = await trace();
      const due = await monthsDue(suite.db, staff);
      expect(due.map((d) => ({ month: d.month, publishers: d.publishers, amount_micro: d.amount_micro }))).toEqual([
        { month, publishers: moved[0]!.publishers, amount_micro: Number(moved[0]!.amount_micro) },
      ]);
      expect(await trace()).toEqual(before);

      expect(await closeMonths(suite.db, staff, 'now')).toBe(due.length);
      const closed = (await staffOverview(suite.db, staff)).months.slice(0, due.length).reverse();
      expect(closed.map((c) => ({ month: c.month, publishers: c.publishers, amount_micro: c.amount_micro }))).toEqual(
        due.map((d) => ({ month: d.month, publishers: d.publishers, amount_micro: d.amount_micro })),
      );
    });
  });
}
