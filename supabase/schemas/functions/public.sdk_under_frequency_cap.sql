-- A client (its network and browser, the decision's `client_hash`) may be shown a campaign's ads
-- fewer than `frequency_cap` times per 24 hours, whether or not it sends a session id.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_under_frequency_cap(p_fills bigint, p_frequency_cap integer)
returns boolean
language sql immutable
as $$
  select p_fills < p_frequency_cap
$$;

revoke all on function public.sdk_under_frequency_cap(bigint, integer) from public, anon, authenticated;
grant execute on function public.sdk_under_frequency_cap(bigint, integer) to sdk;
