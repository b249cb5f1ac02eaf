import type { TopUp } from '../advertisers/account';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { asBuyer } from './account';

/**
 * A data buyer's top-ups: the invoices they asked for to fund their `buyer` balance, and what
 * became of them. A user who also advertises has top-ups of both kinds in the same table
 * (`account_kind`, migration 20261209000000_data_buyers); these are the buyer's only. Read as the
 * buyer, so row-level security keeps them to their own.
 */

type Row = Omit<TopUp, 'requested_at' | 'paid_at'> & { requested_at: Date | string; paid_at: Date | string | null };

const COLUMNS = sql`id, amount_micro::float8 as amount_micro, rail, status, invoice_number, payment_reference, requested_at, paid_at`;

function topUp(row: Row): TopUp {
  return { ...row, requested_at: new Date(row.requested_at), paid_at: row.paid_at === null ? null : new Date(row.paid_at) };
}

/** The buyer's top-ups, newest first (at most `limit`). */
export async function buyerTopUps(db: Database, userId: string, limit = 100): Promise<TopUp[]> {
  const rows = await asBuyer(db, userId).query<Row>(
    sql`select ${COLUMNS} from public.top_ups
        where user_id = ${userId}::uuid and account_kind = 'buyer'
        order by requested_at desc, id limit ${limit}`,
  );
  return rows.map(topUp);
}

/** One top-up of the buyer's, or null (not theirs, or one that funds their advertising). */
export async function buyerTopUp(db: Database, userId: string, id: string): Promise<TopUp | null> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return null;
  const [row] = await asBuyer(db, userId).query<Row>(
    sql`select ${COLUMNS} from public.top_ups where id = ${id}::uuid and user_id = ${userId}::uuid and account_kind = 'buyer'`,
  );
  return row ? topUp(row) : null;
}
