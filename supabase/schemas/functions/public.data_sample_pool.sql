-- The day's sample pool of a listing (migration 20261213000600_data_samples): the only records
-- any buyer's free sample shows on UTC day `p_day`, and in which order. A sample previews the
-- data; it must not copy the catalog a filter at a time. So the pool is fixed for the day, the
-- same whatever the filter (a filter only narrows within it), and over many days draws from a
-- small, fixed share of the records:
-- * the candidates: the newest 5,000 records of the listing's kinds received before the day
--   began, of apps for sale at that moment (public.data_apps_for_sale), so records arriving
--   during the day change nothing;
-- * the showcase: of those, the 5% (at least 20) that rank first by a keyed hash of the record
--   alone, the same every day: however many days a buyer looks, they see no other records;
-- * the pool: of the showcase, the 100 that rank first by a keyed hash of the listing, the day
--   and the record, in that order.
-- The key (`data_sample_key` in service_secrets, made by the migration) keeps the choice
-- unpredictable to publishers, who know their records. No one but the functions that show a
-- sample calls this.
create or replace function public.data_sample_pool(p_listing text, p_day date)
returns table (record_id uuid, rank integer)
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_kind text := case p_listing when 'ai_interactions' then 'ai_interaction' when 'ux_sessions' then 'ux_session' end;
  v_start timestamptz := p_day::timestamp at time zone 'UTC';
  v_key text := (select s.value from public.service_secrets s where s.name = 'data_sample_key');
  v_ids uuid[];
begin
  if public.data_listing_kinds(p_listing) is null or v_key is null or p_day is null then
    return;
  end if;
  -- A listing of one kind reads its newest records by index (kind, received_at); the bundles,
  -- of every kind, read the newest of all (received_at).
  if v_kind is not null then
    select array_agg(c.id) into v_ids from (
      select r.id from public.data_records r
      join public.data_apps_for_sale(v_start) e on e.app_id = r.app_id
      where r.kind = v_kind and r.received_at < v_start
      order by r.received_at desc, r.id desc
      limit 5000) c;
  else
    select array_agg(c.id) into v_ids from (
      select r.id from public.data_records r
      join public.data_apps_for_sale(v_start) e on e.app_id = r.app_id
      where r.received_at < v_start
      order by r.received_at desc, r.id desc
      limit 5000) c;
  end if;
  return query
    with showcase as (
      select c.id, row_number() over (order by sha256(convert_to(v_key || ':' || c.id::text, 'UTF8'))) as n, count(*) over () as total
      from unnest(coalesce(v_ids, '{}')) c(id)
    )
    select s.id, (row_number() over (order by sha256(convert_to(v_key || ':' || p_listing || ':' || p_day::text || ':' || s.id::text, 'UTF8'))))::integer
    from showcase s
    where s.n <= greatest(20, ceil(s.total * 0.05))
    order by 2
    limit 100;
end $$;

revoke all on function public.data_sample_pool(text, date) from public, anon, authenticated, sdk, service_role;
