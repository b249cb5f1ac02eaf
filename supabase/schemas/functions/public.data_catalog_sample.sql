-- A free sample of a listing for a filter (migrations 20261209000000_data_buyers,
-- 20261213000600_data_samples): at most `p_limit` (at most 100) records of the day's pool
-- (public.data_sample_pool: fixed for the listing and the UTC day, whatever the filter) that
-- match the filter (with `p_min_app_age_days`, only apps at least that many days old: migration
-- 20261213000602_data_min_app_age) and are still available, in the pool's order, each with only what is not an
-- identifier: its kind, its app's categories, the day it was received, its model and its
-- content. No record id, subject or app: the service also masks identifiers in the text
-- (lib/data/buyers/identifiers.ts). A filter narrows within the pool, so a buyer trying filter
-- after filter reads the same few records all day, and a small, fixed share of the catalog over
-- any number of days. Only for a data buyer who accepted the terms and has put money in their
-- balance (a credit to their buyer account, ever): a free account sees no sample. Answers
-- `{ok: true, day, records: [...]}` or `{ok: false, error}`: `unknown_listing`, `not_funded`.
create or replace function public.data_catalog_sample(p_listing text, p_categories text[], p_from date, p_to date, p_models text[], p_limit integer,
                                                      p_min_app_age_days integer default null)
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
      and (coalesce(p_min_app_age_days, 0) <= 0 or a.created_at <= now() - make_interval(days => p_min_app_age_days))
    order by pool.rank
    limit v_limit
  ) s;
  return json_build_object('ok', true, 'day', v_day, 'records', v_records);
end $$;

revoke all on function public.data_catalog_sample(text, text[], date, date, text[], integer, integer) from public, anon, sdk;
grant execute on function public.data_catalog_sample(text, text[], date, date, text[], integer, integer) to authenticated;
