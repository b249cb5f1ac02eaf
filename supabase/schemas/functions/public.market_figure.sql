-- A figure of the market shown to one side of it (migration 20261220000200_campaign_delivery):
-- other publishers' traffic, other advertisers' budgets. Rounded to two significant figures, and
-- to tens below 100, so that no one app's or campaign's exact figure can be read from it
-- (1,234 is 1,200; 56 is 60; 4 is 0). Null and below zero are 0.
create or replace function public.market_figure(p_n numeric)
returns bigint
language sql immutable set search_path = ''
as $$
  select case when coalesce(p_n, 0) <= 0 then 0
              else round(p_n, -greatest(1, floor(log(p_n))::int - 1))::bigint end
$$;

revoke all on function public.market_figure(numeric) from public, anon, sdk;
grant execute on function public.market_figure(numeric) to authenticated, service_role;
