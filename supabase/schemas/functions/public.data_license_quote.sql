-- What a license would cost (migration 20261209000000_data_buyers): `p_quantity` units of a
-- listing for a filter (public.data_catalog_available), standard or exclusive, at the pricing
-- settings in force: units × the listing's price, × `exclusive_license_multiplier` when
-- exclusive, rounded once to the micro-dollar. Units are rows or recordings (a whole number, at
-- most 5,000,000), or GB for a bundle (0.001 to 1,000, to the MB): a bundle takes the newest
-- records up to that size and is charged for the bytes it takes, so its price here is the most
-- it costs. Answers `{ok: true, units, unit_price_micro, multiplier, price_micro, available_records,
-- available_bytes}` or `{ok: false, error}`: `unknown_listing`, `quantity_out_of_range`,
-- `nothing_matches`, `quantity_above_available` (with what is available), `not_for_sale` (a price of 0).
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
