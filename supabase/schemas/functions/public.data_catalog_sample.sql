-- A free sample of a listing for a filter (migration 20261209000000_data_buyers): at most
-- `p_limit` (at most 100) of its newest available records, each with only what is not an
-- identifier: its kind, its app's categories, the day it was received, its model and its content.
-- No record id, subject or app: the service also masks addresses and numbers in the text
-- (lib/data-buyers/catalog.ts). Only records of apps for sale (public.data_apps_for_sale). Only
-- for a data buyer who accepted the terms.
create or replace function public.data_catalog_sample(p_listing text, p_categories text[], p_from date, p_to date, p_models text[], p_limit integer)
returns table (kind text, categories text[], received_on date, model text, payload jsonb)
language plpgsql stable security definer set search_path = ''
as $$
declare
  -- A listing of one kind reads that kind's newest records by index (kind, received_at); the
  -- bundles, of every kind, read the newest of all (received_at).
  v_kind text := case p_listing when 'ai_interactions' then 'ai_interaction' when 'ux_sessions' then 'ux_session' end;
  v_limit integer := least(greatest(coalesce(p_limit, 0), 0), 100);
begin
  if not exists (select 1 from public.buyer_profiles b where b.user_id = auth.uid()) then
    raise exception 'data buyers only' using errcode = 'insufficient_privilege';
  end if;
  if public.data_listing_kinds(p_listing) is null then
    return;
  end if;
  if v_kind is not null then
    return query
      select r.kind, a.category, (r.received_at at time zone 'UTC')::date, r.model, r.payload
      from public.data_records r
      join public.apps a on a.id = r.app_id
      join public.data_apps_for_sale(now()) e on e.app_id = r.app_id
      where r.kind = v_kind
        and r.exclusive_license_id is null
        and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
        and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
        and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
      order by r.received_at desc, r.id
      limit v_limit;
  else
    return query
      select r.kind, a.category, (r.received_at at time zone 'UTC')::date, r.model, r.payload
      from public.data_records r
      join public.apps a on a.id = r.app_id
      join public.data_apps_for_sale(now()) e on e.app_id = r.app_id
      where r.exclusive_license_id is null
        and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
        and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
        and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
      order by r.received_at desc, r.id
      limit v_limit;
  end if;
end $$;

revoke all on function public.data_catalog_sample(text, text[], date, date, text[], integer) from public, anon, sdk;
grant execute on function public.data_catalog_sample(text, text[], date, date, text[], integer) to authenticated;
