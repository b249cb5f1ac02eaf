import { z } from 'zod';
import { asStaff } from '../identity/auth/staff';
import type { SignedInUser } from '../identity/auth/users';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { overview, type StaffOverview } from '../money/payouts/staff';

export type MonthDue = StaffOverview['months'][number];

/** Carries a dry run's answer out of the transaction it rolls back. */
class DryRun extends Error {
  constructor(readonly due: MonthDue[]) {
    super('dry run');
  }
}

/**
 * The months a close run would close now, each with how many publishers it pays and how much it
 * makes available: the close itself (public.staff_close_months) run in a transaction that is then
 * rolled back, so the figures are the close's own to the micro-dollar, not an estimate kept in
 * step with it. The operator's confirmation states them before the real close.
 */
export async function monthsDue(db: Database, staff: SignedInUser): Promise<MonthDue[]> {
  try {
    await asStaff(db, staff).transaction(async (tx) => {
      const [run] = await tx.query(sql`select public.staff_close_months('dry run') as v`, z.object({ v: z.object({ closed: z.number().int() }) }));
      const closed = run!.v.closed;
      if (closed === 0) throw new DryRun([]);
      const [after] = await tx.query(sql`select public.staff_overview(0) as v`, z.object({ v: overview }));
      // Newest first: the months this run closed are the first `closed`.
      throw new DryRun(after!.v.months.slice(0, closed).reverse());
    });
  } catch (e) {
    if (e instanceof DryRun) return e.due;
    throw e;
  }
  throw new Error('unreachable: a dry run always rolls back');
}
