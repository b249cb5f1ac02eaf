-- Click after impression: a click on an ad whose impression has not been counted.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_click_before_impression(p_kind text, p_impression_event_id text)
returns boolean
language sql immutable
as $$
  select p_kind = 'click' and p_impression_event_id is null
$$;

revoke all on function public.sdk_click_before_impression(text, text) from public, anon, authenticated;
grant execute on function public.sdk_click_before_impression(text, text) to sdk;
