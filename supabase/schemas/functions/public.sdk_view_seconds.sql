-- The seconds the Media Rating Council's rule asks an ad of the format to be in view: two of
-- playback for video, one for the rest. No impression is billable sooner after its ad was served.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_view_seconds(p_format text)
returns numeric
language sql immutable
as $$
  select case when p_format = 'floating_video' then 2 else 1 end::numeric
$$;

revoke all on function public.sdk_view_seconds(text) from public, anon, authenticated;
grant execute on function public.sdk_view_seconds(text) to sdk;
