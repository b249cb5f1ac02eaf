-- Issue 39, finding 1: buyers may exclude apps younger than N days. The catalog's counts, the
-- sample, the quote and the purchase take `p_min_app_age_days` (null or 0: any age), and a
-- license keeps it in its filter (`min_app_age_days`). A new argument is a new signature: the old
-- functions are dropped first and their grants given again (supabase/schemas/README.md).
drop function public.data_catalog_available(text, text[], date, date, text[]);
drop function public.data_catalog_sample(text, text[], date, date, text[], integer);
drop function public.data_license_quote(text, text[], date, date, text[], numeric, boolean);
drop function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint);

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

-- A free sample of a listing for a filter (migrations 20261209000000_data_buyers,
-- 20261213000600_data_samples): at most `p_limit` (at most 100) records of the day's pool
-- (public.data_sample_pool: fixed for the listing and the UTC day, whatever the filter) that
-- match the filter (with `p_min_app_age_days`, only apps at least that many days old: migration
-- 20261213000602_data_min_app_age) and are still available, in the pool's order, each with only what is not an
-- identifier: its kind, its app's categories, the day it was received, its model and its
-- content. No record id, subject or app: the service also masks identifiers in the text
-- (lib/data-buyers/identifiers.ts). A filter narrows within the pool, so a buyer trying filter
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

-- What a license would cost (migration 20261209000000_data_buyers): `p_quantity` units of a
-- listing for a filter (public.data_catalog_available), standard or exclusive, at the pricing
-- settings in force: units × the listing's price, × `exclusive_license_multiplier` when
-- exclusive, rounded once to the micro-dollar. Units are rows or recordings (a whole number, at
-- most 5,000,000), or GB for a bundle (0.001 to 1,000, to the MB): a bundle takes the newest
-- records up to that size and is charged for the bytes it takes, so its price here is the most
-- it costs. Answers `{ok: true, units, unit_price_micro, multiplier, price_micro, available_records,
-- available_bytes}` or `{ok: false, error}`: `unknown_listing`, `quantity_out_of_range`,
-- `nothing_matches`, `quantity_above_available` (with what is available), `quantity_above_spread`
-- (with the most records a license of this filter can take: no app or publisher may supply more
-- than its share, public.data_license_share_cap; migration 20261213000400_data_market_trust),
-- `not_for_sale` (a price of 0). A bundle's caps are on bytes, and it is charged for what it takes.
-- `p_min_app_age_days`: only apps at least that many days old (null or 0: any age; migration
-- 20261213000602_data_min_app_age).
create or replace function public.data_license_quote(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                     p_quantity numeric, p_exclusive boolean, p_min_app_age_days integer default null)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_available json := public.data_catalog_available(p_listing, p_categories, p_from, p_to, p_models, p_min_app_age_days);
  v_records bigint;
  v_bytes bigint;
  v_unit_usd numeric;
  v_multiplier numeric;
  v_publishers uuid[];
  v_counts bigint[];
  v_low bigint;
  v_high bigint;
  v_middle bigint;
begin
  if v_available is null then
    return json_build_object('ok', false, 'error', 'unknown_listing');
  end if;
  if p_quantity is null or p_quantity <= 0
     or (p_listing <> 'gb_bundles' and (p_quantity <> trunc(p_quantity) or p_quantity > 5000000))
     or (p_listing = 'gb_bundles' and (p_quantity < 0.001 or p_quantity > 1000 or p_quantity <> round(p_quantity, 3))) then
    return json_build_object('ok', false, 'error', 'quantity_out_of_range');
  end if;
  v_records := case when coalesce(p_exclusive, false) then (v_available ->> 'exclusive_records')::bigint else (v_available ->> 'records')::bigint end;
  v_bytes := case when coalesce(p_exclusive, false) then (v_available ->> 'exclusive_bytes')::bigint else (v_available ->> 'bytes')::bigint end;
  if v_records = 0 then
    return json_build_object('ok', false, 'error', 'nothing_matches', 'available_records', 0, 'available_bytes', 0);
  end if;
  if (p_listing = 'gb_bundles' and p_quantity * 1000000000 > v_bytes) or (p_listing <> 'gb_bundles' and p_quantity > v_records) then
    return json_build_object('ok', false, 'error', 'quantity_above_available', 'available_records', v_records, 'available_bytes', v_bytes);
  end if;
  if p_listing <> 'gb_bundles' then
    -- What each app for sale has for the filter, and whether the caps let the license be filled.
    select array_agg(x.publisher_id), array_agg(x.records) into v_publishers, v_counts
    from (
      select e.publisher_id, sum(case when coalesce(p_exclusive, false) then c.fresh_records else c.records - c.held_records end)::bigint as records
      from public.data_catalog_counts c
      join public.data_apps_for_sale(now()) e on e.app_id = c.app_id
      where c.kind = any(public.data_listing_kinds(p_listing))
        and (cardinality(coalesce(p_categories, '{}')) = 0 or exists (select 1 from public.apps a where a.id = c.app_id and a.category && p_categories))
        and (p_from is null or c.day >= p_from)
        and (p_to is null or c.day <= p_to)
        and (cardinality(coalesce(p_models, '{}')) = 0 or c.model = any(p_models))
        and (coalesce(p_min_app_age_days, 0) <= 0
             or exists (select 1 from public.apps a where a.id = c.app_id and a.created_at <= now() - make_interval(days => p_min_app_age_days)))
      group by c.app_id, e.publisher_id
    ) x;
    if public.data_license_fillable(v_publishers, v_counts, p_quantity) < p_quantity then
      -- The largest license the caps let this filter fill (the caps grow with the license).
      v_low := 0;
      v_high := p_quantity - 1;
      while v_low < v_high loop
        v_middle := (v_low + v_high + 1) / 2;
        if public.data_license_fillable(v_publishers, v_counts, v_middle) >= v_middle then
          v_low := v_middle;
        else
          v_high := v_middle - 1;
        end if;
      end loop;
      return json_build_object('ok', false, 'error', 'quantity_above_spread', 'available_records', v_low, 'available_bytes', v_bytes);
    end if;
  end if;
  select case p_listing when 'ai_interactions' then s.price_per_ai_interaction_row_usd
                        when 'ux_sessions' then s.price_per_ux_session_recording_usd
                        else s.price_per_gb_bundle_usd end,
         case when coalesce(p_exclusive, false) then s.exclusive_license_multiplier else 1 end
  into v_unit_usd, v_multiplier
  from public.pricing_settings s;
  if coalesce(v_unit_usd, 0) = 0 then
    return json_build_object('ok', false, 'error', 'not_for_sale');
  end if;
  return json_build_object('ok', true, 'units', p_quantity, 'unit_price_micro', round(v_unit_usd * 1000000)::bigint,
                           'multiplier', v_multiplier, 'price_micro', round(round(v_unit_usd * 1000000) * p_quantity * v_multiplier)::bigint,
                           'available_records', v_records, 'available_bytes', v_bytes);
end $$;

revoke all on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean, integer) from public, anon, sdk;
grant execute on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean, integer) to authenticated, service_role;

-- A data buyer buys a license (migration 20261209000000_data_buyers), as themselves: available
-- records of a listing for a filter, `p_quantity` units (public.data_license_quote), spread across
-- the apps and publishers whose records are for sale, none supplying more than its cap (migration
-- 20261213000400_data_market_trust: public.data_apps_for_sale, public.data_license_share_cap),
-- standard or exclusive, paid from their balance, for no more than `p_max_price_micro` (the
-- price they were shown: if the pricing changed since, nothing is bought).
--
-- Standard: granted at once for a year, its export queued. One `data_sale` transaction (reference: the license)
-- debits the buyer the price and credits each publisher whose records it holds, per app, their
-- part of `publisher_data_revenue_share` of it, in proportion to the records (by bytes for a GB
-- bundle) they contributed, to the micro-dollar (largest remainders); the rest is the
-- platform's. Its records may be licensed to others too.
-- Exclusive: records never licensed before, held from that moment for this license alone (no
-- other listing, sample or license sees them), its price reserved from the balance
-- (public.buyer_funds); the operator approves it (charged then, as above, and held for its
-- year) or rejects it (released, nothing charged) in public.staff_data_license_review.
--
-- The records are locked as they are taken, so a withdrawal at the same moment either erases
-- them first or finds them licensed (and sends its notice). Answers `{ok: true, license_id,
-- status, records, bytes, price_micro}` or `{ok: false, error}`: `not_a_buyer`, the quote's
-- refusals, `price_changed` (with the price now), `insufficient_funds` (with what is available),
-- `account_on_hold` (money the buyer paid was taken back: a refund, a dispute; nothing is bought
-- until the operator releases the account, migration 20261213000500_reversals).
-- `p_min_app_age_days`: only records of apps at least that many days old (null or 0: any age;
-- migration 20261213000602_data_min_app_age), kept in the license's filter.
create or replace function public.data_license_buy(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                   p_quantity numeric, p_exclusive boolean, p_max_price_micro bigint,
                                                   p_min_app_age_days integer default null)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_buyer uuid := auth.uid();
  v_profile record;
  v_quote json;
  v_exclusive boolean := coalesce(p_exclusive, false);
  v_license uuid := gen_random_uuid();
  v_taken integer := 0;
  v_bytes bigint := 0;
  v_limit_bytes bigint;
  -- The one kind of a listing of rows or recordings; bundles take every kind.
  v_kind text := case p_listing when 'ai_interactions' then 'ai_interaction' when 'ux_sessions' then 'ux_session' end;
  v_record record;
  v_units numeric;
  v_price bigint;
  v_funds json;
  v_tx uuid;
  v_app_share numeric;
  v_publisher_share numeric;
  v_min_records integer;
  v_app_cap bigint;
  v_publisher_cap bigint;
  -- A bundle's bytes and records so far, per app and per publisher (keyed by id).
  v_app_bytes jsonb := '{}';
  v_app_records jsonb := '{}';
begin
  select * into v_profile from public.buyer_profiles b where b.user_id = v_buyer;
  if not found then
    return json_build_object('ok', false, 'error', 'not_a_buyer');
  end if;
  if public.account_held(v_buyer) then
    return json_build_object('ok', false, 'error', 'account_on_hold');
  end if;
  -- One purchase at a time per buyer: two at once cannot both spend the same balance.
  perform pg_advisory_xact_lock(hashtextextended('data_license_buy:' || v_buyer, 0));
  v_quote := public.data_license_quote(p_listing, p_categories, p_from, p_to, p_models, p_quantity, v_exclusive, p_min_app_age_days);
  if not (v_quote ->> 'ok')::boolean then
    return v_quote;
  end if;
  if (v_quote ->> 'price_micro')::bigint > coalesce(p_max_price_micro, 0) then
    return json_build_object('ok', false, 'error', 'price_changed', 'price_micro', (v_quote ->> 'price_micro')::bigint);
  end if;
  v_funds := public.buyer_funds(v_buyer);
  if (v_funds ->> 'available_micro')::bigint < (v_quote ->> 'price_micro')::bigint then
    return json_build_object('ok', false, 'error', 'insufficient_funds', 'available_micro', (v_funds ->> 'available_micro')::bigint,
                             'price_micro', (v_quote ->> 'price_micro')::bigint);
  end if;
  v_limit_bytes := case when p_listing = 'gb_bundles' then (p_quantity * 1000000000)::bigint end;
  select s.data_license_max_app_share, s.data_license_max_publisher_share, s.data_license_min_share_records
  into v_app_share, v_publisher_share, v_min_records
  from public.pricing_settings s;
  -- Spread, never newest first: each publisher's newest record, then each one's second, and so on
  -- (a publisher's apps taking turns), in an order drawn per license, while no app and no
  -- publisher supplies more than its cap; only apps for sale (public.data_apps_for_sale).
  if v_limit_bytes is null then
    v_app_cap := public.data_license_share_cap(p_quantity, v_app_share, v_min_records);
    v_publisher_cap := public.data_license_share_cap(p_quantity, v_publisher_share, v_min_records);
    with sellers as (
      select e.app_id, e.publisher_id from public.data_apps_for_sale(now()) e join public.apps a on a.id = e.app_id
      where (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (coalesce(p_min_app_age_days, 0) <= 0 or a.created_at <= now() - make_interval(days => p_min_app_age_days))
    ),
    candidates as (
      -- Each app's newest, at most its cap (index data_records_app_newest).
      select x.id, x.app_id, x.user_id, x.received_at,
             row_number() over (partition by x.app_id order by x.received_at desc, x.id) as app_turn
      from sellers e cross join lateral (
        select r.id, r.app_id, r.user_id, r.received_at
        from public.data_records r
        where r.app_id = e.app_id and r.kind = v_kind
          and r.exclusive_license_id is null
          and (not v_exclusive or r.status = 'unsold')
          and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
          and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
          and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
        order by r.received_at desc, r.id
        limit v_app_cap
      ) x
    ),
    turns as (
      select c.id, c.user_id, row_number() over (partition by c.user_id order by c.app_turn, md5(c.app_id::text || v_license::text)) as publisher_turn
      from candidates c
    ),
    chosen as (
      select t.id, row_number() over (order by t.publisher_turn, md5(t.user_id::text || v_license::text)) as position
      from turns t where t.publisher_turn <= v_publisher_cap
      order by position
      limit p_quantity
    ),
    locked as (
      select r.id, r.app_id, r.user_id, r.bytes
      from public.data_records r join chosen c on c.id = r.id
      where r.exclusive_license_id is null and (not v_exclusive or r.status = 'unsold')
      for update of r skip locked
    )
    insert into public.data_license_records (license_id, position, record_id, app_id, publisher_id, bytes)
    select v_license, row_number() over (order by c.position), l.id, l.app_id, l.user_id, l.bytes from locked l join chosen c on c.id = l.id;
    get diagnostics v_taken = row_count;
    select coalesce(sum(lr.bytes), 0) into v_bytes from public.data_license_records lr where lr.license_id = v_license;
  else
    -- A bundle's caps are on bytes: an app or a publisher supplies at most its share of the size,
    -- or `data_license_min_share_records` records when that is more.
    v_app_cap := ceil(v_limit_bytes * v_app_share)::bigint;
    v_publisher_cap := ceil(v_limit_bytes * v_publisher_share)::bigint;
    for v_record in
      select x.id, x.app_id, x.user_id, x.bytes
      from (
        select r.id, r.app_id, r.user_id, r.bytes,
               row_number() over (partition by r.app_id order by r.received_at desc, r.id) as app_turn
        from public.data_records r
        join public.apps a on a.id = r.app_id
        join public.data_apps_for_sale(now()) e on e.app_id = r.app_id
        where r.exclusive_license_id is null
          and (not v_exclusive or r.status = 'unsold')
          and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
          and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
          and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
          and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
          and (coalesce(p_min_app_age_days, 0) <= 0 or a.created_at <= now() - make_interval(days => p_min_app_age_days))
      ) x
      order by x.app_turn, md5(x.app_id::text || v_license::text)
    loop
      continue when v_bytes + v_record.bytes > v_limit_bytes;
      continue when coalesce((v_app_bytes ->> v_record.app_id::text)::bigint, 0) + v_record.bytes > v_app_cap
                and coalesce((v_app_records ->> v_record.app_id::text)::bigint, 0) >= v_min_records;
      continue when coalesce((v_app_bytes ->> v_record.user_id::text)::bigint, 0) + v_record.bytes > v_publisher_cap
                and coalesce((v_app_records ->> v_record.user_id::text)::bigint, 0) >= v_min_records;
      -- Taken by another purchase a moment ago (locked, or held exclusively): not this one's.
      perform 1 from public.data_records r
      where r.id = v_record.id and r.exclusive_license_id is null and (not v_exclusive or r.status = 'unsold')
      for update of r skip locked;
      continue when not found;
      insert into public.data_license_records (license_id, position, record_id, app_id, publisher_id, bytes)
      values (v_license, v_taken + 1, v_record.id, v_record.app_id, v_record.user_id, v_record.bytes);
      v_taken := v_taken + 1;
      v_bytes := v_bytes + v_record.bytes;
      -- Apps and publishers are counted in one map each: their ids never collide.
      v_app_bytes := v_app_bytes || jsonb_build_object(v_record.app_id::text, coalesce((v_app_bytes ->> v_record.app_id::text)::bigint, 0) + v_record.bytes,
                                                       v_record.user_id::text, coalesce((v_app_bytes ->> v_record.user_id::text)::bigint, 0) + v_record.bytes);
      v_app_records := v_app_records || jsonb_build_object(v_record.app_id::text, coalesce((v_app_records ->> v_record.app_id::text)::bigint, 0) + 1,
                                                           v_record.user_id::text, coalesce((v_app_records ->> v_record.user_id::text)::bigint, 0) + 1);
      exit when v_limit_bytes - v_bytes < 1024;
    end loop;
  end if;
  if v_taken = 0 or (v_limit_bytes is null and v_taken < p_quantity) then
    -- Others took some of them a moment ago (locked, or held exclusively): nothing is bought.
    delete from public.data_license_records lr where lr.license_id = v_license;
    return json_build_object('ok', false, 'error', 'quantity_above_available', 'available_records', v_taken, 'available_bytes', v_bytes);
  end if;
  v_units := case when v_limit_bytes is null then v_taken else v_bytes / 1000000000.0 end;
  v_price := round((v_quote ->> 'unit_price_micro')::bigint * v_units * (v_quote ->> 'multiplier')::numeric)::bigint;
  if v_price <= 0 then
    delete from public.data_license_records lr where lr.license_id = v_license;
    return json_build_object('ok', false, 'error', 'not_for_sale');
  end if;
  if not v_exclusive then
    v_tx := public.data_license_grant(v_license, v_buyer, p_listing, v_price);
  end if;
  insert into public.data_licenses (id, buyer_id, listing, exclusive, filter, quantity, records, bytes, units, unit_price_micro, multiplier,
                                    price_micro, terms_version, term_days, status, starts_at, expires_at, transaction_id)
  values (v_license, v_buyer, p_listing, v_exclusive,
          jsonb_build_object('categories', coalesce(p_categories, '{}'), 'from', p_from, 'to', p_to, 'models', coalesce(p_models, '{}'),
                             'min_app_age_days', nullif(greatest(coalesce(p_min_app_age_days, 0), 0), 0)),
          p_quantity, v_taken, v_bytes, v_units, (v_quote ->> 'unit_price_micro')::bigint, (v_quote ->> 'multiplier')::numeric, v_price,
          v_profile.terms_version, 365, case when v_exclusive then 'pending_review' else 'active' end,
          case when v_exclusive then null else now() end, case when v_exclusive then null else now() + interval '365 days' end, v_tx);
  if v_exclusive then
    -- Held while the operator reviews it; a rejection releases them, an approval holds them for its term.
    update public.data_records r set exclusive_license_id = v_license, exclusive_until = now() + interval '30 days'
    from public.data_license_records lr where lr.license_id = v_license and r.id = lr.record_id;
  else
    update public.data_records r set status = 'sold'
    from public.data_license_records lr where lr.license_id = v_license and r.id = lr.record_id and r.status = 'unsold';
    -- Its files, written by the export job.
    insert into public.data_exports (license_id) values (v_license);
  end if;
  return json_build_object('ok', true, 'license_id', v_license, 'status', case when v_exclusive then 'pending_review' else 'active' end,
                           'records', v_taken, 'bytes', v_bytes, 'price_micro', v_price);
end $$;

revoke all on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint, integer) from public, anon, sdk, service_role;
grant execute on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint, integer) to authenticated;

