-- A data market that cannot be stuffed with made-up subjects (issue 39). A new publisher could
-- make subjects and records in a second, and the next buyer's license took them all (a purchase
-- took the newest records), paid its publisher at once, and a withdrawal then left the buyer
-- with nothing and the publisher with the money. Now:
-- * Only apps for sale sell (public.data_apps_for_sale): the app and its publisher's account at
--   least `data_seller_min_age_days` old, and billable ad impressions on at least
--   `data_seller_min_ad_days` days. The catalog's counts, facets and samples show only them.
-- * A license is spread across apps and publishers, never newest first, and no app and no
--   publisher supplies more than its share of it (`data_license_max_app_share`,
--   `data_license_max_publisher_share`), or `data_license_min_share_records` records when that is
--   more (public.data_license_share_cap); a quote the caps cannot fill is refused with the
--   largest license they can (`quantity_above_spread`).
-- * A withdrawal within `data_clawback_days` of a sale refunds the buyer pro rata and claws it
--   back from the publisher and the platform's fee: one `data_clawback` transaction per license
--   (public.data_records_erase).
-- * A data sale's earnings are held until the first month close after its claw-back window ends
--   (public.ledger_close_months), like ad earnings until their month closes.
-- The settings have defaults, so a pricing row inserted without them still works.

alter table public.pricing_settings
  add column data_license_max_app_share numeric(6, 4) not null default 0.05 check (data_license_max_app_share > 0 and data_license_max_app_share <= 1),
  add column data_license_max_publisher_share numeric(6, 4) not null default 0.05
    check (data_license_max_publisher_share > 0 and data_license_max_publisher_share <= 1),
  add column data_license_min_share_records integer not null default 10 check (data_license_min_share_records >= 1),
  add column data_seller_min_age_days integer not null default 14 check (data_seller_min_age_days >= 0),
  add column data_seller_min_ad_days integer not null default 7 check (data_seller_min_ad_days >= 0),
  add column data_clawback_days integer not null default 30 check (data_clawback_days >= 0);

alter table public.ledger_transactions drop constraint ledger_transactions_kind_check;
alter table public.ledger_transactions add constraint ledger_transactions_kind_check
  check (kind in ('ad_revenue', 'platform_fee', 'ad_spend', 'adjustment', 'month_close', 'payout', 'payout_reversal', 'top_up', 'data_sale',
                  'data_clawback'));

-- A license's records withdrawn since, and whether the withdrawal was clawed back (within the window).
alter table public.data_license_records
  add column withdrawn_at timestamptz,
  add column clawed_back boolean not null default false;

-- A purchase reads each app's newest records, at most its cap.
create index data_records_app_newest on public.data_records (app_id, received_at desc, id);

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

-- The most records one app, or one publisher, may contribute to a license of `p_quantity` records
-- (migration 20261213000400_data_market_trust): its share of the license (`p_share`, the pricing
-- settings' `data_license_max_app_share` or `data_license_max_publisher_share`), rounded up, and
-- never fewer than `p_min_records` (`data_license_min_share_records`), so that a small license
-- can still be filled from a small market: a license of at most that many records may come from
-- one app. A purchase (public.data_license_buy) and its quote (public.data_license_quote) use it.
create or replace function public.data_license_share_cap(p_quantity numeric, p_share numeric, p_min_records integer)
returns bigint
language sql immutable set search_path = ''
as $$
  select greatest(ceil(p_quantity * p_share), p_min_records)::bigint
$$;

revoke all on function public.data_license_share_cap(numeric, numeric, integer) from public, anon, sdk;
grant execute on function public.data_license_share_cap(numeric, numeric, integer) to authenticated, service_role;

-- How many records a license of `p_quantity` rows or recordings could take under the share caps
-- (migration 20261213000400_data_market_trust), from what each app for sale has available for the
-- filter (`p_publishers`, `p_records`: one entry per app, its publisher and its records): per app at most the app cap,
-- per publisher (all its apps together) at most the publisher cap (public.data_license_share_cap).
-- A purchase spreads its records across apps and publishers exactly so (public.data_license_buy),
-- so it can be filled when this is at least `p_quantity`.
create or replace function public.data_license_fillable(p_publishers uuid[], p_records bigint[], p_quantity numeric)
returns bigint
language sql stable set search_path = ''
as $$
  select coalesce(sum(y.taken), 0)::bigint
  from (
    select least(sum(least(x.records, public.data_license_share_cap(p_quantity, s.data_license_max_app_share, s.data_license_min_share_records))),
                 public.data_license_share_cap(p_quantity, s.data_license_max_publisher_share, s.data_license_min_share_records)) as taken
    from unnest(p_publishers, p_records) as x(publisher_id, records)
    cross join public.pricing_settings s
    group by x.publisher_id, s.data_license_max_publisher_share, s.data_license_min_share_records
  ) y
$$;

revoke all on function public.data_license_fillable(uuid[], bigint[], numeric) from public, anon, authenticated, sdk, service_role;

-- What a listing has available for a filter (migration 20261209000000_data_buyers), from the
-- catalog's counts: records and bytes a standard license may take (stored, not held under an
-- exclusive license), those an exclusive one may take (never licensed, not held), and the first
-- and last day they were received. The filter: apps in any of `p_categories` (none: every app),
-- received from `p_from` to `p_to` (UTC days, both included; null: open), models in `p_models`
-- (none: any). Only apps whose records are for sale count (public.data_apps_for_sale: old
-- enough, with real use; migration 20261213000400_data_market_trust). Answers json; null for an
-- unknown listing. For anyone signed in: counts say nothing of anyone.
create or replace function public.data_catalog_available(p_listing text, p_categories text[], p_from date, p_to date, p_models text[])
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
$$;

revoke all on function public.data_catalog_available(text, text[], date, date, text[]) from public, anon, sdk;
grant execute on function public.data_catalog_available(text, text[], date, date, text[]) to authenticated, service_role;

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
create or replace function public.data_license_quote(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                     p_quantity numeric, p_exclusive boolean)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_available json := public.data_catalog_available(p_listing, p_categories, p_from, p_to, p_models);
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

revoke all on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean) from public, anon, sdk;
grant execute on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean) to authenticated, service_role;

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
-- refusals, `price_changed` (with the price now), `insufficient_funds` (with what is available).
create or replace function public.data_license_buy(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                   p_quantity numeric, p_exclusive boolean, p_max_price_micro bigint)
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
  -- One purchase at a time per buyer: two at once cannot both spend the same balance.
  perform pg_advisory_xact_lock(hashtextextended('data_license_buy:' || v_buyer, 0));
  v_quote := public.data_license_quote(p_listing, p_categories, p_from, p_to, p_models, p_quantity, v_exclusive);
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
      where cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories
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
          jsonb_build_object('categories', coalesce(p_categories, '{}'), 'from', p_from, 'to', p_to, 'models', coalesce(p_models, '{}')),
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

revoke all on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint) from public, anon, sdk, service_role;
grant execute on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint) to authenticated;

-- Erases a subject's records of an app (migration 20261209000000_data_buyers): every record of
-- theirs of `p_kinds` (all kinds: null), sold or not, deleted at once, so no listing, sample,
-- license or export has them from now on; and each buyer whose licenses (granted, or awaiting
-- review) covered any of them gets one deletion notice naming those records and licenses
-- (GDPR Art. 17 and 19); the files of the licenses' exports, which still hold them, are written
-- again without them. The license keeps a row for each, marked withdrawn.
-- A withdrawal within `data_clawback_days` (pricing settings) of a license's sale is clawed back
-- (migration 20261213000400_data_market_trust): per license, one `data_clawback` transaction
-- (reference `<license>:<the first of its records withdrawn>`, so written once however often the
-- withdrawal is retried: the records are deleted once) refunds the buyer the price of the records
-- withdrawn, pro rata (by records, or bytes for a bundle: the license's price times the share of
-- it withdrawn so far, floored, less what earlier claw-backs refunded), and takes it back from the
-- publisher whose records they were (their part of the sale, in the sale's proportion, never more
-- than the refund) and from the platform's fee (the rest). A withdrawal later than that leaves
-- what the sale earned with its publisher. Called in the
-- withdrawal's transaction (lib/sdk/data.ts), by the app's SDK role for its own app only.
-- Answers how many records were deleted.
create or replace function public.data_records_erase(p_subject text, p_kinds text[], p_reason text)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_deleted uuid[];
  v_licenses uuid[];
  v_window integer;
  v_claw record;
  v_before bigint;
  v_app_before bigint;
  v_refund bigint;
  v_publisher bigint;
  v_publishers_part bigint;
begin
  if v_app is null then
    raise exception 'the SDK role of an app only' using errcode = 'insufficient_privilege';
  end if;
  with gone as (
    delete from public.data_records r
    where r.app_id = v_app and r.subject_hash = p_subject and (p_kinds is null or r.kind = any(p_kinds))
    returning r.id
  )
  select coalesce(array_agg(g.id), '{}') into v_deleted from gone g;
  insert into public.data_deletion_notices (buyer_id, reason, record_ids, license_ids)
  select l.buyer_id, p_reason, array_agg(distinct lr.record_id order by lr.record_id), array_agg(distinct l.id order by l.id)
  from public.data_license_records lr
  join public.data_licenses l on l.id = lr.license_id
  where lr.record_id = any(v_deleted) and l.status in ('active', 'expired', 'pending_review')
  group by l.buyer_id;
  -- Withdrawn from the licenses that hold them; a sale of the last `data_clawback_days` is clawed back.
  select s.data_clawback_days into v_window from public.pricing_settings s;
  -- One withdrawal at a time per license: each claw-back counts what earlier ones refunded.
  perform 1 from public.data_licenses l
  where l.id in (select lr.license_id from public.data_license_records lr where lr.record_id = any(v_deleted))
  order by l.id for update;
  update public.data_license_records lr set withdrawn_at = now(),
    clawed_back = exists (select 1 from public.data_licenses l join public.ledger_transactions t on t.id = l.transaction_id
                          where l.id = lr.license_id and t.occurred_at > now() - make_interval(days => coalesce(v_window, 0)))
  where lr.record_id = any(v_deleted);
  for v_claw in
    select lr.license_id, l.buyer_id, l.price_micro, l.transaction_id, lr.app_id, lr.publisher_id,
           case when l.listing = 'gb_bundles' then l.bytes else l.records end as whole,
           sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end) as part,
           min(lr.record_id::text) as first_record
    from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
    where lr.record_id = any(v_deleted) and lr.clawed_back
    group by lr.license_id, l.buyer_id, l.price_micro, l.transaction_id, lr.app_id, lr.publisher_id, l.listing, l.bytes, l.records
    order by lr.license_id, lr.app_id
  loop
    -- What earlier withdrawals clawed back of this license, and of this app in it (by weight).
    select coalesce(sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end), 0),
           coalesce(sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end) filter (where lr.app_id = v_claw.app_id), 0)
    into v_before, v_app_before
    from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
    where lr.license_id = v_claw.license_id and lr.clawed_back and not (lr.record_id = any(v_deleted));
    select coalesce(sum(p.amount_micro), 0) into v_publishers_part
    from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
    where p.transaction_id = v_claw.transaction_id and a.kind = 'publisher';
    v_refund := floor(v_claw.price_micro::numeric * (v_before + v_claw.part) / v_claw.whole)::bigint
                - floor(v_claw.price_micro::numeric * v_before / v_claw.whole)::bigint;
    v_publisher := least(v_refund, floor(v_publishers_part::numeric * (v_app_before + v_claw.part) / v_claw.whole)::bigint
                                   - floor(v_publishers_part::numeric * v_app_before / v_claw.whole)::bigint);
    continue when v_refund <= 0;
    perform public.ledger_post('data_clawback', v_claw.license_id || ':' || v_claw.first_record, now(), p_reason,
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('buyer', v_claw.buyer_id), 'amount_micro', v_refund),
                        jsonb_build_object('account_id', public.ledger_account('publisher', v_claw.publisher_id), 'amount_micro', -v_publisher,
                                           'app_id', v_claw.app_id),
                        jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', -(v_refund - v_publisher))));
  end loop;
  -- Files already written still hold them: each active license's export is superseded by a new one.
  select coalesce(array_agg(distinct lr.license_id), '{}') into v_licenses
  from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
  where lr.record_id = any(v_deleted) and l.status = 'active';
  update public.data_exports e set status = 'superseded', lease_until = null
  where e.license_id = any(v_licenses) and e.status <> 'superseded';
  insert into public.data_exports (license_id) select unnest(v_licenses);
  return cardinality(v_deleted);
end $$;

revoke all on function public.data_records_erase(text, text[], text) from public, anon, authenticated, service_role;
grant execute on function public.data_records_erase(text, text[], text) to sdk;

-- The month close (migration 20261206000000_payouts): every calendar month whose final day has
-- come (public.ledger_month_final_at: the 5th of the next month) and that is not closed yet is
-- closed, oldest first. Closing a month moves, for each publisher, what the publisher's `publisher`
-- account (earned, not final) holds from before the month's end, into their `publisher_available`
-- account (final, payable): one `month_close` transaction per publisher and month (reference
-- `<user>:<YYYY-MM>`, dated the first instant of the next month), and one row in
-- `ledger_month_closes`. What it moves nets everything dated before the month's end and not moved
-- yet: the month's ad revenue and adjustments, and an adjustment posted late for a month already
-- closed; a balance that nets to zero or less waits for the next month's earnings. A month is
-- closed only once its days are all in the ledger (no count of it waits for the roll-up, no day of
-- it is unposted: daily stats `posted_usd`, migration 20261207000000_advertisers). Runs twice, or twice at once, changes nothing: one run at a time (an advisory
-- lock), and each month and each transaction is written once. Called by the roll-up
-- (public.roll_up_ad_traffic), so it runs where the roll-up runs (the server's timer, or pg_cron);
-- staff can run it now (public.staff_close_months). `p_now` is the clock (the seed and tests move it).
-- Answers how many months it closed.
create or replace function public.ledger_close_months(p_now timestamptz default now(), p_by uuid default null)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_month date;
  v_next date;
  v_row record;
  v_publishers integer;
  v_amount bigint;
  v_closed integer := 0;
  v_window integer;
begin
  -- Nothing to do, the common case, read without a lock.
  select coalesce(max(c.month) + interval '1 month',
                  (select min(date_trunc('month', t.occurred_at at time zone 'UTC'))
                   from public.ledger_transactions t where t.kind in ('ad_spend', 'ad_revenue', 'adjustment', 'data_sale', 'data_clawback')))::date
  into v_month
  from public.ledger_month_closes c;
  if v_month is null or public.ledger_month_final_at(v_month) > p_now then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('ledger_close_months', 0));
  -- Again, under the lock: another run may have closed it meanwhile.
  select coalesce(max(c.month) + interval '1 month', v_month)::date into v_month from public.ledger_month_closes c;
  select coalesce(s.data_clawback_days, 0) into v_window from public.pricing_settings s;

  while public.ledger_month_final_at(v_month) <= p_now loop
    v_next := (v_month + interval '1 month')::date;
    if exists (select 1 from public.ad_traffic_counts c where c.day < v_next)
       or exists (select 1 from public.daily_stats s where s.revenue_usd <> s.posted_usd and s.day < v_next) then
      exit;
    end if;
    v_publishers := 0;
    v_amount := 0;
    for v_row in
      select a.user_id, sum(p.amount_micro)::bigint as amount
      from public.ledger_accounts a
      join public.ledger_postings p on p.account_id = a.id
      join public.ledger_transactions t on t.id = p.transaction_id
      where a.kind = 'publisher'
        and case when t.kind in ('data_sale', 'data_clawback')
                 then (select x.occurred_at from public.ledger_transactions x where x.kind = 'data_sale' and x.reference = split_part(t.reference, ':', 1))
                      + make_interval(days => v_window)
                 else t.occurred_at end < v_next::timestamp at time zone 'UTC'
      group by a.user_id
      having sum(p.amount_micro) > 0
      order by a.user_id
    loop
      perform public.ledger_post('month_close', v_row.user_id || ':' || to_char(v_month, 'YYYY-MM'), v_next::timestamp at time zone 'UTC', null,
        jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', v_row.user_id), 'amount_micro', -v_row.amount),
                          jsonb_build_object('account_id', public.ledger_account('publisher_available', v_row.user_id), 'amount_micro', v_row.amount)));
      v_publishers := v_publishers + 1;
      v_amount := v_amount + v_row.amount;
    end loop;
    insert into public.ledger_month_closes (month, closed_at, closed_by, publishers, amount_micro)
    values (v_month, p_now, p_by, v_publishers, v_amount);
    v_closed := v_closed + 1;
    v_month := v_next;
  end loop;
  return v_closed;
end $$;

revoke all on function public.ledger_close_months(timestamptz, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_close_months(timestamptz, uuid) to service_role;

-- GET /api/v1/me/earnings: every placement of the caller's (archived apps' too) with its
-- figures, the payouts (newest first), the payout method, and the money, exactly, in
-- micro-dollars, all from the ledger (migrations 20261204000000_ledger, 20261206000000_payouts,
-- 20261207000000_advertisers) and, for what the ledger has not posted yet (days counted before
-- advertisers had accounts, until they are over), the daily stats:
--   ad_revenue_micro     what the placements earned: ad spend and revenue, adjustments, and the unposted part;
--   data_revenue_micro   what data sales earned, less their claw-backs (migration 20261213000400);
--   pending_micro        earned, not final yet: the `publisher` account, and the unposted days;
--   available_micro      final, not paid out: the `publisher_available` account.
-- Runs as its caller, like every account read: row-level security keeps each to the caller's
-- own rows.
create or replace function public.account_earnings() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (
    with postings as (
      select a.kind as account, t.kind, sum(p.amount_micro)::bigint as micro
      from public.ledger_postings p
      join public.ledger_accounts a on a.id = p.account_id
      join public.ledger_transactions t on t.id = p.transaction_id
      where a.kind in ('publisher', 'publisher_available')
      group by a.kind, t.kind
    ), unposted as (
      select coalesce(sum(round((s.revenue_usd - s.posted_usd) * 1000000)), 0)::bigint as micro
      from public.daily_stats s where s.revenue_usd <> s.posted_usd
    )
    select json_build_object(
      'id', u.id,
      'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, fills, invalid_events, created_at
                           from public.placements) r),
      'payouts', (select coalesce(json_agg(r order by r.requested_at desc, r.id), '[]')
                  from (select id, period, amount_usd, status, paid_at, requested_at, failure_reason, rail, destination
                        from public.payouts) r),
      'method', (select row_to_json(r) from (select rail, masked, ready, status_note, updated_at from public.payout_methods) r),
      'ad_revenue_micro', coalesce((select sum(micro) from postings where account = 'publisher' and kind in ('ad_spend', 'ad_revenue', 'adjustment')), 0)
                          + (select micro from unposted),
      'data_revenue_micro', coalesce((select sum(micro) from postings where account = 'publisher' and kind in ('data_sale', 'data_clawback')), 0),
      'pending_micro', coalesce((select sum(micro) from postings where account = 'publisher'), 0) + (select micro from unposted),
      'available_micro', coalesce((select sum(micro) from postings where account = 'publisher_available'), 0))
    from public.users u);
end $$;

revoke execute on function public.account_earnings() from public, anon;
grant execute on function public.account_earnings() to authenticated;

