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
-- platform's. Its records may be licensed to others too. Its claw-back window is fixed then:
-- `clawback_until`, the charge plus the `data_clawback_days` in force (migration
-- 20261213001200_clawback_window_per_license), which a later change of the setting never moves.
-- Exclusive: records never licensed before, held from that moment for this license alone (no
-- other listing, sample or license sees them), its price reserved from the balance
-- (public.buyer_funds); the operator approves it (charged then, as above, its claw-back window
-- fixed then, and held for its year) or rejects it (released, nothing charged) in public.staff_data_license_review.
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
  v_clawback_days integer;
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
  select s.data_license_max_app_share, s.data_license_max_publisher_share, s.data_license_min_share_records, s.data_clawback_days
  into v_app_share, v_publisher_share, v_min_records, v_clawback_days
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
                                    price_micro, terms_version, term_days, status, starts_at, expires_at, transaction_id, clawback_until)
  values (v_license, v_buyer, p_listing, v_exclusive,
          jsonb_build_object('categories', coalesce(p_categories, '{}'), 'from', p_from, 'to', p_to, 'models', coalesce(p_models, '{}'),
                             'min_app_age_days', nullif(greatest(coalesce(p_min_app_age_days, 0), 0), 0)),
          p_quantity, v_taken, v_bytes, v_units, (v_quote ->> 'unit_price_micro')::bigint, (v_quote ->> 'multiplier')::numeric, v_price,
          v_profile.terms_version, 365, case when v_exclusive then 'pending_review' else 'active' end,
          case when v_exclusive then null else now() end, case when v_exclusive then null else now() + interval '365 days' end, v_tx,
          -- The sale's window, from the charge (dated now(), as the `data_sale` transaction is).
          case when v_exclusive then null else now() + make_interval(days => v_clawback_days) end);
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
