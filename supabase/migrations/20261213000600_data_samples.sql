-- Issue 39, finding 3: free samples copied the catalog. A buyer with $0 read 181 of 183 records
-- in 30 page loads, one filter a day: each filter drew its own newest records. Now a sample
-- shows only the day's pool of its listing (public.data_sample_pool): fixed for the UTC day
-- whatever the filter, drawn from a fixed 5% (at least 20) of the newest records by a keyed
-- hash, and only to a buyer who has put money in their balance. The service also limits sample
-- views per buyer and masks more identifiers (lib/data-buyers/identifiers.ts).

-- The key of the pool's hashes, made once here so that every instance draws the same pool.
-- gen_random_uuid draws from the strong random source.
insert into public.service_secrets (name, value)
values ('data_sample_key', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
on conflict (name) do nothing;

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

-- Its answer is json now (a refusal, or the records): a new result type needs the function dropped first.
drop function public.data_catalog_sample(text, text[], date, date, text[], integer);

-- A free sample of a listing for a filter (migrations 20261209000000_data_buyers,
-- 20261213000600_data_samples): at most `p_limit` (at most 100) records of the day's pool
-- (public.data_sample_pool: fixed for the listing and the UTC day, whatever the filter) that
-- match the filter and are still available, in the pool's order, each with only what is not an
-- identifier: its kind, its app's categories, the day it was received, its model and its
-- content. No record id, subject or app: the service also masks identifiers in the text
-- (lib/data-buyers/identifiers.ts). A filter narrows within the pool, so a buyer trying filter
-- after filter reads the same few records all day, and a small, fixed share of the catalog over
-- any number of days. Only for a data buyer who accepted the terms and has put money in their
-- balance (a credit to their buyer account, ever): a free account sees no sample. Answers
-- `{ok: true, day, records: [...]}` or `{ok: false, error}`: `unknown_listing`, `not_funded`.
create or replace function public.data_catalog_sample(p_listing text, p_categories text[], p_from date, p_to date, p_models text[], p_limit integer)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_buyer uuid := auth.uid();
  v_day date := (now() at time zone 'UTC')::date;
  v_limit integer := least(greatest(coalesce(p_limit, 0), 0), 100);
  v_records json;
begin
  if not exists (select 1 from public.buyer_profiles b where b.user_id = v_buyer) then
    raise exception 'data buyers only' using errcode = 'insufficient_privilege';
  end if;
  if public.data_listing_kinds(p_listing) is null then
    return json_build_object('ok', false, 'error', 'unknown_listing');
  end if;
  if not exists (select 1 from public.ledger_accounts a join public.ledger_postings p on p.account_id = a.id
                 where a.kind = 'buyer' and a.user_id = v_buyer and p.amount_micro > 0) then
    return json_build_object('ok', false, 'error', 'not_funded');
  end if;
  select coalesce(json_agg(json_build_object('kind', s.kind, 'categories', s.category, 'received_on', s.received_on, 'model', s.model, 'payload', s.payload)
                           order by s.rank), '[]'::json)
  into v_records
  from (
    select r.kind, a.category, (r.received_at at time zone 'UTC')::date as received_on, r.model, r.payload, pool.rank
    from public.data_sample_pool(p_listing, v_day) pool
    join public.data_records r on r.id = pool.record_id
    join public.apps a on a.id = r.app_id
    where r.exclusive_license_id is null
      and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
      and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
      and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
      and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
    order by pool.rank
    limit v_limit
  ) s;
  return json_build_object('ok', true, 'day', v_day, 'records', v_records);
end $$;

revoke all on function public.data_catalog_sample(text, text[], date, date, text[], integer) from public, anon, sdk;
grant execute on function public.data_catalog_sample(text, text[], date, date, text[], integer) to authenticated;
