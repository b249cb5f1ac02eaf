-- What an impression earns the publisher: its cost times the publisher's share, from the pricing
-- settings in force, to the millionth of a dollar.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_publisher_revenue(p_cost numeric, p_pricing public.pricing_settings)
returns numeric
language sql immutable
as $$
  select round(p_cost * p_pricing.publisher_ad_revenue_share, 6)
$$;

revoke all on function public.sdk_publisher_revenue(numeric, public.pricing_settings) from public, anon, authenticated;
grant execute on function public.sdk_publisher_revenue(numeric, public.pricing_settings) to sdk;
