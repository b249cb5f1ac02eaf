-- A campaign may fill while what it has committed today, in micro-dollars, is below its paced
-- budget: what its impressions were billed (its `budget:` counters, debited at billing) and what
-- the ads it served in the impression window may still bill (its `served:` less `billed:`
-- counters).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_left(p_committed_micro bigint, p_daily_budget numeric, p_day_share numeric)
returns boolean
language sql immutable
as $$
  select coalesce(p_committed_micro, 0) < public.sdk_paced_budget_usd(p_daily_budget, p_day_share) * 1000000
$$;

revoke all on function public.sdk_paced_budget_left(bigint, numeric, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_left(bigint, numeric, numeric) to sdk;
