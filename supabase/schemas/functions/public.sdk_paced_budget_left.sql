-- A campaign may fill while what it spent today (the roll-up's figure; none yet is 0) is below
-- its paced budget.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_left(p_spent_today numeric, p_daily_budget numeric, p_day_share numeric)
returns boolean
language sql immutable
as $$
  select coalesce(p_spent_today, 0) < public.sdk_paced_budget_usd(p_daily_budget, p_day_share)
$$;

revoke all on function public.sdk_paced_budget_left(numeric, numeric, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_left(numeric, numeric, numeric) to sdk;
