import { z } from 'zod';
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

/**
 * The ledger's ad revenue per app and day: what publishers earned (`revenue`) and what the ads cost
 * (`cost`), in micro-dollars: the roll-up's `ad_spend` transactions, and the `ad_revenue` and
 * `platform_fee` ones of days counted before advertisers had accounts.
 */
const LEDGER_BY_APP_DAY = sql`
  select p.app_id, (t.occurred_at at time zone 'UTC')::date as day,
         coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher'), 0) as revenue,
         coalesce(sum(p.amount_micro) filter (where a.kind in ('publisher', 'platform_fees')), 0) as cost
  from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
  join public.ledger_accounts a on a.id = p.account_id
  where t.kind in ('ad_spend', 'ad_revenue', 'platform_fee') and p.app_id is not null group by 1, 2`;

const INVARIANTS: Invariant[] = [
  {
    name: 'Every ledger transaction balances to zero, with at least two postings',
    query: sql`select 'transaction ' || t.id || ' (' || t.kind || ' ' || t.reference || '): ' || count(p.id) || ' postings summing to '
                      || coalesce(sum(p.amount_micro), 0) || ' micro-dollars' as line
               from public.ledger_transactions t left join public.ledger_postings p on p.transaction_id = t.id
               group by t.id having coalesce(sum(p.amount_micro), 0) <> 0 or count(p.id) < 2`,
  },
  {
    name: 'The ledger and the staff audit log refuse updates and deletes (their triggers are in place)',
    query: sql`select 'table ' || x.t || ' lacks its trigger ' || x.g as line
               from (values ('ledger_accounts', 'ledger_accounts_append_only'), ('ledger_transactions', 'ledger_transactions_append_only'),
                            ('ledger_postings', 'ledger_postings_append_only'), ('ledger_postings', 'ledger_postings_balanced'),
                            ('ledger_transactions', 'ledger_transactions_balanced'), ('staff_audit_log', 'staff_audit_log_append_only')) as x(t, g)
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
                 select p.app_id, s.day, sum(s.revenue_micro)::bigint as revenue, sum(s.cost_micro)::bigint as cost
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
    query: sql`select 'app ' || p.app_id || ' on ' || s.day || ': earned ' || sum(s.revenue_micro - s.posted_micro)::bigint
                      || ' micro-dollars, not in the ledger' as line
               from public.daily_stats s join public.placements p on p.id = s.placement_id
               where s.day < (now() at time zone 'UTC')::date - 1 and s.revenue_micro <> s.posted_micro
               group by p.app_id, s.day
               order by s.day, p.app_id`,
  },
  {
    name: 'What advertisers spent is what publishers earned plus the platform fee: every ad spend moves money only from advertisers to publishers and the platform',
    query: sql`select 'ad_spend ' || t.reference || ': ' || a.kind || ' ' || p.amount_micro || ' micro-dollars' as line
               from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
               join public.ledger_accounts a on a.id = p.account_id
               where t.kind = 'ad_spend'
                 and not ((p.amount_micro < 0 and a.kind in ('advertiser', 'ad_sales') and p.campaign_id is not null or p.amount_micro < 0 and a.kind = 'ad_sales')
                          or (p.amount_micro > 0 and a.kind in ('publisher', 'platform_fees') and p.app_id is not null))`,
  },
  {
    name: "Each campaign's day of spend in the ledger equals its daily spend (what the roll-up counted)",
    query: sql`with ledger as (
                 select p.campaign_id, (t.occurred_at at time zone 'UTC')::date as day, -sum(p.amount_micro) as micro
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 where t.kind = 'ad_spend' and p.campaign_id is not null group by 1, 2
               ), counted as (
                 select s.campaign_id, s.day, s.spent_micro as micro from public.campaign_daily_spend s
               )
               select 'campaign ' || coalesce(l.campaign_id, c.campaign_id) || ' on ' || coalesce(l.day, c.day) || ': ledger '
                      || coalesce(l.micro, 0) || ', daily spend ' || coalesce(c.micro, 0) || ' (micro-dollars)' as line
               from ledger l full join counted c on c.campaign_id = l.campaign_id and c.day = l.day
               -- Days before the ledger posted spend (the seed's history, databases from before) are not in it.
               where coalesce(l.micro, 0) <> coalesce(c.micro, 0)
                 and coalesce(c.day, l.day) >= coalesce((select min(x.occurred_at at time zone 'UTC')::date from public.ledger_transactions x
                                                        where x.kind = 'ad_spend'), 'infinity'::date)
                 and exists (select 1 from public.campaigns k where k.id = coalesce(l.campaign_id, c.campaign_id))
               order by 1`,
  },
  {
    name: 'Each paid top-up is in the ledger once, for its amount, and nothing else is',
    query: sql`with credited as (
                 select t.reference, count(distinct t.id) as n, sum(p.amount_micro) filter (where a.kind in ('advertiser', 'buyer')) as micro
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind = 'top_up' group by t.reference
               )
               select 'top-up ' || u.id || ' (' || u.status || ', ' || u.amount_micro || ' micro-dollars): credited ' || coalesce(c.micro, 0) as line
               from public.top_ups u left join credited c on c.reference = u.id::text
               where coalesce(c.micro, 0) <> case when u.status = 'paid' then u.amount_micro else 0 end
               union all
               select 'top_up ' || c.reference || ' names no top-up' from credited c
               where not exists (select 1 from public.top_ups u where u.id::text = c.reference)`,
  },
  {
    name: 'Each top-up reversal takes back, once, from the account a credited top-up funded into payments_in, as recorded, never more than the top-up brought in',
    query: sql`with reversed as (
                 select t.id, t.reference, split_part(t.reference, ':', 1) as top_up,
                        count(*) filter (where a.kind in ('advertiser', 'buyer') and p.amount_micro < 0) as debits,
                        count(*) filter (where not ((a.kind in ('advertiser', 'buyer') and p.amount_micro < 0)
                                                    or (a.kind = 'payments_in' and p.amount_micro > 0))) as strays,
                        coalesce(-sum(p.amount_micro) filter (where a.kind in ('advertiser', 'buyer')), 0) as micro,
                        bool_and(a.kind not in ('advertiser', 'buyer') or (a.user_id = u.user_id and a.kind = u.account_kind)) as own
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 left join public.top_ups u on u.id::text = split_part(t.reference, ':', 1)
                 where t.kind = 'top_up_reversal' group by t.id, t.reference
               )
               select 'top_up_reversal ' || r.reference || ': ' || r.micro || ' micro-dollars, ' || r.debits || ' debits, ' || r.strays || ' others'
                      || case when u.id is null or u.status <> 'paid' then ', naming no credited top-up' else '' end
                      || case when not coalesce(r.own, false) then ', from another account than the top-up funded' else '' end
                      || case when x.id is null then ', recorded by no reversal' when x.reversed_micro <> r.micro then ', recorded as ' || x.reversed_micro else '' end
                      as line
               from reversed r left join public.top_ups u on u.id::text = r.top_up
               left join public.payment_reversals x on x.transaction_id = r.id and x.top_up_id = u.id
               where u.id is null or u.status <> 'paid' or r.debits <> 1 or r.strays <> 0 or not coalesce(r.own, false)
                  or x.id is null or x.reversed_micro <> r.micro
               union all
               select 'top-up ' || u.id || ': ' || sum(r.micro) || ' micro-dollars taken back of the ' || u.amount_micro || ' it brought in'
               from reversed r join public.top_ups u on u.id::text = r.top_up
               group by u.id, u.amount_micro having sum(r.micro) > u.amount_micro
               union all
               select 'reversal ' || x.reference || ' took ' || x.reversed_micro || ' micro-dollars the ledger does not hold'
               from public.payment_reversals x
               where x.reversed_micro > 0
                 and not exists (select 1 from public.ledger_transactions t where t.id = x.transaction_id and t.kind = 'top_up_reversal')
               union all
               select 'event ' || x.event_id || ' took money back ' || count(*) || ' times'
               from public.payment_reversals x where x.reversed_micro > 0 group by x.event_id having count(*) > 1`,
  },
  {
    name: "What buyers paid is what publishers earned plus the platform's share: every data sale moves money only from one buyer to publishers and the platform, the publishers' part their share of the price",
    query: sql`with sale as (
                 select t.id, t.reference, count(*) filter (where a.kind = 'buyer' and p.amount_micro < 0) as buyers,
                        count(*) filter (where not ((a.kind = 'buyer' and p.amount_micro < 0) or (a.kind = 'publisher' and p.amount_micro > 0 and p.app_id is not null)
                                                    or (a.kind = 'platform_fees' and p.amount_micro > 0))) as strays,
                        -sum(p.amount_micro) filter (where a.kind = 'buyer') as paid,
                        sum(p.amount_micro) filter (where a.kind = 'publisher') as earned
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind = 'data_sale' group by t.id, t.reference
               )
               select 'data_sale ' || s.reference || ': ' || s.buyers || ' buyer postings, ' || s.strays || ' others, publishers '
                      || coalesce(s.earned, 0) || ' of ' || coalesce(s.paid, 0) || ' paid (micro-dollars)' as line
               from sale s, public.pricing_settings ps
               where s.buyers <> 1 or s.strays <> 0
                  or coalesce(s.earned, 0) not between floor(s.paid * ps.publisher_data_revenue_share) - 1 and ceil(s.paid * ps.publisher_data_revenue_share) + 1`,
  },
  {
    name: 'Each granted data license is in the ledger once, for its price, and nothing else is',
    query: sql`with charged as (
                 select t.id, t.reference, -sum(p.amount_micro) filter (where a.kind = 'buyer') as micro
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind = 'data_sale' group by t.id, t.reference
               )
               select 'license ' || l.id || ' (' || l.status || ', ' || l.price_micro || ' micro-dollars): charged ' || coalesce(c.micro, 0) as line
               from public.data_licenses l left join charged c on c.reference = l.id::text
               where coalesce(c.micro, 0) <> case when l.status in ('active', 'expired') then l.price_micro else 0 end
                  or (l.status in ('active', 'expired') and l.transaction_id is distinct from c.id)
               union all
               select 'data_sale ' || c.reference || ' names no license' from charged c
               where not exists (select 1 from public.data_licenses l where l.id::text = c.reference)`,
  },
  {
    name: "Every data claw-back refunds its license's buyer, taken back only from publishers and the platform, no publisher more than the refund",
    query: sql`with claw as (
                 select t.reference, count(*) filter (where a.kind = 'buyer' and p.amount_micro > 0 and a.user_id = l.buyer_id) as buyers,
                        count(*) filter (where not ((a.kind = 'buyer' and p.amount_micro > 0 and a.user_id = l.buyer_id)
                                                    or (a.kind = 'publisher' and p.amount_micro < 0 and p.app_id is not null)
                                                    or (a.kind = 'platform_fees' and p.amount_micro < 0))) as strays,
                        coalesce(sum(p.amount_micro) filter (where a.kind = 'buyer'), 0) as refunded,
                        coalesce(-sum(p.amount_micro) filter (where a.kind = 'publisher'), 0) as clawed,
                        bool_or(l.id is null) as orphan
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 left join public.data_licenses l on l.id::text = split_part(t.reference, ':', 1)
                 where t.kind = 'data_clawback' group by t.id, t.reference
               )
               select 'data_clawback ' || c.reference || ': ' || c.buyers || ' refunds to its buyer, ' || c.strays || ' others, publishers '
                      || c.clawed || ' of ' || c.refunded || ' refunded (micro-dollars)' || case when c.orphan then ', naming no license' else '' end as line
               from claw c where c.orphan or c.buyers <> 1 or c.strays <> 0 or c.clawed > c.refunded`,
  },
  {
    name: "Each license's claw-backs refund the price of its records withdrawn within the window, pro rata, and take from no app more than its sale paid it",
    query: sql`with refunds as (
                 select split_part(t.reference, ':', 1) as license, sum(p.amount_micro) as micro
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind = 'data_clawback' and a.kind = 'buyer' group by 1
               ), withdrawn as (
                 select lr.license_id, sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end) as part
                 from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
                 where lr.clawed_back group by lr.license_id
               ), per_app as (
                 select split_part(t.reference, ':', 1) as license, p.app_id, sum(p.amount_micro) as micro
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind in ('data_sale', 'data_clawback') and a.kind = 'publisher' group by 1, 2
               )
               select 'license ' || l.id || ' (' || l.price_micro || ' micro-dollars): refunded ' || coalesce(r.micro, 0) || ', its withdrawn share is '
                      || floor(l.price_micro::numeric * coalesce(w.part, 0) / greatest(case when l.listing = 'gb_bundles' then l.bytes else l.records end, 1))
                      as line
               from public.data_licenses l left join refunds r on r.license = l.id::text left join withdrawn w on w.license_id = l.id
               where (r.micro is not null or w.part is not null)
                 and coalesce(r.micro, 0) <> floor(l.price_micro::numeric * coalesce(w.part, 0)
                                                   / greatest(case when l.listing = 'gb_bundles' then l.bytes else l.records end, 1))
               union all
               select 'license ' || x.license || ': app ' || x.app_id || ' gave back more than its sale paid it, ' || -x.micro || ' micro-dollars'
               from per_app x where x.micro < 0
               union all
               select 'data_clawback ' || r.license || ' names no license' from refunds r
               where not exists (select 1 from public.data_licenses l where l.id::text = r.license)`,
  },
  {
    // The window is the license's own, fixed when it was charged (migration
    // 20261213001200_clawback_window_per_license), never the setting in force now: a change of
    // `data_clawback_days` must not reach sales made before it.
    name: "A license's records are clawed back exactly when withdrawn within its own claw-back window, fixed when it was charged",
    query: sql`select 'license ' || l.id || ' (' || l.status || '): charged ' || coalesce(l.transaction_id::text, 'never') || ', claw-back window until '
                      || coalesce(l.clawback_until::text, 'none') as line
               from public.data_licenses l where (l.transaction_id is null) <> (l.clawback_until is null)
               union all
               select 'license ' || l.id || ': record ' || lr.record_id || ' withdrawn ' || coalesce(lr.withdrawn_at::text, 'never')
                      || ', window until ' || coalesce(l.clawback_until::text, 'none') || ', '
                      || case when lr.clawed_back then 'clawed back' else 'not clawed back' end
               from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
               where (lr.withdrawn_at is not null or lr.clawed_back) and lr.clawed_back <> coalesce(lr.withdrawn_at < l.clawback_until, false)`,
  },
  {
    name: "Each posted day's ad revenue equals the billable impressions and clicks recorded on its decisions times their price (days whose decisions are kept)",
    // A cost-per-click campaign's clicks are billed on the day of the click (migration 20261221000300_cost_per_click).
    query: sql`with billed as (
                 select d.app_id, (d.impressed_at at time zone 'UTC')::date as day, d.revenue_micro as revenue, d.cost_micro as cost
                 from public.ad_decisions d where d.impression_event_id is not null and d.impressed_at >= now() - interval '34 days'
                 union all
                 select d.app_id, (d.clicked_at at time zone 'UTC')::date, d.click_revenue_micro, d.click_cost_micro
                 from public.ad_decisions d where d.click_cost_micro > 0 and d.clicked_at >= now() - interval '34 days'
               ), decided as (
                 -- Decisions are kept 35 days (the roll-up sweeps older ones): the days wholly kept.
                 select b.app_id, b.day, sum(b.revenue)::bigint as revenue, sum(b.cost)::bigint as cost
                 from billed b group by 1, 2
               ), ledger as (${LEDGER_BY_APP_DAY})
               select 'app ' || d.app_id || ' on ' || d.day || ': decisions ' || d.revenue || ' earned of ' || d.cost || ' cost, ledger '
                      || coalesce(l.revenue, 0) || ' of ' || coalesce(l.cost, 0) || ' (micro-dollars)' as line
               from decided d join ledger l on l.app_id = d.app_id and l.day = d.day
               where d.day >= (now() at time zone 'UTC')::date - 33 and (d.revenue <> l.revenue or d.cost <> l.cost)
               order by d.day, d.app_id`,
  },
  {
    name: 'Each payout is in the ledger once, for its amount, and given back once exactly when it failed or was canceled',
    query: sql`with moved as (
                 select t.reference, t.kind, sum(p.amount_micro) filter (where a.kind = 'payouts') as micro, count(distinct t.id) as n
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind in ('payout', 'payout_reversal') group by t.reference, t.kind
               )
               select 'payout ' || o.id || ' (' || o.status || ', ' || o.amount_micro || ' micro-dollars): ledger paid out '
                      || coalesce(x.micro, 0) || ', gave back ' || coalesce(-r.micro, 0) as line
               from public.payouts o
               left join moved x on x.reference = o.id::text and x.kind = 'payout'
               left join moved r on r.reference = o.id::text and r.kind = 'payout_reversal'
               where coalesce(x.micro, 0) <> o.amount_micro
                  or coalesce(-r.micro, 0) <> case when o.status in ('failed', 'canceled') then o.amount_micro else 0 end
               union all
               select t.kind || ' ' || t.reference || ' names no payout' from public.ledger_transactions t
               where t.kind in ('payout', 'payout_reversal') and not exists (select 1 from public.payouts o where o.id::text = t.reference)`,
  },
  {
    name: 'No publisher is paid more than their final earnings: payouts paid, pending and processing within what month closes made available',
    query: sql`with final as (
                 select a.user_id, sum(p.amount_micro) filter (where t.kind = 'month_close') as closed,
                        sum(p.amount_micro) as available
                 from public.ledger_accounts a join public.ledger_postings p on p.account_id = a.id
                 join public.ledger_transactions t on t.id = p.transaction_id
                 where a.kind = 'publisher_available' group by a.user_id
               ), paid as (
                 select o.user_id, sum(o.amount_micro)::bigint as micro
                 from public.payouts o where o.status in ('paid', 'pending', 'processing') group by o.user_id
               )
               select 'user ' || coalesce(f.user_id, x.user_id) || ': payouts ' || coalesce(x.micro, 0) || ' against final earnings '
                      || coalesce(f.closed, 0) || ', available balance ' || coalesce(f.available, 0) || ' (micro-dollars)' as line
               from final f full join paid x on x.user_id = f.user_id
               where coalesce(x.micro, 0) > coalesce(f.closed, 0) or coalesce(f.available, 0) < 0
                  or coalesce(f.available, 0) <> coalesce(f.closed, 0) - coalesce(x.micro, 0)`,
  },
  {
    name: 'Each closed month moved what its close says, and only from earned to available',
    query: sql`with moved as (
                 select to_date(split_part(t.reference, ':', 2), 'YYYY-MM') as month,
                        sum(p.amount_micro) filter (where a.kind = 'publisher_available') as micro,
                        count(*) filter (where a.kind not in ('publisher', 'publisher_available')) as elsewhere,
                        count(distinct t.id) as publishers
                 from public.ledger_transactions t join public.ledger_postings p on p.transaction_id = t.id
                 join public.ledger_accounts a on a.id = p.account_id
                 where t.kind = 'month_close' group by 1
               )
               select 'month ' || to_char(coalesce(c.month, m.month), 'YYYY-MM') || ': close says ' || coalesce(c.amount_micro, 0) || ' for '
                      || coalesce(c.publishers, 0) || ' publishers, the ledger moved ' || coalesce(m.micro, 0) || ' for '
                      || coalesce(m.publishers, 0) || (case when m.elsewhere > 0 then ', some of it to other accounts' else '' end) as line
               from public.ledger_month_closes c full join moved m on m.month = c.month
               where c.month is null or coalesce(m.micro, 0) <> c.amount_micro or coalesce(m.publishers, 0) <> c.publishers
                  or coalesce(m.elsewhere, 0) > 0`,
  },
];

/** What each check answers: one line of text per thing it found wrong. */
const foundLine = z.object({ line: z.string() });

/** Runs every check; the money is right when each found nothing. */
export async function checkMoney(db: Database): Promise<MoneyCheck[]> {
  const session = asService(db);
  const results: MoneyCheck[] = [];
  for (const invariant of INVARIANTS) {
    const rows = await session.query(invariant.query, foundLine);
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
  return lines.join('\n');
}
