import { asService, type Database } from '../platform/db/roles';
import { sql, type Sql } from '../platform/db/sql';

/**
 * The money's invariants, checked on a whole database (`npm run money:check`, and
 * tests/integration/money-check.test.ts): each check is a query that lists what breaks it, so a
 * check passes when its query finds nothing. Read as the service (every account's money).
 */

export interface MoneyCheck {
  name: string;
  /** What breaks it, one line each (at most LISTED of them), and how many in all. */
  found: string[];
  count: number;
}

const LISTED = 20;

interface Invariant {
  name: string;
  /** Rows of `{line}`, one per breach. */
  query: Sql;
}

/** The ledger's ad revenue per app and day: what publishers earned (`revenue`) and what the ads cost (`cost`), in micro-dollars. */
const LEDGER_BY_APP_DAY = sql`
  select p.app_id, (t.occurred_at at time zone 'UTC')::date as day,
         coalesce(sum(p.amount_micro) filter (where t.kind = 'ad_revenue' and p.amount_micro > 0), 0) as revenue,
         coalesce(sum(p.amount_micro) filter (where p.amount_micro > 0), 0) as cost
  from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
  where t.kind in ('ad_revenue', 'platform_fee') group by 1, 2`;

const INVARIANTS: Invariant[] = [
  {
    name: 'Every ledger transaction balances to zero, with at least two postings',
    query: sql`select 'transaction ' || t.id || ' (' || t.kind || ' ' || t.reference || '): ' || count(p.id) || ' postings summing to '
                      || coalesce(sum(p.amount_micro), 0) || ' micro-dollars' as line
               from public.ledger_transactions t left join public.ledger_postings p on p.transaction_id = t.id
               group by t.id having coalesce(sum(p.amount_micro), 0) <> 0 or count(p.id) < 2`,
  },
  {
    name: 'The ledger refuses updates and deletes (its triggers are in place)',
    query: sql`select 'table ' || x.t || ' lacks its trigger ' || x.g as line
               from (values ('ledger_accounts', 'ledger_accounts_append_only'), ('ledger_transactions', 'ledger_transactions_append_only'),
                            ('ledger_postings', 'ledger_postings_append_only'), ('ledger_postings', 'ledger_postings_balanced'),
                            ('ledger_transactions', 'ledger_transactions_balanced')) as x(t, g)
               where not exists (select 1 from pg_trigger r join pg_class c on c.oid = r.tgrelid join pg_namespace n on n.oid = c.relnamespace
                                 where n.nspname = 'public' and c.relname = x.t and r.tgname = x.g and r.tgenabled <> 'D')`,
  },
  {
    name: 'Nothing is counted twice: one transaction per kind and reference',
    query: sql`select t.kind || ' ' || t.reference || ' written ' || count(*) || ' times' as line
               from public.ledger_transactions t group by t.kind, t.reference having count(*) > 1`,
  },
  {
    name: "Each app's day of ad revenue in the ledger equals its daily stats (what publishers earned, what the ads cost)",
    query: sql`with stats as (
                 select p.app_id, s.day, round(sum(s.revenue_usd) * 1000000)::bigint as revenue, round(sum(s.cost_usd) * 1000000)::bigint as cost
                 from public.daily_stats s join public.placements p on p.id = s.placement_id group by 1, 2
               ), ledger as (${LEDGER_BY_APP_DAY})
               select 'app ' || l.app_id || ' on ' || l.day || ': ledger ' || l.revenue || ' earned of ' || l.cost || ' cost, daily stats '
                      || coalesce(s.revenue, 0) || ' of ' || greatest(coalesce(s.cost, 0), coalesce(s.revenue, 0)) || ' (micro-dollars)' as line
               from ledger l left join stats s on s.app_id = l.app_id and s.day = l.day
               where l.revenue <> coalesce(s.revenue, 0) or l.cost <> greatest(coalesce(s.cost, 0), coalesce(s.revenue, 0))
               order by l.day, l.app_id`,
  },
  {
    name: 'Every day over is in the ledger: no earning day before yesterday left unposted',
    query: sql`select 'app ' || p.app_id || ' on ' || s.day || ': earned ' || round(sum(s.revenue_usd) * 1000000)::bigint
                      || ' micro-dollars, not in the ledger' as line
               from public.daily_stats s join public.placements p on p.id = s.placement_id
               where s.day < (now() at time zone 'UTC')::date - 1
                 and not exists (select 1 from public.ledger_transactions t where t.kind = 'ad_revenue' and t.reference = p.app_id || ':' || s.day)
               group by p.app_id, s.day having sum(s.revenue_usd) > 0
               order by s.day, p.app_id`,
  },
  {
    name: "Each posted day's ad revenue equals the billable impressions recorded on its decisions times their price (days whose decisions are kept)",
    query: sql`with decided as (
                 select d.app_id, (d.impressed_at at time zone 'UTC')::date as day, round(sum(d.revenue_usd) * 1000000)::bigint as revenue,
                        round(sum(d.cost_usd) * 1000000)::bigint as cost
                 -- Decisions are kept 35 days (the roll-up sweeps older ones): the days wholly kept.
                 from public.ad_decisions d where d.impression_event_id is not null and d.impressed_at >= now() - interval '34 days'
                 group by 1, 2
               ), ledger as (${LEDGER_BY_APP_DAY})
               select 'app ' || d.app_id || ' on ' || d.day || ': decisions ' || d.revenue || ' earned of ' || d.cost || ' cost, ledger '
                      || coalesce(l.revenue, 0) || ' of ' || coalesce(l.cost, 0) || ' (micro-dollars)' as line
               from decided d join ledger l on l.app_id = d.app_id and l.day = d.day
               where d.day >= (now() at time zone 'UTC')::date - 33 and (d.revenue <> l.revenue or d.cost <> l.cost)
               order by d.day, d.app_id`,
  },
];

/** Runs every check; the money is right when each found nothing. */
export async function checkMoney(db: Database): Promise<MoneyCheck[]> {
  const session = asService(db);
  const results: MoneyCheck[] = [];
  for (const invariant of INVARIANTS) {
    const rows = await session.query<{ line: string }>(invariant.query);
    results.push({ name: invariant.name, found: rows.slice(0, LISTED).map((r) => r.line), count: rows.length });
  }
  return results;
}

/** The report `npm run money:check` prints: one line per check, and what broke it. */
export function moneyReport(results: MoneyCheck[]): string {
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${r.count === 0 ? 'ok  ' : 'FAIL'} ${r.name}${r.count === 0 ? '' : `: ${r.count}`}`);
    for (const line of r.found) lines.push(`       ${line}`);
    if (r.count > r.found.length) lines.push(`       … and ${r.count - r.found.length} more`);
  }
  const failed = results.filter((r) => r.count > 0).length;
  lines.push(failed === 0 ? 'The money adds up.' : `${failed} of ${results.length} checks failed.`);
  lines.push('Not checked yet: payouts against finalized earnings (payouts are not in the ledger yet).');
  return lines.join('\n');
}
