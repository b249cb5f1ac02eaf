-- The sponsored follow-up (issue 42), a fifth format made for chat: a suggested next question
-- under an answer, at most 80 characters, labelled Sponsored, which a click asks in the chat or
-- opens the advertiser's page, as the creative says.
--
-- * Every table that names the formats takes the fifth: placements, creatives, campaigns'
--   `formats` and the draw's layout (public.campaign_draw_rebuild lays it out too).
-- * A follow-up's creative says what its click does in its call to action, `ask` or `visit`
--   (`creatives_follow_up_action`); the SDK reads it as the ad's `action`. Its landing page is
--   where a click goes on a page that has no chat to ask into.
-- * Its own CPM, `cpm_sponsored_follow_up_micro`, in the settings in force and in every scheduled
--   change, $6 to start; staff change it from /ops like the others (public.staff_pricing_schedule,
--   public.pricing_apply_due) and public.sdk_cost_per_impression bills it.
-- * Its viewability rule: the whole question in view for one second (public.sdk_viewable).

alter table public.placements drop constraint placements_format_check;
alter table public.placements add constraint placements_format_check
  check (format in ('floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up'));
alter table public.creatives drop constraint creatives_format_check;
alter table public.creatives add constraint creatives_format_check
  check (format in ('floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up'));
alter table public.creatives add constraint creatives_follow_up_action
  check (format <> 'sponsored_follow_up' or cta in ('ask', 'visit'));
alter table public.campaign_draw drop constraint campaign_draw_format_check;
alter table public.campaign_draw add constraint campaign_draw_format_check
  check (format in ('floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up'));
alter table public.campaigns drop constraint campaigns_formats_check;
alter table public.campaigns add constraint campaigns_formats_check
  check (formats <@ array['floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up']);

alter table public.pricing_settings add column cpm_sponsored_follow_up_micro bigint not null default 6000000;
alter table public.pricing_settings add constraint pricing_settings_cpm_sponsored_follow_up_micro_check
  check (cpm_sponsored_follow_up_micro >= 0 and cpm_sponsored_follow_up_micro % 100 = 0);
alter table public.pricing_changes add column cpm_sponsored_follow_up_micro bigint not null default 6000000;
alter table public.pricing_changes add constraint pricing_changes_cpm_sponsored_follow_up_micro_check
  check (cpm_sponsored_follow_up_micro >= 0 and cpm_sponsored_follow_up_micro % 100 = 0);

-- The Media Rating Council's rule: 50% of the pixels for one continuous second, 30% for display
-- ads of 242,500 pixels or more (a sponsored card; text formats are never that large, so their
-- area is not evidence), and 50% for two seconds of playback for video. A sponsored follow-up is
-- one short question: the whole of it, for one second (migration 20261220000000_sponsored_follow_up).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_viewable(p_format text, p_share numeric, p_seconds numeric, p_area bigint)
returns boolean
language sql immutable
as $$
  select coalesce(
    p_seconds >= public.sdk_view_seconds(p_format)
    and p_share >= case when p_format = 'sponsored_follow_up' then 1
                        when p_format = 'sponsored_card' and coalesce(p_area, 0) >= 242500 then 0.3 else 0.5 end,
    false)
$$;

revoke all on function public.sdk_viewable(text, numeric, numeric, bigint) from public, anon, authenticated;
grant execute on function public.sdk_viewable(text, numeric, numeric, bigint) to sdk;

-- What an impression costs the advertiser, in micro-dollars: the format's CPM / 1000, from the
-- pricing settings in force, to the micro-dollar, a half rounded up. A CPM is kept to the
-- hundredth of a cent (100 micro-dollars: public.staff_pricing_schedule), so its thousandth is
-- whole or ends in tenths of a micro-dollar; integer arithmetic rounds it as round(cpm / 1000, 6)
-- rounded the CPM in dollars (migration 20261214001000_money_in_micro_dollars). CPMs are never
-- negative (the tables' checks), so `(cpm + 500) / 1000` is the half rounded up.
create or replace function public.sdk_cost_per_impression(p_format text, p_pricing public.pricing_settings)
returns bigint
language sql immutable
as $$
  select (case p_format
            when 'floating_video' then p_pricing.cpm_floating_video_micro
            when 'tooltip' then p_pricing.cpm_tooltip_micro
            when 'sponsored_card' then p_pricing.cpm_sponsored_card_micro
            when 'sponsored_follow_up' then p_pricing.cpm_sponsored_follow_up_micro
            else p_pricing.cpm_inline_text_micro
          end + 500) / 1000
$$;

-- Lays `campaign_draw` out anew from the campaigns as they are now: for each format, every
-- active campaign that buys it (or buys every format), end to end in the order of their ids, each
-- as long as its daily budget (migration 20261212000000_ad_draw; the draw is public.sdk_serve_ad's).
-- Run by the triggers on `campaigns` when a statement changed what the layout reads. One at a time
-- (a transaction-scoped advisory lock): two layouts written at once would both stay. Each
-- statement here reads what was committed before it, so the second of two runs lays out the
-- first's changes too.
create or replace function public.campaign_draw_rebuild()
returns void
language plpgsql volatile security definer set search_path = ''
as $$
begin
  perform pg_advisory_xact_lock(hashtext('public.campaign_draw'));
  delete from public.campaign_draw;
  insert into public.campaign_draw (format, lo, hi, campaign_id)
  select f.format, sum(c.daily_budget_micro) over w - c.daily_budget_micro, sum(c.daily_budget_micro) over w, c.id
  from public.campaigns c
  cross join unnest(array['floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up']) as f (format)
  where c.status = 'active' and (cardinality(c.formats) = 0 or f.format = any(c.formats))
  window w as (partition by f.format order by c.id rows between unbounded preceding and current row);
end $$;

revoke all on function public.campaign_draw_rebuild() from public, anon, authenticated, sdk, service_role;

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
      cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro, cpm_sponsored_follow_up_micro,
      price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
      exclusive_license_multiplier, min_payout_micro, min_top_up_micro,
      data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
      data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, updated_at)
    values (
      true, v_change.publisher_ad_revenue_share, v_change.platform_ad_fee, v_change.publisher_data_revenue_share,
      v_change.cpm_floating_video_micro, v_change.cpm_tooltip_micro, v_change.cpm_sponsored_card_micro, v_change.cpm_inline_text_micro, v_change.cpm_sponsored_follow_up_micro,
      v_change.price_per_ai_interaction_row_micro, v_change.price_per_ux_session_recording_micro, v_change.price_per_gb_bundle_micro,
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
    'price_per_ai_interaction_row_micro', 'price_per_ux_session_recording_micro', 'price_per_gb_bundle_micro',
    'exclusive_license_multiplier', 'min_payout_micro', 'min_top_up_micro',
    'data_license_max_app_share', 'data_license_max_publisher_share', 'data_license_min_share_records',
    'data_seller_min_age_days', 'data_seller_min_ad_days', 'data_clawback_days'];
  v_steps constant numeric[] := array[0.0001, 0.0001, 0.0001, 100, 100, 100, 100, 100, 100, 100, 100, 0.01, 10000, 10000, 0.0001, 0.0001, 1, 1, 1, 1];
  v_largest constant numeric[] := array[1, 1, 1, 999999999900, 999999999900, 999999999900, 999999999900, 999999999900,
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
  if (p_values ->> 'data_license_min_share_records')::numeric < 1 then
    return json_build_object('ok', false, 'error', 'records_below_one', 'field', 'data_license_min_share_records');
  end if;
  if p_effective_at < now() - interval '1 minute' then
    return json_build_object('ok', false, 'error', 'in_the_past');
  end if;
  v_at := greatest(coalesce(p_effective_at, now()), now());

  insert into public.pricing_changes (
    effective_at, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
    cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro, cpm_sponsored_follow_up_micro,
    price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
    exclusive_license_multiplier, min_payout_micro, min_top_up_micro,
    data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
    data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, reason, scheduled_by)
  values (
    v_at, (p_values ->> 'publisher_ad_revenue_share')::numeric, (p_values ->> 'platform_ad_fee')::numeric,
    (p_values ->> 'publisher_data_revenue_share')::numeric,
    (p_values ->> 'cpm_floating_video_micro')::numeric::bigint, (p_values ->> 'cpm_tooltip_micro')::numeric::bigint,
    (p_values ->> 'cpm_sponsored_card_micro')::numeric::bigint, (p_values ->> 'cpm_inline_text_micro')::numeric::bigint,
    (p_values ->> 'cpm_sponsored_follow_up_micro')::numeric::bigint,
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

-- Campaigns that buy every format are in the follow-up's draw from now on.
select public.campaign_draw_rebuild();
