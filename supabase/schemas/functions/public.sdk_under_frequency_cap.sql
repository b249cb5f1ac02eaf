-- A network (the decision's `network_hash`: its /24 or /64, whatever user agents it sends) may be
-- shown a campaign's ads fewer than `frequency_cap` × `network_factor` times per 24 hours: the
-- factor is the allowance for the several people one network holds (an office, a carrier's NAT),
-- SDK_NETWORK_FREQUENCY_FACTOR (default 4; content/docs/sdk-integration.md, Counting rules).
-- A factor of 0 turns the cap off (a load test from one address); sdk_campaign_creative then
-- reads no fill either.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_under_frequency_cap(p_fills bigint, p_frequency_cap integer, p_network_factor integer)
returns boolean
language sql immutable
as $$
  select p_network_factor = 0 or p_fills < p_frequency_cap::bigint * p_network_factor
$$;

revoke all on function public.sdk_under_frequency_cap(bigint, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_under_frequency_cap(bigint, integer, integer) to sdk;
