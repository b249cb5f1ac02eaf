-- Once per ad: the decision has counted an event of this kind already, whatever its id (a hide:
-- the user hid this ad already; migration 20261217000000_ad_hides).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_already_counted(p_kind text, p_impression_event_id text, p_click_event_id text,
                                                      p_hide_event_id text default null)
returns boolean
language sql immutable
as $$
  select (p_kind = 'impression' and p_impression_event_id is not null) or (p_kind = 'click' and p_click_event_id is not null)
      or (p_kind = 'hide' and p_hide_event_id is not null)
$$;

revoke all on function public.sdk_already_counted(text, text, text, text) from public, anon, authenticated;
grant execute on function public.sdk_already_counted(text, text, text, text) to sdk;
