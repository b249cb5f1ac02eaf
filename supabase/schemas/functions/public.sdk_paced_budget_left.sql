-- A campaign may fill while what it has committed today is below its paced budget, both in
-- micro-dollars: what its impressions were billed (its `budget:` counters, debited at billing)
-- and what the ads it served in the impression window may still bill (its `served:` less
-- `billed:` counters).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_left(p_committed_micro bigint, p_daily_budget bigint, p_day_share numeric)
returns boolean
language sql immutable
as $$
  select coalesce(p_committed_micro, 0) < public.sdk_paced_budget_micro(p_daily_budget, p_day_share)
$$;

revoke all on function public.sdk_paced_budget_left(bigint, bigint, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_left(bigint, bigint, numeric) to sdk;
