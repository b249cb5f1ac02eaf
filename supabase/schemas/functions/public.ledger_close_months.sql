-- The month close (migration 20261206000000_payouts): every calendar month whose final day has
-- come (public.ledger_month_final_at: the 5th of the next month) and that is not closed yet is
-- closed, oldest first. Closing a month moves, for each publisher, what the publisher's `publisher`
-- account (earned, not final) holds from before the month's end, into their `publisher_available`
-- account (final, payable): one `month_close` transaction per publisher and month (reference
-- `<user>:<YYYY-MM>`, dated the first instant of the next month), and one row in
-- `ledger_month_closes`. What it moves nets everything dated before the month's end and not moved
-- yet: the month's ad revenue and adjustments, and an adjustment posted late for a month already
-- closed; a balance that nets to zero or less waits for the next month's earnings. A data sale's
-- publisher postings, and its claw-backs, count from the end of the sale's own claw-back window,
-- the license's `clawback_until` (migration 20261213000400_data_market_trust; fixed when it was
-- sold, migration 20261213001200_clawback_window_per_license): held until the first close after
-- it, whatever `data_clawback_days` has become since. A month is closed only once its days are
-- all in the ledger (no count of it waits for the roll-up, no day of it is unposted: daily stats `posted_micro`, migration 20261207000000_advertisers). Runs twice, or twice at once, changes nothing: one run at a time (an advisory
-- lock), and each month and each transaction is written once. Called by the roll-up
-- (public.roll_up_ad_traffic), so it runs where the roll-up runs (the server's timer, or pg_cron);
-- staff can run it now (public.staff_close_months). `p_now` is the clock (the seed and tests move it).
-- Answers how many months it closed.
create or replace function public.ledger_close_months(p_now timestamptz default now(), p_by uuid default null)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_month date;
  v_next date;
  v_row record;
  v_publishers integer;
  v_amount bigint;
  v_closed integer := 0;
begin
  -- Nothing to do, the common case, read without a lock.
  select coalesce(max(c.month) + interval '1 month',
                  (select min(date_trunc('month', t.occurred_at at time zone 'UTC'))
                   from public.ledger_transactions t where t.kind in ('ad_spend', 'ad_revenue', 'adjustment', 'data_sale', 'data_clawback')))::date
  into v_month
  from public.ledger_month_closes c;
  if v_month is null or public.ledger_month_final_at(v_month) > p_now then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('ledger_close_months', 0));
  -- Again, under the lock: another run may have closed it meanwhile.
  select coalesce(max(c.month) + interval '1 month', v_month)::date into v_month from public.ledger_month_closes c;

  while public.ledger_month_final_at(v_month) <= p_now loop
    v_next := (v_month + interval '1 month')::date;
    if exists (select 1 from public.ad_traffic_counts c where c.day < v_next)
       or exists (select 1 from public.daily_stats s where s.revenue_micro <> s.posted_micro and s.day < v_next) then
      exit;
    end if;
    v_publishers := 0;
    v_amount := 0;
    for v_row in
      select a.user_id, sum(p.amount_micro)::bigint as amount
      from public.ledger_accounts a
      join public.ledger_postings p on p.account_id = a.id
      join public.ledger_transactions t on t.id = p.transaction_id
      where a.kind = 'publisher'
        and case when t.kind in ('data_sale', 'data_clawback')
                 -- Both kinds' references start with the license's id.
                 then (select l.clawback_until from public.data_licenses l where l.id = split_part(t.reference, ':', 1)::uuid)
                 else t.occurred_at end < v_next::timestamp at time zone 'UTC'
      group by a.user_id
      having sum(p.amount_micro) > 0
      order by a.user_id
    loop
      perform public.ledger_post('month_close', v_row.user_id || ':' || to_char(v_month, 'YYYY-MM'), v_next::timestamp at time zone 'UTC', null,
        jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', v_row.user_id), 'amount_micro', -v_row.amount),
                          jsonb_build_object('account_id', public.ledger_account('publisher_available', v_row.user_id), 'amount_micro', v_row.amount)));
      v_publishers := v_publishers + 1;
      v_amount := v_amount + v_row.amount;
    end loop;
    insert into public.ledger_month_closes (month, closed_at, closed_by, publishers, amount_micro)
    values (v_month, p_now, p_by, v_publishers, v_amount);
    v_closed := v_closed + 1;
    v_month := v_next;
  end loop;
  return v_closed;
end $$;

revoke all on function public.ledger_close_months(timestamptz, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_close_months(timestamptz, uuid) to service_role;
