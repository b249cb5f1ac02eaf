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
  v_unit_micro bigint;
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
  select case p_listing when 'ai_interactions' then s.price_per_ai_interaction_row_micro
                        when 'ux_sessions' then s.price_per_ux_session_recording_micro
                        else s.price_per_gb_bundle_micro end,
         case when coalesce(p_exclusive, false) then s.exclusive_license_multiplier else 1 end
  into v_unit_micro, v_multiplier
  from public.pricing_settings s;
  if coalesce(v_unit_micro, 0) = 0 then
    return json_build_object('ok', false, 'error', 'not_for_sale');
  end if;
  return json_build_object('ok', true, 'units', p_quantity, 'unit_price_micro', v_unit_micro,
                           'multiplier', v_multiplier, 'price_micro', round(v_unit_micro * p_quantity * v_multiplier)::bigint,
                           'available_records', v_records, 'available_bytes', v_bytes);
end $$;

revoke all on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean, integer) from public, anon, sdk;
grant execute on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean, integer) to authenticated, service_role;
