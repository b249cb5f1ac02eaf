-- The apps whose records are for sale at `p_now` (migration 20261213000400_data_market_trust),
-- with their publishers: a market a new account cannot stuff with made-up subjects. An app is
-- for sale once it and its publisher's account are both at least `data_seller_min_age_days` old
-- (pricing settings) and it shows real use: billable ad impressions (the daily stats, which count
-- only what passed the ad path's invalid-traffic rules) on at least `data_seller_min_ad_days`
-- distinct days.
-- The catalog's counts, facets and samples, the quote and the purchase read only these apps.
-- Cheap: one pass over the apps, and per app an index lookup of its placements' days.
create or replace function public.data_apps_for_sale(p_now timestamptz)
returns table (app_id uuid, publisher_id uuid)
language sql stable set search_path = ''
as $$
  select a.id, a.user_id
  from public.apps a
  join public.users u on u.id = a.user_id
  cross join public.pricing_settings s
  where a.created_at <= p_now - make_interval(days => s.data_seller_min_age_days)
    and u.created_at <= p_now - make_interval(days => s.data_seller_min_age_days)
    and (select count(distinct d.day) from public.placements p join public.daily_stats d on d.placement_id = p.id
         where p.app_id = a.id and d.impressions > 0) >= s.data_seller_min_ad_days
$$;

revoke all on function public.data_apps_for_sale(timestamptz) from public, anon, authenticated, sdk, service_role;
