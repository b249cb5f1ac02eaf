-- What a listing has available for a filter (migration 20261209000000_data_buyers), from the
-- catalog's counts: records and bytes a standard license may take (stored, not held under an
-- exclusive license), those an exclusive one may take (never licensed, not held), and the first
-- and last day they were received. The filter: apps in any of `p_categories` (none: every app),
-- received from `p_from` to `p_to` (UTC days, both included; null: open), models in `p_models`
-- (none: any), apps at least `p_min_app_age_days` days old (null or 0: any age; migration
-- 20261213000602_data_min_app_age). Only apps whose records are for sale count (public.data_apps_for_sale: old
-- enough, with real use; migration 20261213000400_data_market_trust). Answers json; null for an
-- unknown listing. For anyone signed in: counts say nothing of anyone.
create or replace function public.data_catalog_available(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                         p_min_app_age_days integer default null)
returns json
language sql stable security definer set search_path = ''
as $$
  select case when public.data_listing_kinds(p_listing) is null then null else json_build_object(
    'records', coalesce(sum(c.records - c.held_records), 0),
    'bytes', coalesce(sum(c.bytes - c.held_bytes), 0),
    'exclusive_records', coalesce(sum(c.fresh_records), 0),
    'exclusive_bytes', coalesce(sum(c.fresh_bytes), 0),
    'first_day', min(c.day) filter (where c.records > c.held_records),
    'last_day', max(c.day) filter (where c.records > c.held_records)) end
  from public.data_catalog_counts c
  join public.data_apps_for_sale(now()) e on e.app_id = c.app_id
  where c.kind = any(public.data_listing_kinds(p_listing))
    and (cardinality(coalesce(p_categories, '{}')) = 0 or exists (select 1 from public.apps a where a.id = c.app_id and a.category && p_categories))
    and (p_from is null or c.day >= p_from)
    and (p_to is null or c.day <= p_to)
    and (cardinality(coalesce(p_models, '{}')) = 0 or c.model = any(p_models))
    and (coalesce(p_min_app_age_days, 0) <= 0
         or exists (select 1 from public.apps a where a.id = c.app_id and a.created_at <= now() - make_interval(days => p_min_app_age_days)))
$$;

revoke all on function public.data_catalog_available(text, text[], date, date, text[], integer) from public, anon, sdk;
grant execute on function public.data_catalog_available(text, text[], date, date, text[], integer) to authenticated, service_role;
