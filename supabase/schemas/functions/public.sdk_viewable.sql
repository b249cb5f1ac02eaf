-- The Media Rating Council's rule: 50% of the pixels for one continuous second, 30% for display
-- ads of 242,500 pixels or more (a sponsored card; text formats are never that large, so their
-- area is not evidence), and 50% for two seconds of playback for video. A sponsored follow-up is
-- one short question: the whole of it, for one second (migration 20261220000000_sponsored_follow_up).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_viewable(p_format text, p_share numeric, p_seconds numeric, p_area bigint)
returns boolean
language sql immutable
as $$
  select coalesce(
    p_seconds >= public.sdk_view_seconds(p_format)
    and p_share >= case when p_format = 'sponsored_follow_up' then 1
                        when p_format = 'sponsored_card' and coalesce(p_area, 0) >= 242500 then 0.3 else 0.5 end,
    false)
$$;

revoke all on function public.sdk_viewable(text, numeric, numeric, bigint) from public, anon, authenticated;
grant execute on function public.sdk_viewable(text, numeric, numeric, bigint) to sdk;
