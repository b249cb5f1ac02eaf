-- The pricing changes whose time has come, applied (migration 20261213000100_pricing_in_production):
-- each scheduled change (`pricing_changes`) not applied yet whose `effective_at` has passed is
-- written into the one row in force (`pricing_settings`), in order of time (and of scheduling, for
-- two at the same time), and marked with when it was applied. The money functions read that row
-- when they bill, and keep what they billed on what they billed (a decision's cost, a license's
-- price, a payout's amount): a change prices only what is billed after it is applied, never what
-- was billed before. Called by public.staff_pricing_schedule for a change effective now, and by the
-- server's timer and the scheduler's call for the others (lib/ads/serving/rollup.ts, applyDuePricing). Nothing due, the
-- common case, is one index read; runs take turns on the pricing row's lock. Writes the row if it
-- is missing. Answers how many changes it applied.
-- The data market's settings are values of the change too (migration 20261213001100_pricing_data_settings):
-- the share caps of a license, the sellers' minimum age and days of ads, the claw-back window.
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
      cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro, cpm_sponsored_follow_up_micro, cpc_floor_micro,
      price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
      exclusive_license_multiplier, min_payout_micro, min_top_up_micro,
      data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
      data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, updated_at)
    values (
      true, v_change.publisher_ad_revenue_share, v_change.platform_ad_fee, v_change.publisher_data_revenue_share,
      v_change.cpm_floating_video_micro, v_change.cpm_tooltip_micro, v_change.cpm_sponsored_card_micro, v_change.cpm_inline_text_micro, v_change.cpm_sponsored_follow_up_micro,
      v_change.cpc_floor_micro, v_change.price_per_ai_interaction_row_micro, v_change.price_per_ux_session_recording_micro, v_change.price_per_gb_bundle_micro,
      v_change.exclusive_license_multiplier, v_change.min_payout_micro, v_change.min_top_up_micro,
      v_change.data_license_max_app_share, v_change.data_license_max_publisher_share, v_change.data_license_min_share_records,
      v_change.data_seller_min_age_days, v_change.data_seller_min_ad_days, v_change.data_clawback_days, now())
    on conflict (id) do update set
      publisher_ad_revenue_share = excluded.publisher_ad_revenue_share,
      platform_ad_fee = excluded.platform_ad_fee,
      publisher_data_revenue_share = excluded.publisher_data_revenue_share,
      cpm_floating_video_micro = excluded.cpm_floating_video_micro,
      cpm_tooltip_micro = excluded.cpm_tooltip_micro,
      cpm_sponsored_card_micro = excluded.cpm_sponsored_card_micro,
      cpm_inline_text_micro = excluded.cpm_inline_text_micro,
      cpm_sponsored_follow_up_micro = excluded.cpm_sponsored_follow_up_micro,
      cpc_floor_micro = excluded.cpc_floor_micro,
      price_per_ai_interaction_row_micro = excluded.price_per_ai_interaction_row_micro,
      price_per_ux_session_recording_micro = excluded.price_per_ux_session_recording_micro,
      price_per_gb_bundle_micro = excluded.price_per_gb_bundle_micro,
      exclusive_license_multiplier = excluded.exclusive_license_multiplier,
      min_payout_micro = excluded.min_payout_micro,
      min_top_up_micro = excluded.min_top_up_micro,
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
