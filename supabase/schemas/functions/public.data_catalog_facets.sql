-- What a listing's filters can choose from (migration 20261209000000_data_buyers): the app
-- categories and models its available records have, each with how many, from the catalog's
-- counts, of the apps whose records are for sale (public.data_apps_for_sale). Answers json `{categories: [{value, records}], models: [{value, records}]}`.
create or replace function public.data_catalog_facets(p_listing text)
returns json
language sql stable security definer set search_path = ''
as $$
  with available as (
    select c.app_id, c.model, c.records - c.held_records as records
    from public.data_catalog_counts c
    join public.data_apps_for_sale(now()) e on e.app_id = c.app_id
    where c.kind = any(public.data_listing_kinds(p_listing)) and c.records > c.held_records
  )
  select json_build_object(
    'categories', coalesce((select json_agg(json_build_object('value', x.value, 'records', x.records) order by x.records desc, x.value)
                            from (select cat as value, sum(v.records) as records
                                  from available v join public.apps a on a.id = v.app_id cross join unnest(a.category) as cat
                                  group by cat) x), '[]'::json),
    'models', coalesce((select json_agg(json_build_object('value', x.value, 'records', x.records) order by x.records desc, x.value)
                        from (select v.model as value, sum(v.records) as records from available v where v.model <> '' group by v.model) x), '[]'::json))
$$;

revoke all on function public.data_catalog_facets(text) from public, anon, sdk;
grant execute on function public.data_catalog_facets(text) to authenticated, service_role;
