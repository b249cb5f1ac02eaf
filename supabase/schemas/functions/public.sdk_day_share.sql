-- Pacing: the share of the UTC day gone by at `p_at`, from 0 at midnight towards 1.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_day_share(p_at timestamptz)
returns numeric
language sql stable
as $$
  select extract(epoch from (p_at - date_trunc('day', p_at, 'UTC'))) / 86400
$$;

revoke all on function public.sdk_day_share(timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_day_share(timestamptz) to sdk;
