-- Pricing that exists in production (issue 39, finding 8).
--
-- * The row in force: `pricing_settings` was written only by the demo seed, so a production
--   database migrated without it had no row, and every function that prices (an impression, a
--   data license, a top-up's or a payout's minimum) read NULL. This writes the published defaults
--   (lib/pricing/defaults.ts; tests/integration/pricing-in-production.test.ts holds the two
--   equal) when there is no row; a database that has one keeps it.
-- * Changes, scheduled: staff schedule new values effective from a stated time, now or later,
--   never earlier (public.staff_pricing_schedule, audited). They wait in `pricing_changes` until
--   public.pricing_apply_due writes them into the row in force, which records when each was
--   applied. The money functions still read only `pricing_settings`, when they bill, and keep
--   what they billed: a change prices what is billed after it is applied, never what was billed
--   before.

-- ── The row in force ────────────────────────────────────────────────────────────────────────
insert into public.pricing_settings (
  publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
  cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd,
  price_per_ai_interaction_row_usd, price_per_ux_session_recording_usd, price_per_gb_bundle_usd,
  exclusive_license_multiplier, min_payout_usd, min_top_up_usd)
values (0.7, 0.3, 0.8,
        12, 4, 8, 5,
        0.002, 0.05, 40,
        3, 50, 50)
on conflict (id) do nothing;

-- ── Scheduled changes ───────────────────────────────────────────────────────────────────────
-- Every value of the row in force, checked as it checks them, with when it takes effect, why,
-- who scheduled it and when it was applied (null while it waits). Never changed by hand: written
-- by public.staff_pricing_schedule, marked applied by public.pricing_apply_due.
create table public.pricing_changes (
  id                              bigint generated always as identity primary key,
  effective_at                    timestamptz not null,
  publisher_ad_revenue_share      numeric(6, 4) not null check (publisher_ad_revenue_share between 0 and 1),
  platform_ad_fee                 numeric(6, 4) not null check (platform_ad_fee between 0 and 1),
  publisher_data_revenue_share    numeric(6, 4) not null check (publisher_data_revenue_share between 0 and 1),
  cpm_floating_video_usd          numeric(10, 4) not null check (cpm_floating_video_usd >= 0),
  cpm_tooltip_usd                 numeric(10, 4) not null check (cpm_tooltip_usd >= 0),
  cpm_sponsored_card_usd          numeric(10, 4) not null check (cpm_sponsored_card_usd >= 0),
  cpm_inline_text_usd             numeric(10, 4) not null check (cpm_inline_text_usd >= 0),
  price_per_ai_interaction_row_usd    numeric(10, 4) not null check (price_per_ai_interaction_row_usd >= 0),
  price_per_ux_session_recording_usd  numeric(10, 4) not null check (price_per_ux_session_recording_usd >= 0),
  price_per_gb_bundle_usd         numeric(10, 4) not null check (price_per_gb_bundle_usd >= 0),
  exclusive_license_multiplier    numeric(6, 2) not null check (exclusive_license_multiplier >= 1),
  min_payout_usd                  numeric(10, 2) not null check (min_payout_usd >= 0),
  min_top_up_usd                  numeric(10, 2) not null check (min_top_up_usd >= 0),
  reason                          text not null check (length(reason) between 1 and 1000),
  scheduled_by                    uuid not null references public.users (id) on delete restrict,
  scheduled_at                    timestamptz not null default now(),
  applied_at                      timestamptz,
  constraint pricing_changes_shares_add_up check (publisher_ad_revenue_share + platform_ad_fee = 1),
  constraint pricing_changes_not_applied_early check (applied_at is null or applied_at >= effective_at)
);
-- What waits, by time: public.pricing_apply_due's one read when nothing is due.
create index pricing_changes_waiting on public.pricing_changes (effective_at) where applied_at is null;
-- Staff read it through public.staff_pricing; only the functions above write it.
revoke all on public.pricing_changes from public, anon, authenticated, sdk, service_role;
grant select on public.pricing_changes to service_role;
alter table public.pricing_changes enable row level security;
alter table public.pricing_changes force row level security;
create policy "The service reads the scheduled pricing changes"
  on public.pricing_changes for select to service_role using (true);

-- The pricing changes whose time has come, applied (migration 20261213000100_pricing_in_production):
-- each scheduled change (`pricing_changes`) not applied yet whose `effective_at` has passed is
-- written into the one row in force (`pricing_settings`), in order of time (and of scheduling, for
-- two at the same time), and marked with when it was applied. The money functions read that row
-- when they bill, and keep what they billed on what they billed (a decision's cost, a license's
-- price, a payout's amount): a change prices only what is billed after it is applied, never what
-- was billed before. Called by public.staff_pricing_schedule for a change effective now, and by the
-- server's timer and the scheduler's call for the others (lib/sdk/rollup.ts, applyDuePricing). Nothing due, the
-- common case, is one index read; runs take turns on the pricing row's lock. Writes the row if it
-- is missing. Answers how many changes it applied.
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
      exclusive_license_multiplier, min_payout_usd, min_top_up_usd, updated_at)
    values (
      true, v_change.publisher_ad_revenue_share, v_change.platform_ad_fee, v_change.publisher_data_revenue_share,
      v_change.cpm_floating_video_usd, v_change.cpm_tooltip_usd, v_change.cpm_sponsored_card_usd, v_change.cpm_inline_text_usd,
      v_change.price_per_ai_interaction_row_usd, v_change.price_per_ux_session_recording_usd, v_change.price_per_gb_bundle_usd,
      v_change.exclusive_license_multiplier, v_change.min_payout_usd, v_change.min_top_up_usd, now())
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
-- `missing_value` (not a number), `negative`, `too_precise` (more decimals than the column keeps,
-- which would be rounded), `too_large`, `share_above_one`, `shares_must_add_up` (the publisher's
-- ad share and the platform's fee make 1), `multiplier_below_one`; and `reason_required`,
-- `in_the_past`. A change effective now is applied at once (public.pricing_apply_due); a later one
-- by the first run of the server's timer after its time. Refused to anyone but staff
-- (public.is_staff); audited (`pricing.scheduled`).
create or replace function public.staff_pricing_schedule(p_values jsonb, p_effective_at timestamptz, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  -- Each value, the decimals its column keeps and the largest it holds (migration 20261121000100_data_model).
  v_names constant text[] := array['publisher_ad_revenue_share', 'platform_ad_fee', 'publisher_data_revenue_share',
    'cpm_floating_video_usd', 'cpm_tooltip_usd', 'cpm_sponsored_card_usd', 'cpm_inline_text_usd',
    'price_per_ai_interaction_row_usd', 'price_per_ux_session_recording_usd', 'price_per_gb_bundle_usd',
    'exclusive_license_multiplier', 'min_payout_usd', 'min_top_up_usd'];
  v_scales constant integer[] := array[4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2, 2, 2];
  v_largest constant numeric[] := array[1, 1, 1, 999999.9999, 999999.9999, 999999.9999, 999999.9999,
    999999.9999, 999999.9999, 999999.9999, 9999.99, 99999999.99, 99999999.99];
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
      return json_build_object('ok', false, 'error', 'too_precise', 'field', v_names[i]);
    end if;
    if v_value > v_largest[i] then
      return json_build_object('ok', false, 'error', case when i <= 3 then 'share_above_one' else 'too_large' end, 'field', v_names[i]);
    end if;
  end loop;
  if (p_values ->> 'publisher_ad_revenue_share')::numeric + (p_values ->> 'platform_ad_fee')::numeric <> 1 then
    return json_build_object('ok', false, 'error', 'shares_must_add_up', 'field', 'platform_ad_fee');
  end if;
  if (p_values ->> 'exclusive_license_multiplier')::numeric < 1 then
    return json_build_object('ok', false, 'error', 'multiplier_below_one', 'field', 'exclusive_license_multiplier');
  end if;
  if p_effective_at < now() - interval '1 minute' then
    return json_build_object('ok', false, 'error', 'in_the_past');
  end if;
  v_at := greatest(coalesce(p_effective_at, now()), now());

  insert into public.pricing_changes (
    effective_at, publisher_ad_revenue_share, platform_ad_fee, publisher_data_revenue_share,
    cpm_floating_video_usd, cpm_tooltip_usd, cpm_sponsored_card_usd, cpm_inline_text_usd,
    price_per_ai_interaction_row_usd, price_per_ux_session_recording_usd, price_per_gb_bundle_usd,
    exclusive_license_multiplier, min_payout_usd, min_top_up_usd, reason, scheduled_by)
  values (
    v_at, (p_values ->> 'publisher_ad_revenue_share')::numeric, (p_values ->> 'platform_ad_fee')::numeric,
    (p_values ->> 'publisher_data_revenue_share')::numeric,
    (p_values ->> 'cpm_floating_video_usd')::numeric, (p_values ->> 'cpm_tooltip_usd')::numeric,
    (p_values ->> 'cpm_sponsored_card_usd')::numeric, (p_values ->> 'cpm_inline_text_usd')::numeric,
    (p_values ->> 'price_per_ai_interaction_row_usd')::numeric, (p_values ->> 'price_per_ux_session_recording_usd')::numeric,
    (p_values ->> 'price_per_gb_bundle_usd')::numeric,
    (p_values ->> 'exclusive_license_multiplier')::numeric, (p_values ->> 'min_payout_usd')::numeric,
    (p_values ->> 'min_top_up_usd')::numeric, btrim(p_reason), auth.uid())
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

-- The pricing as the operator console (/ops) shows it (migration 20261213000100_pricing_in_production):
-- the values in force (`current`, with when they last changed) and the latest scheduled changes
-- (`changes`, newest first: what, from when, why, by whom, and when it was applied, null while
-- it waits). Refused to anyone but staff (public.is_staff).
create or replace function public.staff_pricing(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'current', (select row_to_json(s) from public.pricing_settings s),
    'changes', (select coalesce(json_agg(r order by r.effective_at desc, r.id desc), '[]')
                from (select c.*, u.email as scheduled_by_email
                      from public.pricing_changes c left join public.users u on u.id = c.scheduled_by
                      order by c.effective_at desc, c.id desc
                      limit least(greatest(coalesce(p_limit, 50), 1), 200)) r));
end $$;

revoke all on function public.staff_pricing(integer) from public, anon, sdk;
grant execute on function public.staff_pricing(integer) to authenticated;
