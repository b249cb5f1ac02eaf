import { z } from 'zod';
import { asConsoleUser } from '../identity/console';
import { microAmount } from '../platform/kit/micro';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';

/**
 * What a publisher earned from sales of their users' consented data (migration
 * 20261209000000_data_buyers), as the console's earnings page shows it: each sale (one `data_sale`
 * transaction of the ledger: a license that held records of theirs), with what each of their apps
 * earned from it, and the totals per month (UTC). Read as the publisher, from their own ledger
 * postings under row-level security: the amounts are the ledger's, in micro-dollars.
 */

export interface DataSale {
  /** The ledger transaction. */
  id: string;
  sold_at: Date;
  apps: { app: string; micro: number }[];
  micro: number;
}

export interface DataSalesMonth {
  /** YYYY-MM. */
  month: string;
  sales: number;
  micro: number;
}

/** A publisher's posting of a data sale, as read: no app once the app is deleted. */
const posting = z.object({ transaction_id: z.string(), sold_at: z.date(), app: z.string().nullable(), micro: microAmount });

/** What groupDataSales takes: a posting as read (above), or as figures written out (a time and an amount in text). */
type Posting = { transaction_id: string; sold_at: Date | string; app: string | null; micro: number | string };

/** Postings, newest sale first, grouped by sale; and the months, newest first. */
export function groupDataSales(postings: readonly Posting[]): { sales: DataSale[]; months: DataSalesMonth[] } {
  const byId = new Map<string, DataSale>();
  for (const p of postings) {
    const sale = byId.get(p.transaction_id) ?? { id: p.transaction_id, sold_at: new Date(p.sold_at), apps: [], micro: 0 };
    sale.apps.push({ app: p.app ?? 'An archived app', micro: Number(p.micro) });
    sale.micro += Number(p.micro);
    byId.set(p.transaction_id, sale);
  }
  const sales = [...byId.values()].sort((a, b) => b.sold_at.getTime() - a.sold_at.getTime() || a.id.localeCompare(b.id));
  const months = new Map<string, DataSalesMonth>();
  for (const s of sales) {
    const month = s.sold_at.toISOString().slice(0, 7);
    const m = months.get(month) ?? { month, sales: 0, micro: 0 };
    m.sales += 1;
    m.micro += s.micro;
    months.set(month, m);
  }
  return { sales, months: [...months.values()].sort((a, b) => b.month.localeCompare(a.month)) };
}

/** The publisher's data sales: at most `limit` postings' worth, newest first. */
export async function dataSales(db: Database, userId: string, limit = 500): Promise<{ sales: DataSale[]; months: DataSalesMonth[] }> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select t.id as transaction_id, t.occurred_at as sold_at, a.name as app, p.amount_micro as micro
        from public.ledger_postings p
        join public.ledger_transactions t on t.id = p.transaction_id
        join public.ledger_accounts la on la.id = p.account_id
        left join public.apps a on a.id = p.app_id
        where t.kind = 'data_sale' and la.kind = 'publisher' and la.user_id = ${userId}::uuid
        order by t.occurred_at desc, t.id limit ${limit}`,
    posting,
  );
  return groupDataSales(rows);
}
