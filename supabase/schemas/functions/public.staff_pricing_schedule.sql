-- Staff schedule new pricing values (migration 20261213000100_pricing_in_production): every value
-- of `pricing_settings`, by its column name in `p_values`, effective from `p_effective_at` (null:
-- now), with the reason the audit log keeps. Never in the past: a time more than a minute gone is
-- refused, and one less than a minute gone (a form's minute) means now. The values are checked as
-- the row in force checks them, each answered as `{ok: false, error, field}` rather than failing:
-- `missing_value` (not a number), `negative`, `too_precise` (finer than the value is kept: a share
-- to 4 decimals, the multiplier to 2, a price in micro-dollars to the hundredth of a cent, a
-- minimum to the cent), `not_whole_number` (a count of records or days with decimals),
-- `too_large`, `share_above_one`, `share_not_positive` (a data license's share cap of 0),
-- `records_below_one`, `shares_must_add_up` (the publisher's ad share and the platform's fee make
-- 1), `multiplier_below_one`; and `reason_required`, `in_the_past`. A change effective now is
-- applied at once (public.pricing_apply_due); a later one by the first run of the server's timer
-- after its time. Refused to anyone but staff (public.is_staff); audited (`pricing.scheduled`).
-- Prices and minimums are in micro-dollars, as their columns keep them (migration
-- 20261214001000_money_in_micro_dollars: `cpm_*_micro`, `price_per_*_micro`, `min_*_micro`).
-- The data market's settings are values like the others (migration 20261213001100_pricing_data_settings):
-- the largest share of a license one app, or one publisher, may supply (more than 0, at most 1),
-- the fewest records either may always supply (at least 1, at most the largest license, 9,999,999),
-- and the sellers' minimum age, minimum days of ads and the claw-back window (whole days, 0 to 3650).
-- The least a cost-per-click campaign may bid per click, `cpc_floor_micro`, is a price like the CPMs
-- (migration 20261221000300_cost_per_click).
create or replace function public.staff_pricing_schedule(p_values jsonb, p_effective_at timestamptz, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  -- Each value, the step it is kept to (1: a whole number; prices and minimums in micro-dollars,
  -- to the hundredth of a cent and to the cent) and the largest it may be (migrations
  -- 20261121000100_data_model, 20261213000400_data_market_trust, 20261214001000_money_in_micro_dollars).
  v_names constant text[] := array['publisher_ad_revenue_share', 'platform_ad_fee', 'publisher_data_revenue_share',
    'cpm_floating_video_micro', 'cpm_tooltip_micro', 'cpm_sponsored_card_micro', 'cpm_inline_text_micro', 'cpm_sponsored_follow_up_micro',
    'cpc_floor_micro', 'price_per_ai_interaction_row_micro', 'price_per_ux_session_recording_micro', 'price_per_gb_bundle_micro',
    'exclusive_license_multiplier', 'min_payout_micro', 'min_top_up_micro',
    'data_license_max_app_share', 'data_license_max_publisher_share', 'data_license_min_share_records',
    'data_seller_min_age_days', 'data_seller_min_ad_days', 'data_clawback_days'];
  v_steps constant numeric[] := array[0.0001, 0.0001, 0.0001, 100, 100, 100, 100, 100, 100, 100, 100, 100, 0.01, 10000, 10000, 0.0001, 0.0001, 1, 1, 1, 1];
  v_largest constant numeric[] := array[1, 1, 1, 999999999900, 999999999900, 999999999900, 999999999900, 999999999900, 999999999900,
    999999999900, 999999999900, 999999999900, 9999.99, 99999999990000, 99999999990000, 1, 1, 9999999, 3650, 3650, 3650];
  -- Which of them are shares (between 0 and 1).
  v_shares constant text[] := array['publisher_ad_revenue_share', 'platform_ad_fee', 'publisher_data_revenue_share',
    'data_license_max_app_share', 'data_license_max_publisher_share'];
  v_value numeric;
  v_at timestamptz;
  v_id bigint;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  for i in 1 .. array_length(v_names, 1) loop
    if jsonb_typeof(p_values -> v_names[i]) is distinct from 'number' then
      return json_build_object('ok', false, 'error', 'missing_value', 'field', v_names[i]);
    end if;
    v_value := (p_values ->> v_names[i])::numeric;
    if v_value < 0 then
      return json_build_object('ok', false, 'error', 'negative', 'field', v_names[i]);
    end if;
    if v_value % v_steps[i] <> 0 then
      return json_build_object('ok', false, 'error', case when v_steps[i] = 1 then 'not_whole_number' else 'too_precise' end, 'field', v_names[i]);
    end if;
    if v_value > v_largest[i] then
      return json_build_object('ok', false, 'error', case when v_names[i] = any(v_shares) then 'share_above_one' else 'too_large' end, 'field', v_names[i]);
    end if;
  end loop;
  if (p_values ->> 'publisher_ad_revenue_share')::numeric + (p_values ->> 'platform_ad_fee')::numeric <> 1 then
    return json_build_object('ok', false, 'error', 'shares_must_add_up', 'field', 'platform_ad_fee');
  end if;
  if (p_values ->> 'exclusive_license_multiplier')::numeric < 1 then
    return json_build_object('ok', false, 'error', 'multiplier_below_one', 'field', 'exclusive_license_multiplier');
  end if;
  -- A cap of 0 would let no app (or publisher) supply a license: nothing could be sold.
  if (p_values ->> 'data_license_max_app_share')::numeric = 0 then
    return json_build_object('ok', false, 'error', 'share_not_positive', 'field', 'data_license_max_app_share');
  end if;
  if (p_values ->> 'data_license_max_publisher_share')::numeric = 0 then
    return json_build_object('ok', false, 'error', 'share_not_positive', 'field', 'data_license_max_publisher_share');
  end if;
  -- A floor of 0 would let a campaign pay nothing per click.
  if (p_values ->> 'cpc_floor_micro')::numeric = 0 then
    return json_build_object('ok', false, 'error', 'price_not_positive', 'field', 'cpc_floor_micro');
  end if;
  if (p_values ->> 'data_license_min_share_records')::numeric < 1 then
    return json_build_object('ok', false, 'error', 'records_below_one', 'field', 'data_license_min_share_records');
  end if;
  if p_effective_at < now() - interval '1 minute' then
    return json_build_object('ok', false, 'error', 'in_the_past');
  end if;
  v_at := greatest(coalesce(p_effective_at, now()), now());

  insert into public.pricing_changes (
    effective_at, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
    cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro, cpm_sponsored_follow_up_micro, cpc_floor_micro,
    price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
    exclusive_license_multiplier, min_payout_micro, min_top_up_micro,
    data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
    data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, reason, scheduled_by)
  values (
    v_at, (p_values ->> 'publisher_ad_revenue_share')::numeric, (p_values ->> 'platform_ad_fee')::numeric,
    (p_values ->> 'publisher_data_revenue_share')::numeric,
    (p_values ->> 'cpm_floating_video_micro')::numeric::bigint, (p_values ->> 'cpm_tooltip_micro')::numeric::bigint,
    (p_values ->> 'cpm_sponsored_card_micro')::numeric::bigint, (p_values ->> 'cpm_inline_text_micro')::numeric::bigint,
    (p_values ->> 'cpm_sponsored_follow_up_micro')::numeric::bigint, (p_values ->> 'cpc_floor_micro')::numeric::bigint,
    (p_values ->> 'price_per_ai_interaction_row_micro')::numeric::bigint, (p_values ->> 'price_per_ux_session_recording_micro')::numeric::bigint,
    (p_values ->> 'price_per_gb_bundle_micro')::numeric::bigint,
    (p_values ->> 'exclusive_license_multiplier')::numeric, (p_values ->> 'min_payout_micro')::numeric::bigint,
    (p_values ->> 'min_top_up_micro')::numeric::bigint,
    (p_values ->> 'data_license_max_app_share')::numeric, (p_values ->> 'data_license_max_publisher_share')::numeric,
    (p_values ->> 'data_license_min_share_records')::numeric::integer,
    (p_values ->> 'data_seller_min_age_days')::numeric::integer, (p_values ->> 'data_seller_min_ad_days')::numeric::integer,
    (p_values ->> 'data_clawback_days')::numeric::integer, btrim(p_reason), auth.uid())
  returning id into v_id;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), 'pricing.scheduled', v_id::text, btrim(p_reason),
          jsonb_build_object('effective_at', v_at,
                             'values', (select to_jsonb(v) - array['id', 'effective_at', 'reason', 'scheduled_by', 'scheduled_at', 'applied_at']
                                        from public.pricing_changes v where v.id = v_id)));
  if v_at <= now() then
    perform public.pricing_apply_due();
  end if;
  return json_build_object('ok', true, 'id', v_id, 'effective_at', v_at, 'applied', v_at <= now());
end $$;

revoke all on function public.staff_pricing_schedule(jsonb, timestamptz, text) from public, anon, sdk;
grant execute on function public.staff_pricing_schedule(jsonb, timestamptz, text) to authenticated;
