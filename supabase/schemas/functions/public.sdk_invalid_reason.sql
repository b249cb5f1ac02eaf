-- Why an event about a served ad, not a duplicate, is invalid traffic, or null when it counts:
-- the first of the counting rules it fails, in their documented order. Each argument is a fact
-- the caller knows: whether the request is a robot's, whether the evidence is viewable (it
-- matters for impressions only), the ids the decision has counted, and whether the address
-- clicked this ad in the last 3 hours (it matters for clicks only).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_invalid_reason(p_kind text, p_bot boolean, p_viewable boolean, p_impression_event_id text,
                                          p_click_event_id text, p_repeat_click boolean)
returns text
language sql immutable
as $$
  select case
    when p_bot then 'bot'
    when p_kind = 'impression' and not p_viewable then 'not_viewable'
    when public.sdk_already_counted(p_kind, p_impression_event_id, p_click_event_id) then 'already_counted'
    when public.sdk_click_before_impression(p_kind, p_impression_event_id) then 'no_impression'
    when p_kind = 'click' and p_repeat_click then 'repeat_click'
  end
$$;

revoke all on function public.sdk_invalid_reason(text, boolean, boolean, text, text, boolean) from public, anon, authenticated;
grant execute on function public.sdk_invalid_reason(text, boolean, boolean, text, text, boolean) to sdk;
