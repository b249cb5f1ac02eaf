-- What an impression earns the publisher, in micro-dollars: its cost (micro-dollars) times the
-- publisher's share, from the pricing settings in force, rounded to the micro-dollar (a half away
-- from zero, as round(cost × share, 6) rounded it in dollars before migration
-- 20261214001000_money_in_micro_dollars).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_publisher_revenue(p_cost bigint, p_pricing public.pricing_settings)
returns bigint
language sql immutable
as $$
  select round(p_cost * p_pricing.publisher_ad_revenue_share)::bigint
$$;

revoke all on function public.sdk_publisher_revenue(bigint, public.pricing_settings) from public, anon, authenticated;
grant execute on function public.sdk_publisher_revenue(bigint, public.pricing_settings) to sdk;
