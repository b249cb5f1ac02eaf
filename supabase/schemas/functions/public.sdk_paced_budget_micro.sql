-- The most a campaign may have spent today when `p_day_share` of the day has gone by, in
-- micro-dollars (and fractions of one: it is only compared): its daily budget times that share,
-- plus an hour's worth, so that a campaign can start serving after midnight; never more than the
-- whole budget. (It was sdk_paced_budget_usd, in dollars, until migration
-- 20261214001000_money_in_micro_dollars.)
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_micro(p_daily_budget bigint, p_day_share numeric)
returns numeric
language sql immutable
as $$
  select p_daily_budget * least(1, p_day_share + 1.0 / 24)
$$;

revoke all on function public.sdk_paced_budget_micro(bigint, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_micro(bigint, numeric) to sdk;
