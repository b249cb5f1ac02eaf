-- Active, started, and not ended at `p_at`.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_campaign_running(p_status text, p_starts_at timestamptz, p_ends_at timestamptz, p_at timestamptz)
returns boolean
language sql immutable
as $$
  select p_status = 'active' and p_starts_at <= p_at and (p_ends_at is null or p_ends_at > p_at)
$$;

revoke all on function public.sdk_campaign_running(text, timestamptz, timestamptz, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_campaign_running(text, timestamptz, timestamptz, timestamptz) to sdk;
