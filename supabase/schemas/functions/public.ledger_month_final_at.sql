-- When the earnings of the calendar month starting `p_month` become final (migration
-- 20261206000000_payouts): the 5th of the next month at 00:00 UTC, four days after the month ends,
-- so the month's last days are in the ledger and its invalid-traffic adjustments are posted before
-- its earnings are moved to the publishers' available balances (public.ledger_close_months).
-- content/docs/payouts.md publishes the day.
create or replace function public.ledger_month_final_at(p_month date)
returns timestamptz
language sql immutable
as $$
  select (date_trunc('month', p_month) + interval '1 month' + interval '4 days')::timestamp at time zone 'UTC'
$$;

revoke all on function public.ledger_month_final_at(date) from public, anon, sdk;
grant execute on function public.ledger_month_final_at(date) to authenticated, service_role;
