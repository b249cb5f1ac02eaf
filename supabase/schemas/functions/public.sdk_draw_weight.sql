-- The draw's weight of an eligible campaign: its daily budget (in micro-dollars), tripled when one
-- of its keywords is among the request's.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_draw_weight(p_daily_budget bigint, p_campaign_keywords text[], p_request_keywords text[])
returns bigint
language sql immutable
as $$
  select p_daily_budget * case when p_campaign_keywords && coalesce(p_request_keywords, '{}') then 3 else 1 end
$$;

revoke all on function public.sdk_draw_weight(bigint, text[], text[]) from public, anon, authenticated;
grant execute on function public.sdk_draw_weight(bigint, text[], text[]) to sdk;
