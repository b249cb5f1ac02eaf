-- The data market's settings are part of the operator's pricing (issue 39). Migration
-- 20261213000400_data_market_trust put them into the row in force (`pricing_settings`): the
-- largest share of a license one app, or one publisher, may supply, the fewest records either may
-- always supply, the sellers' minimum age and days of ads, and the claw-back window. But a
-- scheduled change (`pricing_changes`, migration 20261213000100_pricing_in_production) had none of
-- them, so the operator could not change them from /ops, and a change left them as they were.
--
-- A change row says every value in force after it, so the new columns are `not null`, checked as
-- the row in force checks them, with no default (public.staff_pricing_schedule, their one writer,
-- gives each). The changes already there, applied or waiting, left these settings as they were:
-- they get the values in force now (the published defaults where no row is in force), so a
-- change waiting still leaves them as they are when it is applied. public.staff_pricing needs no
-- change: it answers every column of both tables.

alter table public.pricing_changes
  add column data_license_max_app_share numeric(6, 4) check (data_license_max_app_share > 0 and data_license_max_app_share <= 1),
  add column data_license_max_publisher_share numeric(6, 4)
    check (data_license_max_publisher_share > 0 and data_license_max_publisher_share <= 1),
  add column data_license_min_share_records integer check (data_license_min_share_records >= 1),
  add column data_seller_min_age_days integer check (data_seller_min_age_days >= 0),
  add column data_seller_min_ad_days integer check (data_seller_min_ad_days >= 0),
  add column data_clawback_days integer check (data_clawback_days >= 0);

update public.pricing_changes c set
  data_license_max_app_share = coalesce(s.data_license_max_app_share, 0.05),
  data_license_max_publisher_share = coalesce(s.data_license_max_publisher_share, 0.05),
  data_license_min_share_records = coalesce(s.data_license_min_share_records, 10),
  data_seller_min_age_days = coalesce(s.data_seller_min_age_days, 14),
  data_seller_min_ad_days = coalesce(s.data_seller_min_ad_days, 7),
  data_clawback_days = coalesce(s.data_clawback_days, 30)
from (values (true)) as one (x) left join public.pricing_settings s on true;

alter table public.pricing_changes
  alter column data_license_max_app_share set not null,
  alter column data_license_max_publisher_share set not null,
  alter column data_license_min_share_records set not null,
  alter column data_seller_min_age_days set not null,
  alter column data_seller_min_ad_days set not null,
  alter column data_clawback_days set not null;

-- Applied with the data market's settings too.
create or replace function public.pricing_apply_due()
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_change public.pricing_changes;
  v_applied integer := 0;
begin
  if not exists (select 1 from public.pricing_changes c where c.applied_at is null and c.effective_at <= now()) then
    return 0;
  end if;
  perform 1 from public.pricing_settings s for update;
  for v_change in
    select * from public.pricing_changes c where c.applied_at is null and c.effective_at <= now()
    order by c.effective_at, c.id for update
  loop
    insert into public.pricing_settings as s (
      id, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
      cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd,
      price_per_ai_interaction_row_usd, price_per_ux_session_recording_usd, price_per_gb_bundle_usd,
      exclusive_license_multiplier, min_payout_usd, min_top_up_usd,
      data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
      data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, updated_at)
    values (
      true, v_change.publisher_ad_revenue_share, v_change.platform_ad_fee, v_change.publisher_data_revenue_share,
      v_change.cpm_floating_video_usd, v_change.cpm_tooltip_usd, v_change.cpm_sponsored_card_usd, v_change.cpm_inline_text_usd,
      v_change.price_per_ai_interaction_row_usd, v_change.price_per_ux_session_recording_usd, v_change.price_per_gb_bundle_usd,
      v_change.exclusive_license_multiplier, v_change.min_payout_usd, v_change.min_top_up_usd,
      v_change.data_license_max_app_share, v_change.data_license_max_publisher_share, v_change.data_license_min_share_records,
      v_change.data_seller_min_age_days, v_change.data_seller_min_ad_days, v_change.data_clawback_days, now())
    on conflict (id) do update set
      publisher_ad_revenue_share = excluded.publisher_ad_revenue_share,
      platform_ad_fee = excluded.platform_ad_fee,
      publisher_data_revenue_share = excluded.publisher_data_revenue_share,
      cpm_floating_video_usd = excluded.cpm_floating_video_usd,
      cpm_tooltip_usd = excluded.cpm_tooltip_usd,
      cpm_sponsored_card_usd = excluded.cpm_sponsored_card_usd,
      cpm_inline_text_usd = excluded.cpm_inline_text_usd,
      price_per_ai_interaction_row_usd = excluded.price_per_ai_interaction_row_usd,
      price_per_ux_session_recording_usd = excluded.price_per_ux_session_recording_usd,
      price_per_gb_bundle_usd = excluded.price_per_gb_bundle_usd,
      exclusive_license_multiplier = excluded.exclusive_license_multiplier,
      min_payout_usd = excluded.min_payout_usd,
      min_top_up_usd = excluded.min_top_up_usd,
      data_license_max_app_share = excluded.data_license_max_app_share,
      data_license_max_publisher_share = excluded.data_license_max_publisher_share,
      data_license_min_share_records = excluded.data_license_min_share_records,
      data_seller_min_age_days = excluded.data_seller_min_age_days,
      data_seller_min_ad_days = excluded.data_seller_min_ad_days,
      data_clawback_days = excluded.data_clawback_days,
      updated_at = excluded.updated_at;
    update public.pricing_changes c set applied_at = now() where c.id = v_change.id;
    v_applied := v_applied + 1;
  end loop;
  return v_applied;
end $$;

revoke all on function public.pricing_apply_due() from public, anon, authenticated, sdk;
grant execute on function public.pricing_apply_due() to service_role;

-- Checks and writes the data market's settings too: shares more than 0 and at most 1, whole records and days within bounds.
create or replace function public.staff_pricing_schedule(p_values jsonb, p_effective_at timestamptz, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  -- Each value, the decimals its column keeps (0: a whole number) and the largest it may be
  -- (migrations 20261121000100_data_model, 20261213000400_data_market_trust).
  v_names constant text[] := array['publisher_ad_revenue_share', 'platform_ad_fee', 'publisher_data_revenue_share',
    'cpm_floating_video_usd', 'cpm_tooltip_usd', 'cpm_sponsored_card_usd', 'cpm_inline_text_usd',
    'price_per_ai_interaction_row_usd', 'price_per_ux_session_recording_usd', 'price_per_gb_bundle_usd',
    'exclusive_license_multiplier', 'min_payout_usd', 'min_top_up_usd',
    'data_license_max_app_share', 'data_license_max_publisher_share', 'data_license_min_share_records',
    'data_seller_min_age_days', 'data_seller_min_ad_days', 'data_clawback_days'];
  v_scales constant integer[] := array[4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2, 4, 4, 0, 0, 0, 0];
  v_largest constant numeric[] := array[1, 1, 1, 999999.9999, 999999.9999, 999999.9999, 999999.9999,
    999999.9999, 999999.9999, 999999.9999, 9999.99, 99999999.99, 99999999.99, 1, 1, 9999999, 3650, 3650, 3650];
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
    if v_value <> round(v_value, v_scales[i]) then
      return json_build_object('ok', false, 'error', case when v_scales[i] = 0 then 'not_whole_number' else 'too_precise' end, 'field', v_names[i]);
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
  if (p_values ->> 'data_license_min_share_records')::numeric < 1 then
    return json_build_object('ok', false, 'error', 'records_below_one', 'field', 'data_license_min_share_records');
  end if;
  if p_effective_at < now() - interval '1 minute' then
    return json_build_object('ok', false, 'error', 'in_the_past');
  end if;
  v_at := greatest(coalesce(p_effective_at, now()), now());

  insert into public.pricing_changes (
    effective_at, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
    cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd,
    price_per_ai_interaction_row_usd, price_per_ux_session_recording_usd, price_per_gb_bundle_usd,
    exclusive_license_multiplier, min_payout_usd, min_top_up_usd,
    data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
    data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, reason, scheduled_by)
  values (
    v_at, (p_values ->> 'publisher_ad_revenue_share')::numeric, (p_values ->> 'platform_ad_fee')::numeric,
    (p_values ->> 'publisher_data_revenue_share')::numeric,
    (p_values ->> 'cpm_floating_video_usd')::numeric, (p_values ->> 'cpm_tooltip_usd')::numeric,
    (p_values ->> 'cpm_sponsored_card_usd')::numeric, (p_values ->> 'cpm_inline_text_usd')::numeric,
    (p_values ->> 'price_per_ai_interaction_row_usd')::numeric, (p_values ->> 'price_per_ux_session_recording_usd')::numeric,
    (p_values ->> 'price_per_gb_bundle_usd')::numeric,
    (p_values ->> 'exclusive_license_multiplier')::numeric, (p_values ->> 'min_payout_usd')::numeric,
    (p_values ->> 'min_top_up_usd')::numeric,
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
