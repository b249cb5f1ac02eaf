-- Money in one unit (issue 40). The ledger has always kept money as integer micro-dollars
-- (millionths of a dollar, `bigint`), but the traffic figures, the campaigns' budgets, the payouts
-- and the prices were numeric dollars beside it, and the money functions converted at every
-- crossing (`round(x * 1000000)::bigint` one way, `x / 1000000.0` the other). Now every amount of
-- money in the schema is a `bigint` of micro-dollars, named so (`…_micro`), and the functions
-- add, compare and post integers. Dollars appear only at the edges: the public interface's `_usd`
-- fields and the forms where people type dollars, converted by the server (lib/platform/kit/micro.ts).
--
-- The columns, each renamed, made `bigint` and converted by × 1,000,000:
--
--   ad_decisions          cost_usd, revenue_usd                 numeric(14, 6) → cost_micro, revenue_micro
--   ad_events             revenue_usd                           numeric(14, 6) → revenue_micro
--   ad_traffic_counts     cost_usd, promised_usd, revenue_usd   numeric(14, 6) → cost_micro, promised_micro, revenue_micro
--   campaign_daily_spend  spent_usd                             numeric(14, 6) → spent_micro
--   campaign_daily_stats  spent_usd                             numeric(14, 6) → spent_micro
--   campaigns             daily_budget_usd, daily_cap_usd,      numeric(12, 2) → daily_budget_micro, daily_cap_micro,
--                         lifetime_budget_usd                                     lifetime_budget_micro
--   daily_stats           revenue_usd, cost_usd, posted_usd,    numeric(14, 6) → revenue_micro, cost_micro, posted_micro,
--                         posted_cost_usd                                         posted_cost_micro
--   payouts               amount_usd                            numeric(14, 2) → amount_micro
--   placements            revenue_usd                           numeric(14, 6) → revenue_micro
--   pricing_settings and  cpm_{floating_video,tooltip,          numeric(10, 4) → cpm_…_micro
--   pricing_changes         sponsored_card,inline_text}_usd
--                         price_per_{ai_interaction_row,        numeric(10, 4) → price_per_…_micro
--                           ux_session_recording,gb_bundle}_usd
--                         min_payout_usd, min_top_up_usd        numeric(10, 2) → min_payout_micro, min_top_up_micro
--
-- None rounds. A numeric(p, s) value is a whole number of 10^-s dollars, and every scale here is
-- at most 6, so the value times 1,000,000 is that whole number times 10^(6 - s): an integer, which
-- the cast to bigint keeps as it is. The largest value a column could hold, under 10^(p - s)
-- dollars, is under 10^12 dollars (payouts' numeric(14, 2)), 10^18 micro-dollars, inside bigint's
-- 9.2 × 10^18. The block below reads the types from the catalog first and stops the migration,
-- changing nothing, if any column here were finer than a micro-dollar or too large for a bigint.
--
-- What the old types kept, the new checks keep: budgets, caps, payouts and minimums in whole cents
-- (a multiple of 10,000 micro-dollars), CPMs and data prices to the hundredth of a cent (of 100),
-- as numeric(…, 2) and numeric(…, 4) held them; nothing already stored breaks them, for the same
-- reason nothing rounds. The signs' checks stay as they were, under the new names.
--
-- Not money, and left as they are: shares (`publisher_ad_revenue_share`, `platform_ad_fee`,
-- `publisher_data_revenue_share`, `data_license_max_*_share`, `ad_decisions.visible_share`), the
-- exclusive license multiplier, `ad_decisions.visible_seconds`, a license's `quantity`, `units`
-- and `multiplier`, and `campaign_draw.lo` and `hi`: positions along the draw's layout, each
-- campaign as long as its daily budget, in micro-dollars from now on (laid out again at the end of
-- this migration), kept numeric because a sum of many budgets could pass what a bigint holds.
--
-- The functions that read or write these columns follow, each as its file in
-- supabase/schemas/functions/ has it, in its latest text: those the migrations just before this
-- one made or changed (public.payout_eligibility, public.payout_request, public.payout_transition,
-- public.staff_overview, public.campaigns_guard, public.sdk_record_events, from
-- 20261214000100_payout_preview to 20261214000400_event_reasons) as they made them, with the
-- columns' new names and unit. The rules of the SDK's hot paths stay `language sql` and
-- inlinable; those whose arguments or results were dollars take and give micro-dollars, so they
-- are dropped and made again with their grants: sdk_cost_per_impression, sdk_publisher_revenue,
-- sdk_draw_weight, sdk_paced_budget_left, sdk_campaign_creative, and sdk_paced_budget_usd, which
-- becomes sdk_paced_budget_micro. Each computes what it computed before, in the new unit:
-- an impression's cost is the CPM's thousandth rounded half up to the micro-dollar (as
-- round(cpm / 1000, 6) rounded it in dollars), the publisher's revenue the cost times the share
-- rounded to the micro-dollar (as round(cost × share, 6)), and the daily limit of
-- public.campaigns_advance is floored to the cent as before.

do $$
declare
  v_finer text;
begin
  select string_agg(c.table_name || '.' || c.column_name || ' numeric(' || c.numeric_precision || ', ' || c.numeric_scale || ')', ', ')
  into v_finer
  from information_schema.columns c
  where c.table_schema = 'public' and c.data_type = 'numeric'
    and (c.table_name, c.column_name) in (
      ('ad_decisions', 'cost_usd'), ('ad_decisions', 'revenue_usd'), ('ad_events', 'revenue_usd'),
      ('ad_traffic_counts', 'cost_usd'), ('ad_traffic_counts', 'promised_usd'), ('ad_traffic_counts', 'revenue_usd'),
      ('campaign_daily_spend', 'spent_usd'), ('campaign_daily_stats', 'spent_usd'),
      ('campaigns', 'daily_budget_usd'), ('campaigns', 'daily_cap_usd'), ('campaigns', 'lifetime_budget_usd'),
      ('daily_stats', 'revenue_usd'), ('daily_stats', 'cost_usd'), ('daily_stats', 'posted_usd'), ('daily_stats', 'posted_cost_usd'),
      ('payouts', 'amount_usd'), ('placements', 'revenue_usd'),
      ('pricing_settings', 'cpm_floating_video_usd'), ('pricing_settings', 'cpm_tooltip_usd'),
      ('pricing_settings', 'cpm_sponsored_card_usd'), ('pricing_settings', 'cpm_inline_text_usd'),
      ('pricing_settings', 'price_per_ai_interaction_row_usd'), ('pricing_settings', 'price_per_ux_session_recording_usd'),
      ('pricing_settings', 'price_per_gb_bundle_usd'), ('pricing_settings', 'min_payout_usd'), ('pricing_settings', 'min_top_up_usd'),
      ('pricing_changes', 'cpm_floating_video_usd'), ('pricing_changes', 'cpm_tooltip_usd'),
      ('pricing_changes', 'cpm_sponsored_card_usd'), ('pricing_changes', 'cpm_inline_text_usd'),
      ('pricing_changes', 'price_per_ai_interaction_row_usd'), ('pricing_changes', 'price_per_ux_session_recording_usd'),
      ('pricing_changes', 'price_per_gb_bundle_usd'), ('pricing_changes', 'min_payout_usd'), ('pricing_changes', 'min_top_up_usd'))
    and (c.numeric_scale is null or c.numeric_scale > 6 or c.numeric_precision - c.numeric_scale > 12);
  if v_finer is not null then
    raise exception 'money in micro-dollars: these columns would not convert exactly: %', v_finer;
  end if;
end $$;

alter table public.ad_decisions rename column cost_usd to cost_micro;
alter table public.ad_decisions rename column revenue_usd to revenue_micro;
alter table public.ad_decisions
  drop constraint ad_decisions_cost_usd_check,
  drop constraint ad_decisions_revenue_usd_check,
  alter column cost_micro type bigint using (cost_micro * 1000000)::bigint,
  alter column revenue_micro type bigint using (revenue_micro * 1000000)::bigint,
  add constraint ad_decisions_cost_micro_check check (cost_micro >= 0),
  add constraint ad_decisions_revenue_micro_check check (revenue_micro >= 0);

alter table public.ad_events rename column revenue_usd to revenue_micro;
alter table public.ad_events
  drop constraint ad_events_revenue_usd_check,
  alter column revenue_micro type bigint using (revenue_micro * 1000000)::bigint,
  add constraint ad_events_revenue_micro_check check (revenue_micro >= 0);

alter table public.ad_traffic_counts rename column cost_usd to cost_micro;
alter table public.ad_traffic_counts rename column promised_usd to promised_micro;
alter table public.ad_traffic_counts rename column revenue_usd to revenue_micro;
alter table public.ad_traffic_counts
  drop constraint ad_traffic_counts_cost_usd_check,
  drop constraint ad_traffic_counts_promised_usd_check,
  drop constraint ad_traffic_counts_revenue_usd_check,
  alter column cost_micro type bigint using (cost_micro * 1000000)::bigint,
  alter column promised_micro type bigint using (promised_micro * 1000000)::bigint,
  alter column revenue_micro type bigint using (revenue_micro * 1000000)::bigint,
  add constraint ad_traffic_counts_cost_micro_check check (cost_micro >= 0),
  add constraint ad_traffic_counts_promised_micro_check check (promised_micro >= 0),
  add constraint ad_traffic_counts_revenue_micro_check check (revenue_micro >= 0);

alter table public.campaign_daily_spend rename column spent_usd to spent_micro;
alter table public.campaign_daily_spend
  drop constraint campaign_daily_spend_spent_usd_check,
  alter column spent_micro type bigint using (spent_micro * 1000000)::bigint,
  add constraint campaign_daily_spend_spent_micro_check check (spent_micro >= 0);

alter table public.campaign_daily_stats rename column spent_usd to spent_micro;
alter table public.campaign_daily_stats
  drop constraint campaign_daily_stats_spent_usd_check,
  alter column spent_micro type bigint using (spent_micro * 1000000)::bigint,
  add constraint campaign_daily_stats_spent_micro_check check (spent_micro >= 0);

alter table public.campaigns rename column daily_budget_usd to daily_budget_micro;
alter table public.campaigns rename column daily_cap_usd to daily_cap_micro;
alter table public.campaigns rename column lifetime_budget_usd to lifetime_budget_micro;
alter table public.campaigns
  drop constraint campaigns_daily_budget_usd_check,
  drop constraint campaigns_daily_cap_usd_check,
  drop constraint campaigns_lifetime_budget_usd_check,
  alter column daily_budget_micro type bigint using (daily_budget_micro * 1000000)::bigint,
  alter column daily_cap_micro type bigint using (daily_cap_micro * 1000000)::bigint,
  alter column lifetime_budget_micro type bigint using (lifetime_budget_micro * 1000000)::bigint,
  add constraint campaigns_daily_budget_micro_check check (daily_budget_micro > 0 and daily_budget_micro % 10000 = 0),
  add constraint campaigns_daily_cap_micro_check check (daily_cap_micro > 0 and daily_cap_micro % 10000 = 0),
  add constraint campaigns_lifetime_budget_micro_check check (lifetime_budget_micro > 0 and lifetime_budget_micro % 10000 = 0);

alter table public.daily_stats rename column revenue_usd to revenue_micro;
alter table public.daily_stats rename column cost_usd to cost_micro;
alter table public.daily_stats rename column posted_usd to posted_micro;
alter table public.daily_stats rename column posted_cost_usd to posted_cost_micro;
alter table public.daily_stats
  drop constraint daily_stats_revenue_usd_check,
  drop constraint daily_stats_cost_usd_check,
  drop constraint daily_stats_posted_usd_check,
  drop constraint daily_stats_posted_cost_usd_check,
  alter column revenue_micro type bigint using (revenue_micro * 1000000)::bigint,
  alter column cost_micro type bigint using (cost_micro * 1000000)::bigint,
  alter column posted_micro type bigint using (posted_micro * 1000000)::bigint,
  alter column posted_cost_micro type bigint using (posted_cost_micro * 1000000)::bigint,
  add constraint daily_stats_revenue_micro_check check (revenue_micro >= 0),
  add constraint daily_stats_cost_micro_check check (cost_micro >= 0),
  add constraint daily_stats_posted_micro_check check (posted_micro >= 0),
  add constraint daily_stats_posted_cost_micro_check check (posted_cost_micro >= 0);

alter table public.payouts rename column amount_usd to amount_micro;
alter table public.payouts
  drop constraint payouts_amount_usd_check,
  alter column amount_micro type bigint using (amount_micro * 1000000)::bigint,
  add constraint payouts_amount_micro_check check (amount_micro > 0 and amount_micro % 10000 = 0);

alter table public.placements rename column revenue_usd to revenue_micro;
alter table public.placements
  drop constraint placements_revenue_usd_check,
  alter column revenue_micro type bigint using (revenue_micro * 1000000)::bigint,
  add constraint placements_revenue_micro_check check (revenue_micro >= 0);

alter table public.pricing_settings rename column cpm_floating_video_usd to cpm_floating_video_micro;
alter table public.pricing_settings rename column cpm_tooltip_usd to cpm_tooltip_micro;
alter table public.pricing_settings rename column cpm_sponsored_card_usd to cpm_sponsored_card_micro;
alter table public.pricing_settings rename column cpm_inline_text_usd to cpm_inline_text_micro;
alter table public.pricing_settings rename column price_per_ai_interaction_row_usd to price_per_ai_interaction_row_micro;
alter table public.pricing_settings rename column price_per_ux_session_recording_usd to price_per_ux_session_recording_micro;
alter table public.pricing_settings rename column price_per_gb_bundle_usd to price_per_gb_bundle_micro;
alter table public.pricing_settings rename column min_payout_usd to min_payout_micro;
alter table public.pricing_settings rename column min_top_up_usd to min_top_up_micro;
alter table public.pricing_settings
  drop constraint pricing_settings_cpm_floating_video_usd_check,
  drop constraint pricing_settings_cpm_tooltip_usd_check,
  drop constraint pricing_settings_cpm_sponsored_card_usd_check,
  drop constraint pricing_settings_cpm_inline_text_usd_check,
  drop constraint pricing_settings_price_per_ai_interaction_row_usd_check,
  drop constraint pricing_settings_price_per_ux_session_recording_usd_check,
  drop constraint pricing_settings_price_per_gb_bundle_usd_check,
  drop constraint pricing_settings_min_payout_usd_check,
  drop constraint pricing_settings_min_top_up_usd_check,
  alter column cpm_floating_video_micro type bigint using (cpm_floating_video_micro * 1000000)::bigint,
  alter column cpm_tooltip_micro type bigint using (cpm_tooltip_micro * 1000000)::bigint,
  alter column cpm_sponsored_card_micro type bigint using (cpm_sponsored_card_micro * 1000000)::bigint,
  alter column cpm_inline_text_micro type bigint using (cpm_inline_text_micro * 1000000)::bigint,
  alter column price_per_ai_interaction_row_micro type bigint using (price_per_ai_interaction_row_micro * 1000000)::bigint,
  alter column price_per_ux_session_recording_micro type bigint using (price_per_ux_session_recording_micro * 1000000)::bigint,
  alter column price_per_gb_bundle_micro type bigint using (price_per_gb_bundle_micro * 1000000)::bigint,
  alter column min_payout_micro type bigint using (min_payout_micro * 1000000)::bigint,
  alter column min_top_up_micro type bigint using (min_top_up_micro * 1000000)::bigint,
  alter column min_top_up_micro set default 50000000,
  add constraint pricing_settings_cpm_floating_video_micro_check check (cpm_floating_video_micro >= 0 and cpm_floating_video_micro % 100 = 0),
  add constraint pricing_settings_cpm_tooltip_micro_check check (cpm_tooltip_micro >= 0 and cpm_tooltip_micro % 100 = 0),
  add constraint pricing_settings_cpm_sponsored_card_micro_check check (cpm_sponsored_card_micro >= 0 and cpm_sponsored_card_micro % 100 = 0),
  add constraint pricing_settings_cpm_inline_text_micro_check check (cpm_inline_text_micro >= 0 and cpm_inline_text_micro % 100 = 0),
  add constraint pricing_settings_price_per_ai_interaction_row_micro_check check (price_per_ai_interaction_row_micro >= 0 and price_per_ai_interaction_row_micro % 100 = 0),
  add constraint pricing_settings_price_per_ux_session_recording_micro_check check (price_per_ux_session_recording_micro >= 0 and price_per_ux_session_recording_micro % 100 = 0),
  add constraint pricing_settings_price_per_gb_bundle_micro_check check (price_per_gb_bundle_micro >= 0 and price_per_gb_bundle_micro % 100 = 0),
  add constraint pricing_settings_min_payout_micro_check check (min_payout_micro >= 0 and min_payout_micro % 10000 = 0),
  add constraint pricing_settings_min_top_up_micro_check check (min_top_up_micro >= 0 and min_top_up_micro % 10000 = 0);

alter table public.pricing_changes rename column cpm_floating_video_usd to cpm_floating_video_micro;
alter table public.pricing_changes rename column cpm_tooltip_usd to cpm_tooltip_micro;
alter table public.pricing_changes rename column cpm_sponsored_card_usd to cpm_sponsored_card_micro;
alter table public.pricing_changes rename column cpm_inline_text_usd to cpm_inline_text_micro;
alter table public.pricing_changes rename column price_per_ai_interaction_row_usd to price_per_ai_interaction_row_micro;
alter table public.pricing_changes rename column price_per_ux_session_recording_usd to price_per_ux_session_recording_micro;
alter table public.pricing_changes rename column price_per_gb_bundle_usd to price_per_gb_bundle_micro;
alter table public.pricing_changes rename column min_payout_usd to min_payout_micro;
alter table public.pricing_changes rename column min_top_up_usd to min_top_up_micro;
alter table public.pricing_changes
  drop constraint pricing_changes_cpm_floating_video_usd_check,
  drop constraint pricing_changes_cpm_tooltip_usd_check,
  drop constraint pricing_changes_cpm_sponsored_card_usd_check,
  drop constraint pricing_changes_cpm_inline_text_usd_check,
  drop constraint pricing_changes_price_per_ai_interaction_row_usd_check,
  drop constraint pricing_changes_price_per_ux_session_recording_usd_check,
  drop constraint pricing_changes_price_per_gb_bundle_usd_check,
  drop constraint pricing_changes_min_payout_usd_check,
  drop constraint pricing_changes_min_top_up_usd_check,
  alter column cpm_floating_video_micro type bigint using (cpm_floating_video_micro * 1000000)::bigint,
  alter column cpm_tooltip_micro type bigint using (cpm_tooltip_micro * 1000000)::bigint,
  alter column cpm_sponsored_card_micro type bigint using (cpm_sponsored_card_micro * 1000000)::bigint,
  alter column cpm_inline_text_micro type bigint using (cpm_inline_text_micro * 1000000)::bigint,
  alter column price_per_ai_interaction_row_micro type bigint using (price_per_ai_interaction_row_micro * 1000000)::bigint,
  alter column price_per_ux_session_recording_micro type bigint using (price_per_ux_session_recording_micro * 1000000)::bigint,
  alter column price_per_gb_bundle_micro type bigint using (price_per_gb_bundle_micro * 1000000)::bigint,
  alter column min_payout_micro type bigint using (min_payout_micro * 1000000)::bigint,
  alter column min_top_up_micro type bigint using (min_top_up_micro * 1000000)::bigint,
  add constraint pricing_changes_cpm_floating_video_micro_check check (cpm_floating_video_micro >= 0 and cpm_floating_video_micro % 100 = 0),
  add constraint pricing_changes_cpm_tooltip_micro_check check (cpm_tooltip_micro >= 0 and cpm_tooltip_micro % 100 = 0),
  add constraint pricing_changes_cpm_sponsored_card_micro_check check (cpm_sponsored_card_micro >= 0 and cpm_sponsored_card_micro % 100 = 0),
  add constraint pricing_changes_cpm_inline_text_micro_check check (cpm_inline_text_micro >= 0 and cpm_inline_text_micro % 100 = 0),
  add constraint pricing_changes_price_per_ai_interaction_row_micro_check check (price_per_ai_interaction_row_micro >= 0 and price_per_ai_interaction_row_micro % 100 = 0),
  add constraint pricing_changes_price_per_ux_session_recording_micro_check check (price_per_ux_session_recording_micro >= 0 and price_per_ux_session_recording_micro % 100 = 0),
  add constraint pricing_changes_price_per_gb_bundle_micro_check check (price_per_gb_bundle_micro >= 0 and price_per_gb_bundle_micro % 100 = 0),
  add constraint pricing_changes_min_payout_micro_check check (min_payout_micro >= 0 and min_payout_micro % 10000 = 0),
  add constraint pricing_changes_min_top_up_micro_check check (min_top_up_micro >= 0 and min_top_up_micro % 10000 = 0);

-- The rules whose arguments or results were dollars: dropped, and made again below in micro-dollars.
drop function public.sdk_campaign_creative(uuid, text, numeric, integer, text, uuid, text, integer, timestamptz);
drop function public.sdk_paced_budget_left(bigint, numeric, numeric);
drop function public.sdk_paced_budget_usd(numeric, numeric);
drop function public.sdk_draw_weight(numeric, text[], text[]);
drop function public.sdk_publisher_revenue(numeric, public.pricing_settings);
drop function public.sdk_cost_per_impression(text, public.pricing_settings);

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
            else p_pricing.cpm_inline_text_micro
          end + 500) / 1000
$$;

-- What an impression earns the publisher, in micro-dollars: its cost (micro-dollars) times the
-- publisher's share, from the pricing settings in force, rounded to the micro-dollar (a half away
-- from zero, as round(cost × share, 6) rounded it in dollars before migration
-- 20261214001000_money_in_micro_dollars).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_publisher_revenue(p_cost bigint, p_pricing public.pricing_settings)
returns bigint
language sql immutable
as $$
  select round(p_cost * p_pricing.publisher_ad_revenue_share)::bigint
$$;

revoke all on function public.sdk_publisher_revenue(bigint, public.pricing_settings) from public, anon, authenticated;
grant execute on function public.sdk_publisher_revenue(bigint, public.pricing_settings) to sdk;

-- The draw's weight of an eligible campaign: its daily budget (in micro-dollars), tripled when one
-- of its keywords is among the request's.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_draw_weight(p_daily_budget bigint, p_campaign_keywords text[], p_request_keywords text[])
returns bigint
language sql immutable
as $$
  select p_daily_budget * case when p_campaign_keywords && coalesce(p_request_keywords, '{}') then 3 else 1 end
$$;

revoke all on function public.sdk_draw_weight(bigint, text[], text[]) from public, anon, authenticated;
grant execute on function public.sdk_draw_weight(bigint, text[], text[]) to sdk;

-- The most a campaign may have spent today when `p_day_share` of the day has gone by, in
-- micro-dollars (and fractions of one: it is only compared): its daily budget times that share,
-- plus an hour's worth, so that a campaign can start serving after midnight; never more than the
-- whole budget. (It was sdk_paced_budget_usd, in dollars, until migration
-- 20261214001000_money_in_micro_dollars.)
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_micro(p_daily_budget bigint, p_day_share numeric)
returns numeric
language sql immutable
as $$
  select p_daily_budget * least(1, p_day_share + 1.0 / 24)
$$;

revoke all on function public.sdk_paced_budget_micro(bigint, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_micro(bigint, numeric) to sdk;

-- A campaign may fill while what it has committed today is below its paced budget, both in
-- micro-dollars: what its impressions were billed (its `budget:` counters, debited at billing)
-- and what the ads it served in the impression window may still bill (its `served:` less
-- `billed:` counters).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_left(p_committed_micro bigint, p_daily_budget bigint, p_day_share numeric)
returns boolean
language sql immutable
as $$
  select coalesce(p_committed_micro, 0) < public.sdk_paced_budget_micro(p_daily_budget, p_day_share)
$$;

revoke all on function public.sdk_paced_budget_left(bigint, bigint, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_left(bigint, bigint, numeric) to sdk;

-- What a campaign the draw reached shows, if it may fill now: one of its approved creatives of the
-- format, at random (a campaign with more creatives does not win more often), when it has paced
-- budget left today (sdk_day_share, sdk_paced_budget_left), counting what it was billed today
-- (its `budget:` counter) and what the ads it served in the impression window may still bill
-- (its `served:` less its `billed:` counters of the last 15 minutes, which the roll-up keeps),
-- and the client's network is under the campaign's frequency cap (sdk_network_fills,
-- sdk_under_frequency_cap). The fills are counted up to the allowance and no further: an index
-- read of at most `frequency_cap` × `p_network_factor` entries, none when the factor is 0.
-- Nothing otherwise. The campaign's checks name none of the creative's columns: PostgreSQL runs
-- them once, before it reads a creative.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_campaign_creative(p_campaign_id uuid, p_advertiser text, p_daily_budget bigint, p_frequency_cap integer,
                                                        p_format text, p_app_id uuid, p_network_hash text, p_network_factor integer,
                                                        p_at timestamptz)
returns table (
  id           uuid,
  campaign_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language sql stable
as $$
  select cr.id, cr.campaign_id, p_advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url
  from public.creatives cr
  where cr.campaign_id = p_campaign_id and cr.format = p_format and cr.status = 'active'
    and public.sdk_paced_budget_left(
          (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
           where k.name = 'budget:' || p_campaign_id and k.period = date_trunc('day', p_at, 'UTC'))
          + greatest(0, (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                         where k.name = 'served:' || p_campaign_id and k.period >= public.sdk_promise_slot(p_at - interval '15 minutes'))
                        - (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                           where k.name = 'billed:' || p_campaign_id and k.period >= public.sdk_promise_slot(p_at - interval '15 minutes'))),
          p_daily_budget, public.sdk_day_share(p_at))
    and public.sdk_under_frequency_cap((select count(*) from (select from public.sdk_network_fills(p_app_id, p_network_hash, p_campaign_id, p_at)
                                                               limit p_frequency_cap::bigint * p_network_factor) f),
                                       p_frequency_cap, p_network_factor)
  order by random()
  limit 1
$$;

revoke all on function public.sdk_campaign_creative(uuid, text, bigint, integer, text, uuid, text, integer, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_campaign_creative(uuid, text, bigint, integer, text, uuid, text, integer, timestamptz) to sdk;

-- GET /api/v1/me/apps: the caller's apps that are not archived, with their allowed origins, and
-- their placements with the rolled-up figures (fills and invalid traffic included). Runs as its caller: row-level
-- security alone decides whose rows these are. (Earnings still count every placement: money
-- earned stays earned.)
create or replace function public.account_apps() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'apps', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, name, slug, description, category, allowed_origins, created_at
                           from public.apps where archived_at is null) r),
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select p.id, p.app_id, p.name, p.format, p.status, p.impressions, p.clicks, p.revenue_micro,
                                        p.ad_requests, p.fills, p.invalid_events, p.created_at
                                 from public.placements p join public.apps a on a.id = p.app_id
                                 where a.archived_at is null) r))
          from public.users u);
end $$;

revoke execute on function public.account_apps() from public, anon;
grant execute on function public.account_apps() to authenticated;

-- GET /api/v1/me/campaigns and the MCP tool `list_my_campaigns` (scope campaigns:read, migration
-- 20261208000000_account_campaigns): the caller's advertiser balance, exactly, in micro-dollars
-- (the postings of their `advertiser` ledger account: top-ups in, ad spend out), and their
-- campaigns, oldest first, each with its totals from the daily figures the roll-up keeps
-- (`campaign_daily_stats`: impressions, clicks, and spend in micro-dollars, exact) and its
-- creatives, oldest first. A user who is not an advertiser has no campaigns and no advertiser
-- account: an empty list and 0. Like the other account reads it runs as its caller, so row-level
-- security alone decides whose rows these are, and it names no user.
create or replace function public.account_campaigns() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'balance_micro', (select coalesce(sum(p.amount_micro), 0)::bigint
                              from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                              where a.kind = 'advertiser'),
            'campaigns', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                          from (select c.id, c.name, c.status, c.pause_reason, c.rejection_reason, c.starts_at, c.ends_at, c.hard_stop,
                                       c.formats, c.lifetime_budget_micro, c.daily_cap_micro, c.created_at,
                                       coalesce(s.impressions, 0)::bigint as impressions, coalesce(s.clicks, 0)::bigint as clicks,
                                       coalesce(s.spend_micro, 0)::bigint as spend_micro, coalesce(k.creatives, '[]') as creatives
                                from public.campaigns c
                                left join (select d.campaign_id, sum(d.impressions) as impressions, sum(d.clicks) as clicks,
                                                  sum(d.spent_micro) as spend_micro
                                           from public.campaign_daily_stats d group by d.campaign_id) s on s.campaign_id = c.id
                                left join (select x.campaign_id,
                                                  json_agg(json_build_object('id', x.id, 'format', x.format, 'status', x.status,
                                                                             'rejection_reason', x.rejection_reason, 'headline', x.headline)
                                                           order by x.created_at, x.id) as creatives
                                           from public.creatives x group by x.campaign_id) k on k.campaign_id = c.id) r))
          from public.users u);
end $$;

revoke execute on function public.account_campaigns() from public, anon;
grant execute on function public.account_campaigns() to authenticated;

-- The daily figures behind the console's earnings chart and `GET /api/v1/me/earnings/daily`: the
-- caller's rows of `daily_stats` for the last 90 days (the longest period offered), each with
-- the app of its placement. Like the other account reads it runs as its caller, so row-level
-- security alone decides whose rows these are, and it names no user.
create or replace function public.account_daily() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'daily', (select coalesce(json_agg(r order by r.day, r.placement_id), '[]')
                      from (select d.placement_id, p.app_id, d.day, d.impressions, d.clicks, d.revenue_micro
                            from public.daily_stats d join public.placements p on p.id = d.placement_id
                            where d.day > current_date - 90) r))
          from public.users u);
end $$;

revoke execute on function public.account_daily() from public, anon;
grant execute on function public.account_daily() to authenticated;

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
      select coalesce(sum(s.revenue_micro - s.posted_micro), 0)::bigint as micro
      from public.daily_stats s where s.revenue_micro <> s.posted_micro
    )
    select json_build_object(
      'id', u.id,
      'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, app_id, name, format, status, impressions, clicks, revenue_micro, ad_requests, fills, invalid_events, created_at
                           from public.placements) r),
      'payouts', (select coalesce(json_agg(r order by r.requested_at desc, r.id), '[]')
                  from (select id, period, amount_micro, status, paid_at, requested_at, failure_reason, rail, destination
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

-- After a statement on `campaigns`: lays the draw out anew (public.campaign_draw_rebuild) when it
-- added or removed an active campaign, or changed a campaign's status, daily budget or formats.
-- Other changes (a name, a review, spend) leave the layout as it is, so the roll-up's updates of
-- campaigns rewrite nothing here unless a campaign paused, resumed or ended
-- (migration 20261212000000_ad_draw).
create or replace function public.campaign_draw_changed()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    if exists (select 1 from added a where a.status = 'active') then perform public.campaign_draw_rebuild(); end if;
  elsif tg_op = 'DELETE' then
    if exists (select 1 from removed r where r.status = 'active') then perform public.campaign_draw_rebuild(); end if;
  elsif exists (select 1 from added a join removed r on r.id = a.id
                where (a.status, a.daily_budget_micro, a.formats) is distinct from (r.status, r.daily_budget_micro, r.formats)
                  and 'active' in (a.status, r.status)) then
    perform public.campaign_draw_rebuild();
  end if;
  return null;
end $$;

revoke all on function public.campaign_draw_changed() from public, anon, authenticated, sdk, service_role;

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
  cross join unnest(array['floating_video', 'tooltip', 'sponsored_card', 'inline_text']) as f (format)
  where c.status = 'active' and (cardinality(c.formats) = 0 or f.format = any(c.formats))
  window w as (partition by f.format order by c.id rows between unbounded preceding and current row);
end $$;

revoke all on function public.campaign_draw_rebuild() from public, anon, authenticated, sdk, service_role;

-- Campaigns move on by the clock, their budgets and their advertisers' funds (migration
-- 20261207000000_advertisers); the roll-up calls this every run (`p_now`: the clock; tests move
-- it). Approved and started, a `scheduled` campaign becomes `active` (or `paused`, out of funds,
-- when its advertiser has none); one paused because its advertiser's funds ran out
-- (public.ledger_post_ad_spend pauses them as it bills) resumes once they are back
-- (public.top_up_credit resumes them at once), funds being what may be spent now (migration
-- 20261213000500_reversals: the balance less card money not cleared yet,
-- public.account_spendable_micro; an account on hold starts nothing: public.campaigns_funds_guard); a campaign with a hard stop is `completed` at its
-- end (one whose budget is spent is completed as it is billed); and, as a day begins, the most each campaign may spend that day
-- (`daily_budget_micro`, which pacing and billing read) is its daily cap, or its whole budget
-- without one, but never more than what its budget has left after the days before: billing
-- refuses what goes past it (public.sdk_take_budget). Answers how many campaigns it changed.
create or replace function public.campaigns_advance(p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_changed integer := 0;
  v_count integer;
  v_today date := (p_now at time zone 'UTC')::date;
begin
  update public.campaigns c set
    status = case when c.advertiser_id is null or public.account_spendable_micro('advertiser', c.advertiser_id) > 0 then 'active' else 'paused' end,
    pause_reason = case when c.advertiser_id is null or public.account_spendable_micro('advertiser', c.advertiser_id) > 0 then null else 'out_of_funds' end,
    updated_at = p_now
  where c.status = 'scheduled' and c.starts_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = 'completed', completed_at = p_now, updated_at = p_now
  where c.status in ('scheduled', 'active', 'paused') and c.hard_stop and c.ends_at is not null and c.ends_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = case when c.starts_at <= p_now then 'active' else 'scheduled' end, pause_reason = null, updated_at = p_now
  where c.status = 'paused' and c.pause_reason = 'out_of_funds' and public.account_spendable_micro('advertiser', c.advertiser_id) > 0
    and not public.account_held(c.advertiser_id);
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  -- Once a day (when `budget_day` is behind): today's limit from the budget left.
  with left_today as (
    select c.id, c.lifetime_budget_micro - coalesce((select sum(s.spent_micro) from public.campaign_daily_spend s
                                                      where s.campaign_id = c.id and s.day < v_today), 0)::bigint as budget_left
    from public.campaigns c
    where c.status in ('scheduled', 'active', 'paused') and c.budget_day is distinct from v_today
  ), limited as (
    update public.campaigns c set
      daily_budget_micro = greatest(10000, least(c.daily_cap_micro, l.budget_left) / 10000 * 10000),
      budget_day = v_today
    from left_today l
    where c.id = l.id and (c.lifetime_budget_micro is not null or c.daily_cap_micro is not null)
    returning 1
  )
  select count(*) into v_count from limited;
  update public.campaigns c set budget_day = v_today where c.budget_day is distinct from v_today and c.lifetime_budget_micro is null and c.daily_cap_micro is null;

  return v_changed;
end $$;

revoke all on function public.campaigns_advance(timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.campaigns_advance(timestamptz) to service_role;

-- What an advertiser may do to a campaign directly (migration 20261207000000_advertisers): a
-- trigger before each insert and update made as `authenticated` (row-level security has already
-- kept them to their own campaigns). A new campaign is a `draft`. Its advertiser moves it only
-- from `draft` to `in_review` (with a creative), from `scheduled` or `active` to `paused` and back (resuming to
-- `scheduled` before its start, or `paused` for want of funds when the balance is gone); review,
-- rejection and completion are the operator's and the roll-up's (security definer functions,
-- which this leaves alone). It is the one judge of those moves: public.campaign_move, the
-- console's, asks it, and says why it refused by the constraint it names (`campaigns_status_move`:
-- not a move from this status; `campaigns_resume_not_theirs`: paused, but not by the advertiser;
-- `campaigns_review_needs_creative`; `campaigns_completed_unchanged`). Editing a rejected campaign
-- makes it a draft again; a completed one is not edited. For every writer: a campaign paused
-- without a reason was paused by its owner (and one no longer paused has none, nor one no longer
-- rejected a rejection); the advertiser's
-- name, shown with the ads, comes from their profile while the campaign is made, a draft or
-- rejected, so it is the name the campaign is sent to review with, and it stays that name once
-- reviewed (migration 20261213000300_lows: it was copied at every write, so a rename reached
-- approved ads at their next edit or roll-up, unreviewed; public.advertiser_profiles_guard
-- refuses a rename while a campaign is in review or approved); and the day's spending limit
-- (`daily_budget_micro`) follows the daily cap and budget, recomputed from what is left by the
-- next roll-up (public.campaigns_advance).
create or replace function public.campaigns_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_company text;
begin
  if new.status = 'paused' and new.pause_reason is null then
    new.pause_reason := 'advertiser';
  elsif new.status <> 'paused' then
    new.pause_reason := null;
  end if;
  if new.status <> 'rejected' then
    new.rejection_reason := null;
  end if;
  if tg_op = 'INSERT' or old.status in ('draft', 'rejected') then
    select p.company into v_company from public.advertiser_profiles p where p.user_id = new.advertiser_id;
    new.advertiser := coalesce(v_company, new.advertiser);
  else
    new.advertiser := old.advertiser;
  end if;
  if tg_op = 'INSERT' or new.daily_cap_micro is distinct from old.daily_cap_micro or new.lifetime_budget_micro is distinct from old.lifetime_budget_micro then
    new.daily_budget_micro := coalesce(least(new.daily_cap_micro, new.lifetime_budget_micro), new.daily_budget_micro);
    new.budget_day := null;
  end if;
  if current_user <> 'authenticated' then
    return new;
  end if;
  if tg_op = 'INSERT' then
    new.status := 'draft';
    new.pause_reason := null;
    new.rejection_reason := null;
    return new;
  end if;
  if old.status = 'completed' then
    raise exception 'a completed campaign cannot be changed' using errcode = 'check_violation', constraint = 'campaigns_completed_unchanged';
  end if;
  if new.status is distinct from old.status then
    if old.status = 'draft' and new.status = 'in_review' then
      if not exists (select 1 from public.creatives c where c.campaign_id = new.id) then
        raise exception 'a campaign goes to review with at least one creative' using errcode = 'check_violation', constraint = 'campaigns_review_needs_creative';
      end if;
      new.submitted_at := now();
    elsif old.status in ('scheduled', 'active') and new.status = 'paused' then
      new.pause_reason := 'advertiser';
    elsif old.status = 'paused' and old.pause_reason = 'advertiser' and new.status = 'active' then
      new.pause_reason := null;
      if new.starts_at > now() then
        new.status := 'scheduled';
      elsif coalesce((select sum(p.amount_micro) from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                      where a.kind = 'advertiser' and a.user_id = new.advertiser_id), 0) <= 0 then
        new.status := 'paused';
        new.pause_reason := 'out_of_funds';
      end if;
    elsif old.status = 'paused' and new.status = 'active' then
      -- Paused for want of funds, or for a payment taken back: a top-up or the operator resumes it.
      raise exception 'a campaign paused (%) is not resumed by its advertiser', old.pause_reason
        using errcode = 'check_violation', constraint = 'campaigns_resume_not_theirs';
    else
      raise exception 'a campaign cannot go from % to % here', old.status, new.status using errcode = 'check_violation', constraint = 'campaigns_status_move';
    end if;
  end if;
  -- After the move is judged: a move from `rejected` is refused as a move (above), not for the
  -- rejection reason this trigger clears when the status leaves `rejected`.
  if new.rejection_reason is distinct from old.rejection_reason
     or new.completed_at is distinct from old.completed_at or new.reviewed_at is distinct from old.reviewed_at then
    raise exception 'review and pausing are not set directly' using errcode = 'insufficient_privilege';
  end if;
  if new.status is not distinct from old.status and old.status = 'rejected' then
    new.status := 'draft';
    new.rejection_reason := null;
  end if;
  new.updated_at := now();
  return new;
end $$;

revoke all on function public.campaigns_guard() from public, anon, authenticated, sdk;

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

-- The month close (migration 20261206000000_payouts): every calendar month whose final day has
-- come (public.ledger_month_final_at: the 5th of the next month) and that is not closed yet is
-- closed, oldest first. Closing a month moves, for each publisher, what the publisher's `publisher`
-- account (earned, not final) holds from before the month's end, into their `publisher_available`
-- account (final, payable): one `month_close` transaction per publisher and month (reference
-- `<user>:<YYYY-MM>`, dated the first instant of the next month), and one row in
-- `ledger_month_closes`. What it moves nets everything dated before the month's end and not moved
-- yet: the month's ad revenue and adjustments, and an adjustment posted late for a month already
-- closed; a balance that nets to zero or less waits for the next month's earnings. A data sale's
-- publisher postings, and its claw-backs, count from the end of the sale's own claw-back window,
-- the license's `clawback_until` (migration 20261213000400_data_market_trust; fixed when it was
-- sold, migration 20261213001200_clawback_window_per_license): held until the first close after
-- it, whatever `data_clawback_days` has become since. A month is closed only once its days are
-- all in the ledger (no count of it waits for the roll-up, no day of it is unposted: daily stats `posted_micro`, migration 20261207000000_advertisers). Runs twice, or twice at once, changes nothing: one run at a time (an advisory
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

  while public.ledger_month_final_at(v_month) <= p_now loop
    v_next := (v_month + interval '1 month')::date;
    if exists (select 1 from public.ad_traffic_counts c where c.day < v_next)
       or exists (select 1 from public.daily_stats s where s.revenue_micro <> s.posted_micro and s.day < v_next) then
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
                 -- Both kinds' references start with the license's id.
                 then (select l.clawback_until from public.data_licenses l where l.id = split_part(t.reference, ':', 1)::uuid)
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

-- Ad revenue counted before advertisers had ledger accounts (migration 20261207000000_advertisers)
-- enters the ledger as it always did: per app and day, once the day is over (an hour after its
-- end, and once no count of it or of an earlier day waits for the roll-up), paid out of
-- `ad_sales`. Since that migration the roll-up posts what it counts as it counts it
-- (public.ledger_post_ad_spend), so only the daily stats of the demo's seeded history and of
-- databases migrated from before are left for this: the part of a row not in the ledger yet
-- (`revenue_micro - posted_micro`, indexed while it is not zero). Each app's day is two
-- transactions, written once each (public.ledger_post, kind and reference `<app>:<day>`):
--   ad_revenue     what the publisher earned: out of `ad_sales`, into the publisher's account;
--   platform_fee   the rest of what the ads cost: out of `ad_sales`, into `platform_fees`;
-- and its rows are then marked posted. Up to `p_limit` apps' days a run; answers how many it
-- posted. `p_now` is the clock it reads (the seed and tests move it; the roll-up passes none).
create or replace function public.ledger_post_ad_revenue(p_limit integer default 1000, p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed date := ((p_now - interval '1 hour') at time zone 'UTC')::date - 1;
  v_sales uuid;
  v_fees uuid;
  v_day record;
  v_at timestamptz;
  v_revenue bigint;
  v_fee bigint;
  v_posted integer := 0;
begin
  -- A day whose counts still wait for the roll-up is not over.
  select least(v_closed, min(c.day) - 1) into v_closed from public.ad_traffic_counts c;
  -- Nothing left to post, the common case: one look at an index that holds only what is left.
  if not exists (select 1 from public.daily_stats s where s.revenue_micro <> s.posted_micro and s.day <= v_closed) then
    return 0;
  end if;
  v_sales := public.ledger_account('ad_sales', null);
  v_fees := public.ledger_account('platform_fees', null);
  for v_day in
    select p.app_id, p.user_id, s.day, sum(s.revenue_micro - s.posted_micro)::bigint as revenue,
           sum(s.cost_micro - s.posted_cost_micro)::bigint as cost
    from public.daily_stats s join public.placements p on p.id = s.placement_id
    where s.revenue_micro <> s.posted_micro and s.day <= v_closed
    group by p.app_id, p.user_id, s.day
    order by s.day, p.app_id
    limit p_limit
  loop
    v_at := v_day.day::timestamp at time zone 'UTC';
    v_revenue := v_day.revenue;
    -- What the ads cost is at least what they earned (daily stats from before costs were kept have none).
    v_fee := greatest(v_day.cost - v_revenue, 0);
    perform public.ledger_post('ad_revenue', v_day.app_id || ':' || v_day.day, v_at, null,
      jsonb_build_array(jsonb_build_object('account_id', v_sales, 'amount_micro', -v_revenue, 'app_id', v_day.app_id),
                        jsonb_build_object('account_id', public.ledger_account('publisher', v_day.user_id), 'amount_micro', v_revenue,
                                           'app_id', v_day.app_id)));
    if v_fee > 0 then
      perform public.ledger_post('platform_fee', v_day.app_id || ':' || v_day.day, v_at, null,
        jsonb_build_array(jsonb_build_object('account_id', v_sales, 'amount_micro', -v_fee, 'app_id', v_day.app_id),
                          jsonb_build_object('account_id', v_fees, 'amount_micro', v_fee, 'app_id', v_day.app_id)));
    end if;
    update public.daily_stats s set posted_micro = s.revenue_micro, posted_cost_micro = s.cost_micro
    from public.placements p
    where p.id = s.placement_id and p.app_id = v_day.app_id and s.day = v_day.day and s.revenue_micro <> s.posted_micro;
    v_posted := v_posted + 1;
  end loop;
  return v_posted;
end $$;

revoke all on function public.ledger_post_ad_revenue(integer, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_revenue(integer, timestamptz) to service_role;

-- What the roll-up counted as billed enters the ledger as it is counted (migration
-- 20261207000000_advertisers): public.roll_up_ad_traffic leaves its run's billed counts in
-- `ad_spend_pending` (per day, campaign and app, in micro-dollars), and this, in the same
-- transaction, writes one `ad_spend` transaction per day they
-- cover (normally one; two around midnight), reference `<uuid>:<day>`, dated in that day (now,
-- or the day's last microsecond for a day that is over), whose postings are:
--   each campaign's advertiser   minus what the campaign's ads cost (attributed to the campaign);
--                                a campaign with no advertiser account (one created before them)
--                                is paid for out of `ad_sales`, as all ads were before;
--   each app's publisher         plus what the app's placements earned (attributed to the app);
--   `platform_fees`              plus the rest of what the app's ads cost (attributed to the app).
-- So they balance by construction: what advertisers spend is what publishers earn plus the fee.
-- Exactly once: the pending rows and the counts they came from leave in the same transaction
-- that posts them (another run's rows, not committed, are not visible here). Then each advertiser it debited whose balance is gone has their running
-- campaigns paused (`out_of_funds`; what they may spend, public.account_spendable_micro: the
-- balance less card money not cleared yet, migration 20261213000500_reversals), and each campaign whose whole budget is spent is completed.
-- What it posted also leaves what billing counts as taken from each advertiser's funds and not
-- in the ledger yet (`sdk_advertiser_funds`, public.sdk_take_funds, migration
-- 20261213000800_spend_within_funds), with what budget leases of days gone hold unspent (no
-- batch can spend them any more); advertisers' rows in id order, as billing locks them.
-- Answers how many transactions it wrote.
create or replace function public.ledger_post_ad_spend()
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_day record;
  v_postings jsonb;
  v_written integer := 0;
  v_moved jsonb;
begin
  for v_day in select distinct t.day from public.ad_spend_pending t order by t.day loop
    select jsonb_agg(x.posting) into v_postings
    from (
      select jsonb_build_object('account_id', case when c.advertiser_id is null then public.ledger_account('ad_sales', null)
                                                     else public.ledger_account('advertiser', c.advertiser_id) end,
                                'amount_micro', -sum(t.cost_micro), 'campaign_id', t.campaign_id) as posting
      from public.ad_spend_pending t left join public.campaigns c on c.id = t.campaign_id
      where t.day = v_day.day
      group by t.campaign_id, c.advertiser_id
      union all
      select jsonb_build_object('account_id', public.ledger_account('publisher', a.user_id), 'amount_micro', sum(t.revenue_micro), 'app_id', t.app_id)
      from public.ad_spend_pending t join public.apps a on a.id = t.app_id
      where t.day = v_day.day
      group by t.app_id, a.user_id
      union all
      select jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', sum(t.cost_micro - t.revenue_micro), 'app_id', t.app_id)
      from public.ad_spend_pending t
      where t.day = v_day.day
      group by t.app_id
    ) x;
    if public.ledger_post('ad_spend', gen_random_uuid() || ':' || v_day.day,
                          least(now(), (v_day.day + 1)::timestamp at time zone 'UTC' - interval '1 microsecond'), null, v_postings) is not null then
      v_written := v_written + 1;
    end if;
  end loop;

  -- Billing's count of each advertiser's funds: what was just posted is in the ledger now, and
  -- what leases of days gone hold unspent is the advertiser's again (a lease in use, by a batch
  -- begun before midnight, is skipped: the next run takes it).
  with gone as (
    select l.campaign_id, l.period, l.shard, l.granted - l.spent as unspent
    from public.sdk_budget_leases l
    where l.period < date_trunc('day', now(), 'UTC') and l.granted > l.spent
    limit 10000
    for update skip locked
  ), back as (
    update public.sdk_budget_leases l set granted = l.spent
    from gone g
    where l.campaign_id = g.campaign_id and l.period = g.period and l.shard = g.shard
    returning g.campaign_id, g.unspent
  ), moved as (
    select c.advertiser_id, t.cost_micro as posted, 0::bigint as unspent
    from public.ad_spend_pending t join public.campaigns c on c.id = t.campaign_id
    where c.advertiser_id is not null
    union all
    select c.advertiser_id, 0, b.unspent
    from back b join public.campaigns c on c.id = b.campaign_id
    where c.advertiser_id is not null
  )
  select jsonb_agg(jsonb_build_object('advertiser_id', m.advertiser_id, 'posted', m.posted, 'unspent', m.unspent) order by m.advertiser_id) into v_moved
  from (select x.advertiser_id, sum(x.posted)::bigint as posted, sum(x.unspent)::bigint as unspent from moved x group by x.advertiser_id) m;
  if v_moved is not null then
    perform 1 from public.sdk_advertiser_funds f
    where f.advertiser_id in (select (e ->> 'advertiser_id')::uuid from jsonb_array_elements(v_moved) e)
    order by f.advertiser_id
    for update;
    update public.sdk_advertiser_funds f
    set taken_micro = greatest(f.taken_micro - m.posted - m.unspent, 0), spendable_micro = f.spendable_micro - m.posted
    from jsonb_to_recordset(v_moved) as m(advertiser_id uuid, posted bigint, unspent bigint)
    where f.advertiser_id = m.advertiser_id;
  end if;

  -- Out of funds: the advertisers just debited whose balance is gone.
  update public.campaigns c set status = 'paused', pause_reason = 'out_of_funds', updated_at = now()
  where c.status in ('scheduled', 'active')
    and c.advertiser_id in (select distinct x.advertiser_id from public.ad_spend_pending t join public.campaigns x on x.id = t.campaign_id
                            where x.advertiser_id is not null and public.account_spendable_micro('advertiser', x.advertiser_id) <= 0);
  -- Their whole budget spent: the campaigns just billed.
  update public.campaigns c set status = 'completed', completed_at = now(), updated_at = now()
  where c.status in ('scheduled', 'active', 'paused') and c.lifetime_budget_micro is not null
    and c.id in (select t.campaign_id from public.ad_spend_pending t)
    and (select coalesce(sum(s.spent_micro), 0) from public.campaign_daily_spend s where s.campaign_id = c.id) >= c.lifetime_budget_micro;
  delete from public.ad_spend_pending;
  return v_written;
end $$;

revoke all on function public.ledger_post_ad_spend() from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_spend() to service_role;

-- Whether publisher `p_user` may request a payout now, and of how much (migration
-- 20261214000100_payout_preview): the one rule that public.payout_request applies and that
-- public.payout_preview shows the console before anyone presses "Request payout". A payout is the
-- whole of the available balance (final earnings less payouts, public.ledger_close_months) in
-- whole cents, once that reaches `min_payout_micro` and the payout method is ready. Answers
-- `{ok: true, amount_micro, available_micro, minimum_micro}`, or `{ok: false, reason,
-- available_micro, minimum_micro}` with `reason` the first of `no_method`, `method_not_ready`,
-- `below_minimum`. Runs as its caller: inside the request (security definer) it reads the
-- publisher's rows whoever they are; for a signed-in user, row-level security shows it their own
-- rows only, so asked about anyone else it finds no method and no balance.
create or replace function public.payout_eligibility(p_user uuid)
returns json
language plpgsql stable security invoker set search_path = ''
as $$
declare
  v_has_method boolean;
  v_ready boolean;
  v_available bigint;
  v_minimum bigint;
  v_amount bigint;
  v_reason text;
begin
  -- The method's columns a publisher may read (never its sealed details).
  select true, m.ready into v_has_method, v_ready from public.payout_methods m where m.user_id = p_user;
  select coalesce(sum(p.amount_micro), 0)::bigint into v_available
  from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
  where a.kind = 'publisher_available' and a.user_id = p_user;
  select s.min_payout_micro into v_minimum from public.pricing_settings s;
  v_amount := v_available - v_available % 10000;

  v_reason := case
    when v_has_method is null then 'no_method'
    when not v_ready then 'method_not_ready'
    when v_amount <= 0 or v_amount < v_minimum then 'below_minimum'
  end;
  if v_reason is not null then
    return json_build_object('ok', false, 'reason', v_reason, 'available_micro', v_available, 'minimum_micro', v_minimum);
  end if;
  return json_build_object('ok', true, 'amount_micro', v_amount, 'available_micro', v_available, 'minimum_micro', v_minimum);
end $$;

revoke all on function public.payout_eligibility(uuid) from public, anon, sdk;
grant execute on function public.payout_eligibility(uuid) to authenticated, service_role;

-- A payout request of publisher `p_user` (migration 20261206000000_payouts), at `p_now`: the whole
-- of their available balance in whole cents, when public.payout_eligibility (the one rule, which
-- public.payout_preview shows the console) allows it. One request of a publisher at a time (an
-- advisory lock), so two at once never pay twice: the second finds the balance the first took;
-- and their payout method is locked until the payout is written, so the method the rule judged
-- ready is the one the payout goes to. (A payout still being sent does not stop the next
-- month's: each takes what is available when it is requested.) The payout row and its
-- ledger transaction (kind `payout`, reference the payout's id: out of `publisher_available`, into
-- the platform's `payouts` account) are written together, so the balance never goes negative.
-- Answers `{ok: true, payout_id, amount_micro}`, or the rule's refusal `{ok: false, reason,
-- available_micro, minimum_micro}` with `reason` one of `no_method`, `method_not_ready`,
-- `below_minimum`. The period is the months the payout covers: the closed months since the last
-- payout that was not failed or canceled (`YYYY-MM`, or `YYYY-MM/YYYY-MM` for several).
-- Internal: the publisher calls public.request_payout; the seed calls this with its own clock.
create or replace function public.payout_request(p_user uuid, p_now timestamptz default now())
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_method public.payout_methods;
  v_judged json;
  v_amount bigint;
  v_after date;
  v_first date;
  v_last date;
  v_period text;
  v_id uuid;
begin
  perform pg_advisory_xact_lock(hashtextextended('payout:' || p_user, 0));
  select * into v_method from public.payout_methods m where m.user_id = p_user for share;
  v_judged := public.payout_eligibility(p_user);
  if not (v_judged ->> 'ok')::boolean then
    return v_judged;
  end if;
  v_amount := (v_judged ->> 'amount_micro')::bigint;

  -- The months it covers: from the first closed month after the last payout that stands.
  select max(to_date(split_part(o.period, '/', -1), 'YYYY-MM')) into v_after
  from public.payouts o where o.user_id = p_user and o.status in ('pending', 'processing', 'paid');
  select min(to_date(split_part(t.reference, ':', 2), 'YYYY-MM')), max(to_date(split_part(t.reference, ':', 2), 'YYYY-MM'))
  into v_first, v_last
  from public.ledger_transactions t
  where t.kind = 'month_close' and t.reference like p_user || ':%'
    and (v_after is null or to_date(split_part(t.reference, ':', 2), 'YYYY-MM') > v_after);
  v_last := coalesce(v_last, (date_trunc('month', p_now at time zone 'UTC') - interval '1 month')::date);
  v_first := coalesce(v_first, v_last);
  v_period := to_char(v_first, 'YYYY-MM') || case when v_first < v_last then '/' || to_char(v_last, 'YYYY-MM') else '' end;

  insert into public.payouts (user_id, period, amount_micro, status, requested_at, rail, destination, status_changed_at)
  values (p_user, v_period, v_amount, 'pending', p_now, v_method.rail, v_method.masked, p_now)
  returning id into v_id;
  perform public.ledger_post('payout', v_id::text, p_now, null,
    jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher_available', p_user), 'amount_micro', -v_amount),
                      jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', v_amount)));
  return json_build_object('ok', true, 'payout_id', v_id, 'amount_micro', v_amount);
end $$;

revoke all on function public.payout_request(uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_request(uuid, timestamptz) to service_role;

-- A payout's next status (migration 20261206000000_payouts), by `p_by` at `p_now`: one that
-- public.payout_next_statuses lists for the payout's status (migration
-- 20261214000300_payout_marks: the one list of a payout's moves). `paid` needs the rail's
-- reference (the bank transfer's, Stripe's transfer id) and sets `paid_at`; `failed` needs a
-- reason, shown to the publisher. A failed or canceled payout's amount returns to the
-- publisher's available balance in a `payout_reversal` transaction (reference the payout's id),
-- in the same database transaction. Asked again for the status the payout already has (a
-- retry), it changes nothing and answers ok. Answers `{ok: true, status}` or `{ok: false, error,
-- status}` with `error` one of `not_found`, `invalid_transition`, `reference_required`,
-- `reason_required`. Internal: publishers call public.cancel_payout, staff
-- public.staff_payout_mark.
create or replace function public.payout_transition(p_payout uuid, p_status text, p_reference text, p_reason text, p_by uuid,
                                                    p_now timestamptz default now())
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v public.payouts;
  v_micro bigint;
begin
  select * into v from public.payouts o where o.id = p_payout for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found', 'status', null);
  end if;
  if v.status = p_status then
    return json_build_object('ok', true, 'status', v.status);
  end if;
  if not coalesce(p_status = any(public.payout_next_statuses(v.status)), false) then
    return json_build_object('ok', false, 'error', 'invalid_transition', 'status', v.status);
  end if;
  if p_status = 'paid' and coalesce(btrim(p_reference), '') = '' then
    return json_build_object('ok', false, 'error', 'reference_required', 'status', v.status);
  end if;
  if p_status = 'failed' and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required', 'status', v.status);
  end if;

  update public.payouts o set
    status = p_status,
    paid_at = case when p_status = 'paid' then p_now end,
    reference = coalesce(nullif(btrim(p_reference), ''), o.reference),
    failure_reason = case when p_status = 'failed' then btrim(p_reason) end,
    status_changed_at = p_now,
    status_changed_by = p_by
  where o.id = p_payout;

  if p_status in ('failed', 'canceled') then
    v_micro := v.amount_micro;
    perform public.ledger_post('payout_reversal', v.id::text, p_now, coalesce(nullif(btrim(p_reason), ''), 'canceled before it was sent'),
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', -v_micro),
                        jsonb_build_object('account_id', public.ledger_account('publisher_available', v.user_id), 'amount_micro', v_micro)));
  end if;
  return json_build_object('ok', true, 'status', p_status);
end $$;

revoke all on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) to service_role;

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
      cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro,
      price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
      exclusive_license_multiplier, min_payout_micro, min_top_up_micro,
      data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
      data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, updated_at)
    values (
      true, v_change.publisher_ad_revenue_share, v_change.platform_ad_fee, v_change.publisher_data_revenue_share,
      v_change.cpm_floating_video_micro, v_change.cpm_tooltip_micro, v_change.cpm_sponsored_card_micro, v_change.cpm_inline_text_micro,
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

-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats (with what the ads cost), the campaigns' daily spend and
-- daily stats per creative and app (what advertisers' reports read), and the keys' last use, in
-- one transaction: every count is added exactly once. What the counts billed
-- goes into the ledger in the same transaction: one `ad_spend` transaction per run and day
-- (public.ledger_post_ad_spend, through `ad_spend_pending`), which debits each campaign's
-- advertiser and credits each app's publisher and the platform. Then campaigns move on by the
-- clock and by their budgets (public.campaigns_advance), the days counted before advertisers had
-- accounts are posted as they were (public.ledger_post_ad_revenue), the months whose
-- earnings are final are closed (public.ledger_close_months), and data licenses past their
-- term expire and release what they held (public.data_licenses_advance, migration
-- 20261209000000_data_buyers). Rows of transactions still open are
-- invisible here and wait for the next run; `skip locked` lets two runs share the work without waiting.
-- The server runs it every few seconds (lib/ads/serving/rollup.ts); on Supabase pg_cron can instead.
-- It also adds what serving promised and what billing took, per campaign and five minutes, to the
-- `served:` and `billed:` counters that pacing reads (public.sdk_serve_ad): serving writes no row
-- another request writes too, and counts its promises from the next run. Each run also sweeps,
-- a bounded batch at a time, what is kept only for a while (SECURITY.md,
-- What strangers can store): decisions and invalid traffic after 35 days (past their token's hour,
-- the frequency cap's day and a month's close), and counters and budget leases two days after
-- their period.
create or replace function public.roll_up_ad_traffic(p_limit integer default 200000)
returns table (decisions bigint, events bigint)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_retained_since timestamptz := now() - interval '35 days';
begin
  -- Each batch is picked first, into an array, and then deleted by id (or by row address where
  -- the key has several columns): a plan that cannot depend on the tables' statistics. As
  -- `in (select … limit …)`, a table whose statistics said it was empty (they are stale on a
  -- queue that fills between analyses) was read once per row it held: 24,000 counts took five
  -- minutes to roll up, and the run, cancelled at its time limit, never caught up
  -- (migration 20261212000000_ad_draw).
  -- Decision ids are time-ordered (public.time_ordered_uuid): the oldest are the lowest.
  delete from public.ad_decisions d
  where d.id = any(array(select x.id from public.ad_decisions x
                         where x.id < (lpad(to_hex(floor(extract(epoch from v_retained_since) * 1000)::bigint), 12, '0')
                                       || '00000000000000000000')::uuid
                         order by x.id limit 10000))
    and d.created_at < v_retained_since;
  delete from public.ad_events e
  where e.id = any(array(select x.id from public.ad_events x where x.occurred_at < v_retained_since and not x.billable limit 10000));
  delete from public.sdk_counters k
  where k.ctid = any(array(select x.ctid from public.sdk_counters x where x.period < now() - interval '2 days' limit 10000));
  delete from public.sdk_budget_leases l
  where l.ctid = any(array(select x.ctid from public.sdk_budget_leases x where x.period < now() - interval '2 days' limit 10000));

  return query
  with taken as (
    delete from public.ad_traffic_counts c
    where c.id = any(array(select x.id from public.ad_traffic_counts x order by x.id limit p_limit for update skip locked))
    returning c.*
  ), by_day as (
    select t.placement_id, t.day, sum(t.requests) as requests, sum(t.fills) as fills, sum(t.impressions) as impressions,
           sum(t.clicks) as clicks, sum(t.invalid) as invalid, sum(t.revenue_micro) as revenue, sum(t.cost_micro) as cost
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_micro, cost_micro,
                                         posted_micro, posted_cost_micro)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost, b.revenue, b.cost
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      invalid_events = s.invalid_events + excluded.invalid_events,
      revenue_micro = s.revenue_micro + excluded.revenue_micro,
      cost_micro = s.cost_micro + excluded.cost_micro,
      posted_micro = s.posted_micro + excluded.posted_micro,
      posted_cost_micro = s.posted_cost_micro + excluded.posted_cost_micro
  ), billed as (
    -- What this run's counts billed, for the ledger (public.ledger_post_ad_spend, below).
    insert into public.ad_spend_pending (day, campaign_id, app_id, cost_micro, revenue_micro)
    select t.day, t.campaign_id, t.app_id, sum(t.cost_micro), sum(t.revenue_micro)
    from taken t where t.cost_micro > 0 or t.revenue_micro > 0
    group by t.day, t.campaign_id, t.app_id
  ), totals as (
    update public.placements p set
      ad_requests = p.ad_requests + c.requests,
      fills       = p.fills + c.fills,
      impressions = p.impressions + c.impressions,
      clicks      = p.clicks + c.clicks,
      invalid_events = p.invalid_events + c.invalid,
      revenue_micro = p.revenue_micro + c.revenue
    from (select b.placement_id, sum(b.requests) requests, sum(b.fills) fills, sum(b.impressions) impressions,
                 sum(b.clicks) clicks, sum(b.invalid) invalid, sum(b.revenue) revenue
          from by_day b group by b.placement_id) c
    where p.id = c.placement_id
  ), spend as (
    insert into public.campaign_daily_spend as s (campaign_id, day, impressions, clicks, spent_micro)
    select t.campaign_id, t.day, sum(t.impressions), sum(t.clicks), sum(t.cost_micro)
    -- A campaign deleted since its ad was served has no spend to keep (and must not stop the run).
    from taken t where (t.impressions > 0 or t.clicks > 0) and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.day
    on conflict (campaign_id, day) do update set
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_micro = s.spent_micro + excluded.spent_micro
  ), report as (
    insert into public.campaign_daily_stats as s (campaign_id, creative_id, app_id, day, fills, impressions, clicks, spent_micro)
    select t.campaign_id, t.creative_id, t.app_id, t.day, sum(t.fills), sum(t.impressions), sum(t.clicks), sum(t.cost_micro)
    from taken t
    where t.creative_id is not null and (t.fills > 0 or t.impressions > 0 or t.clicks > 0)
      and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.creative_id, t.app_id, t.day
    on conflict (campaign_id, day, creative_id, app_id) do update set
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_micro = s.spent_micro + excluded.spent_micro
  ), promised as (
    insert into public.sdk_counters as k (name, period, used)
    select x.name, x.slot, x.micro
    from (select 'served:' || t.campaign_id as name, date_bin(interval '5 minutes', t.at, timestamptz '2000-01-01 00:00:00+00') as slot,
                 sum(t.promised_micro) as micro
          from taken t where t.campaign_id is not null and t.promised_micro > 0 group by 1, 2
          union all
          select 'billed:' || t.campaign_id, date_bin(interval '5 minutes', t.at, timestamptz '2000-01-01 00:00:00+00'),
                 sum(t.cost_micro)
          from taken t where t.campaign_id is not null and t.cost_micro > 0 group by 1, 2) x
    on conflict (name, period) do update set used = k.used + excluded.used
  ), used as (
    update public.api_keys k set last_used_at = greatest(k.last_used_at, u.last_at)
    from (select t.api_key_id, max(t.at) as last_at from taken t where t.api_key_id is not null group by t.api_key_id) u
    where k.id = u.api_key_id
  )
  select coalesce(sum(t.requests), 0)::bigint, coalesce(sum(t.impressions + t.clicks), 0)::bigint from taken t;

  -- What this run billed, into the ledger; campaigns moved on by the clock, their budgets and
  -- their advertisers' balances; the days counted before advertisers had accounts, into the
  -- ledger as they were (once they are over); and the months whose final day has come, closed
  -- (public.ledger_close_months: nothing to do, the common case, is one read).
  perform public.ledger_post_ad_spend();
  perform public.campaigns_advance();
  perform public.ledger_post_ad_revenue();
  perform public.ledger_close_months();
  perform public.data_licenses_advance(now());
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;

-- One call per batch, as `sdk`. The caller has checked each event's token (signature, expiry,
-- app) and passes the decision it names; this decides the rest, in the order the rules are
-- documented (content/docs/sdk-integration.md, Counting rules). Each event is
-- `{n, id, kind, decision_id, visible_share, visible_seconds, area_px}` (the last three: the SDK's
-- viewability evidence, for impressions). `p_ip_hash` is the keyed hash of the client's address,
-- `p_client_hash` of its network and browser (lib/platform/http/client-ip.ts); `p_client_allowed`
-- and `p_publisher_allowed` are how many of the batch's impressions the hourly caps still allow,
-- from this client and for this publisher (lib/ads/serving/events.ts keeps those counts, shared by every
-- instance when Upstash is configured). Each event answers its `n` and one outcome:
--   recorded    billable, counted, on its decision;
--   duplicate   its id was recorded before (a retry): nothing changes;
--   invalid     never billed, with the reason; counted in the placement's invalid traffic, and
--               the first of each decision, kind and reason kept in `ad_events`
--               (`unknown_decision` alone is answered without a count: there is no ad to name).
--
-- Impressions, all together:
--   1. each decision the batch names, impressions' and clicks', is locked, in id order (two
--      batches never wait on each other in a circle), and the rules that need no counter are
--      applied (sdk_event_reason): an ad's impression is `already_counted` when it has one, or
--      when an earlier impression of the batch that passed the rules takes it;
--   2. of the impressions that passed, those past what the hourly caps allow are invalid
--      (`client_limit`, `publisher_limit`);
--   3. each campaign's budget for the day (sdk_take_budget, one call per campaign and format),
--      then, for the advertisers whose leases took from their budgets, their funds
--      (sdk_take_funds, one call per advertiser, after every budget): what either refuses is
--      `over_budget`. Both are debited in the same transaction as the impressions they pay for,
--      so a campaign is billed at most its daily budget and one impression's price, and an
--      advertiser at most what it may spend and one impression's price; the batch holds its
--      connection's lease of the budget, not the budget itself, to the commit, and an
--      advertiser's funds only when its lease ran short;
--   4. what passed billed on its decision, the invalid ones kept once per ad and reason, the
--      counts for the roll-up (`ad_traffic_counts`) written, and every impression answered:
--      steps 1 to 4 are one statement;
--   5. clicks, one at a time: sdk_event_reason (once per ad, after its impression, the campaign
--      still running and within its budget, then one per address and ad in 3 hours).
-- Locks are taken in one order: the batch's decisions (id order), the budgets' leases and
-- counters (campaign id order), the advertisers' funds (advertiser id order), the advisory lock
-- of a click; so two batches never wait on each other in a circle.
create or replace function public.sdk_record_events(p_events jsonb, p_ip_hash text, p_client_hash text, p_bot boolean,
                                                    p_client_allowed integer, p_publisher_allowed integer)
returns table (n integer, outcome text, reason text)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_user uuid := public.sdk_user_id();
  v_today date := (now() at time zone 'UTC')::date;
  v_day timestamptz := date_trunc('day', now(), 'UTC');
  v_pricing public.pricing_settings;
  v_client integer;
  v_allowed integer;
  v_event record;
  v_decision record;
  v_reason text;
  v_taken boolean;
begin
  select * into v_pricing from public.pricing_settings;

  v_client := greatest(p_client_allowed, 0);
  v_allowed := least(v_client, greatest(p_publisher_allowed, 0));

  -- 1-4. Impressions, in one statement: their decisions locked, the rules applied, one per ad
  -- (the first of the batch that passed), the hourly caps, the budgets, and then what passed
  -- billed on its decision, counted for the roll-up, the rest kept as invalid traffic, and every
  -- impression answered.
  return query
  with events as (
    select e.n, e.id, e.kind, e.decision_id, e.visible_share, e.visible_seconds, e.area_px
    from jsonb_to_recordset(p_events)
         as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
  ), input as (
    select e.n, e.id, e.decision_id, e.visible_share, e.visible_seconds, e.area_px,
           row_number() over (partition by e.id order by e.n) as nth_of_id
    from events e
    where e.kind = 'impression'
  ), locked as materialized (
    -- The clicks' decisions too: all of the batch's, in one order, before any other lock.
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.client_hash, d.created_at, d.impression_event_id, d.click_event_id
    from public.ad_decisions d
    where d.id in (select e.decision_id from events e) and d.creative_id is not null
    order by d.id
    for update
  ), judged as materialized (
    -- Materialized: the rules run once per impression (inlined, the reason would be computed
    -- again wherever the steps below read it).
    select i.n, i.id, d.id as decision_id, d.placement_id, d.campaign_id, c.advertiser_id, d.creative_id, p.format, d.created_at as served_at,
           i.visible_share, i.visible_seconds, public.sdk_cost_per_impression(p.format, v_pricing) as cost_micro, c.daily_budget_micro,
           case
             when d.id is null then 'unknown_decision'
             when i.nth_of_id > 1 or i.id in (d.impression_event_id, d.click_event_id)
                  or exists (select 1 from public.ad_events x where x.placement_id = d.placement_id and x.event_id = i.id) then 'duplicate'
             -- The budget is the batch's, after every rule (below): none is spent here.
             else public.sdk_event_reason(
                    'impression', p_bot, d.impression_event_id, d.click_event_id,
                    public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()), false,
                    p_same_client => d.client_hash = p_client_hash, p_age_seconds => extract(epoch from now() - d.created_at),
                    p_format => p.format, p_share => i.visible_share, p_seconds => i.visible_seconds, p_area => i.area_px)
           end as reason
    from input i
    left join locked d on d.id = i.decision_id
    left join public.placements p on p.id = d.placement_id
    left join public.campaigns c on c.id = d.campaign_id
  ), once as (
    select j.n, j.id, j.decision_id, j.placement_id, j.campaign_id, j.advertiser_id, j.creative_id, j.format, j.served_at, j.visible_share,
           j.visible_seconds, j.cost_micro, j.daily_budget_micro,
           case when j.reason is null and row_number() over (partition by j.reason is null, j.decision_id order by j.n) > 1
                then 'already_counted' else j.reason end as reason
    from judged j
  ), capped as (
    select o.n, o.id, o.decision_id, o.placement_id, o.campaign_id, o.advertiser_id, o.creative_id, o.format, o.served_at, o.visible_share,
           o.visible_seconds, o.cost_micro, o.daily_budget_micro,
           case when o.reason is null and row_number() over (partition by o.reason is null order by o.n) > v_client then 'client_limit'
                when o.reason is null and row_number() over (partition by o.reason is null order by o.n) > v_allowed then 'publisher_limit'
                else o.reason end as reason
    from once o
  ), ranked as (
    -- Each impression's place among its campaign's and format's billable ones: those past what
    -- the budget grants are refused.
    select c.*, row_number() over (partition by c.reason is null, c.campaign_id, c.format order by c.n) as nth_of_group
    from capped c
  ), granted as materialized (
    -- 3. The budgets, campaigns in id order (and formats, whose prices differ): each takes from
    -- its campaign's lease of this connection (sdk_take_budget), after the decisions' locks
    -- (the rows it counts come from `locked`). Called once per group: the CTE is materialized,
    -- and PostgreSQL computes volatile outputs after the sort.
    select w.campaign_id, w.advertiser_id, w.format, w.unit,
           public.sdk_take_budget(w.campaign_id, v_day, w.wanted, w.unit, w.daily_budget_micro, w.advertiser_id) as took
    from (select c.campaign_id, c.advertiser_id, c.format, count(*)::integer as wanted, min(c.cost_micro) as unit,
                 min(c.daily_budget_micro) as daily_budget_micro
          from capped c where c.reason is null group by c.campaign_id, c.advertiser_id, c.format) as w
    order by w.campaign_id, w.format
  ), funded as materialized (
    -- 3. Then the advertisers' funds, for those whose leases took from (or gave back to) their
    -- budgets: most batches spend from their leases and call nothing here. Advertisers in id
    -- order, after every budget (sdk_take_funds); null when the funds cover the batch, else the
    -- impressions each group keeps.
    select f.advertiser_id, f.campaigns, f.formats,
           public.sdk_take_funds(f.advertiser_id, f.micro, v_day, f.campaigns, f.funds, f.units, f.items) as kept
    from (select g.advertiser_id, sum((g.took).funds)::bigint as micro,
                 array_agg(g.campaign_id order by g.campaign_id, g.format) as campaigns, array_agg(g.format order by g.campaign_id, g.format) as formats,
                 array_agg((g.took).funds order by g.campaign_id, g.format) as funds, array_agg(g.unit order by g.campaign_id, g.format) as units,
                 array_agg((g.took).items order by g.campaign_id, g.format) as items
          from granted g where g.advertiser_id is not null
          group by g.advertiser_id having sum((g.took).funds) <> 0) as f
    order by f.advertiser_id
  ), cut as (
    select k.campaign_id, k.format, k.items
    from funded f cross join lateral unnest(f.campaigns, f.formats, f.kept) as k(campaign_id, format, items)
    where f.kept is not null
  ), final as materialized (
    select c.n, c.id, c.decision_id, c.placement_id, c.campaign_id, c.creative_id, c.visible_share, c.visible_seconds, c.cost_micro,
           case when c.reason is null and c.nth_of_group > coalesce(k.items, (g.took).items) then 'over_budget' else c.reason end as reason
    from ranked c left join granted g on g.campaign_id = c.campaign_id and g.format = c.format
         left join cut k on k.campaign_id = c.campaign_id and k.format = c.format
  ), billed as (
    update public.ad_decisions d set
      impression_event_id = c.id, impressed_at = now(),
      visible_share = least(c.visible_share, 1), visible_seconds = c.visible_seconds,
      cost_micro = c.cost_micro, revenue_micro = public.sdk_publisher_revenue(c.cost_micro, v_pricing)
    from final c
    where c.reason is null and d.id = c.decision_id
  ), kept as (
    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    select distinct on (c.decision_id, c.reason) c.id, c.placement_id, v_user, v_app, c.decision_id, c.campaign_id, c.creative_id,
           'impression', false, c.reason, p_ip_hash
    from final c
    where c.reason not in ('duplicate', 'unknown_decision')
    order by c.decision_id, c.reason, c.n
    on conflict do nothing
  ), counted as (
    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, impressions, invalid, revenue_micro, cost_micro)
    select v_app, c.placement_id, c.campaign_id, c.creative_id, v_today,
           count(*) filter (where c.reason is null), count(*) filter (where c.reason is not null),
           coalesce(sum(public.sdk_publisher_revenue(c.cost_micro, v_pricing)) filter (where c.reason is null), 0),
           coalesce(sum(c.cost_micro) filter (where c.reason is null), 0)
    from final c
    where c.reason is distinct from 'duplicate' and c.reason is distinct from 'unknown_decision'
    group by c.placement_id, c.campaign_id, c.creative_id
  )
  select c.n,
         case when c.reason is null then 'recorded' when c.reason = 'duplicate' then 'duplicate' else 'invalid' end,
         case when c.reason = 'duplicate' then null else c.reason end
  from final c
  order by c.n;

  -- 5. Clicks, one at a time, after the impressions, so a batch holding both for one ad counts both.
  if not p_events @> '[{"kind": "click"}]' then
    return;
  end if;
  for v_event in
    select e.n, e.id, e.decision_id
    from jsonb_to_recordset(p_events) as e(n integer, id text, kind text, decision_id uuid)
    where e.kind = 'click'
    order by e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.impression_event_id, d.click_event_id,
           public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()) as running,
           public.sdk_budget_spent(d.campaign_id, v_day) >= c.daily_budget_micro as spent
    into v_decision
    from public.ad_decisions d left join public.campaigns c on c.id = d.campaign_id
    where d.id = v_event.decision_id;
    if not found or v_decision.creative_id is null then
      -- A token names a decision that filled; anything else is not an ad of this app.
      return query select v_event.n, 'invalid'::text, 'unknown_decision'::text;
      continue;
    end if;
    if v_event.id in (v_decision.impression_event_id, v_decision.click_event_id)
       or exists (select 1 from public.ad_events x where x.placement_id = v_decision.placement_id and x.event_id = v_event.id) then
      return query select v_event.n, 'duplicate'::text, null::text;
      continue;
    end if;

    -- The first reason the click is not counted. The 3-hour rule, its last, is the one that reads
    -- other decisions, and for concurrent clicks of one address on one ad its check and the
    -- click's update must be one step: a lock, taken only for a click that no other rule refuses,
    -- then the rules again with what the check found.
    v_reason := public.sdk_event_reason('click', p_bot, v_decision.impression_event_id, v_decision.click_event_id, v_decision.running,
                                        v_decision.spent);
    if v_reason is null then
      perform pg_advisory_xact_lock(hashtextextended(coalesce(p_ip_hash, '') || v_decision.creative_id::text, 0));
      v_reason := public.sdk_event_reason('click', p_bot, v_decision.impression_event_id, v_decision.click_event_id, v_decision.running,
                    v_decision.spent, p_repeat_click => exists (select 1 from public.sdk_recent_clicks(v_decision.creative_id, p_ip_hash, now())));
    end if;

    if v_reason is null then
      -- Once per ad, and after its impression (the decision is locked: nothing else changes it).
      update public.ad_decisions set click_event_id = v_event.id, clicked_at = now(), click_ip_hash = p_ip_hash
      where id = v_decision.id and not public.sdk_already_counted('click', impression_event_id, click_event_id)
        and not public.sdk_click_before_impression('click', impression_event_id)
      returning true into v_taken;
      if coalesce(v_taken, false) then
        v_taken := null;
        insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, clicks)
        values (v_app, v_decision.placement_id, v_decision.campaign_id, v_decision.creative_id, v_today, 1);
        return query select v_event.n, 'recorded'::text, null::text;
        continue;
      end if;
      v_reason := 'already_counted';
    end if;

    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, invalid)
    values (v_app, v_decision.placement_id, v_decision.campaign_id, v_decision.creative_id, v_today, 1);
    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            'click', false, v_reason, p_ip_hash)
    on conflict do nothing;
    return query select v_event.n, 'invalid'::text, v_reason;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) to sdk;

-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the eligible
-- creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: campaign running (sdk_campaign_running; its end date stops it only with a hard
-- stop) and targeting this placement of this app (sdk_campaign_targets), with an approved
-- creative of the format, paced budget left today and the client's network under the campaign's
-- frequency cap times `p_network_factor` (sdk_campaign_creative); each rule has its file here.
-- The decision remembers the client (`p_client_hash`, its network and user agent: an impression
-- is billable only from it) and its network (`p_network_hash`, its /24 or /64 alone: the
-- frequency cap counts by it, whatever user agent is sent; lib/platform/http/client-ip.ts). The
-- request is counted (`ad_traffic_counts`, with the price a fill promises) whether or not it
-- filled. Nothing here writes a row another request writes too: serving waits on no one.
--
-- The draw: each eligible campaign wins with probability weight / total, its weight from
-- sdk_draw_weight (the daily budget, tripled when a keyword of the request matches). It is drawn
-- by rejection, in a few index reads however many campaigns run (migration
-- 20261212000000_ad_draw): `campaign_draw` lays every active campaign of the format end to end,
-- each as long as its daily budget; a point drawn at random along it names a campaign, which is
-- kept with probability weight / (daily budget × the largest boost this request can give) if it
-- is running, targets here and may fill now (sdk_campaign_creative), and otherwise another point
-- is drawn. A kept campaign is a draw among those that may fill, by weight. After eight points
-- that named nothing (a market where few campaigns may fill here), every running campaign is
-- tried in the order of one draw by weight, `-ln(1 - random()) / weight` being the smallest for
-- each with probability weight / total, and the first that may fill wins: the same draw, at the
-- cost of one scan and sort of the campaigns (the only way before; with 1,000 campaigns the
-- scan alone cost about a millisecond of the database's time per request).
create or replace function public.sdk_serve_ad(p_placement_id uuid, p_session_id text, p_keywords text[], p_api_key_id uuid,
                                               p_client_hash text, p_network_hash text, p_network_factor integer)
returns table (
  found        boolean,
  decision_id  uuid,
  format       text,
  creative_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_categories text[];
  v_placement record;
  v_pick record;
  v_decision uuid;
  v_promised bigint;
  v_length numeric;
  v_boost numeric;
  v_point numeric;
begin
  select p.id, p.format, p.status into v_placement from public.placements p where p.id = p_placement_id;
  if not found then
    return query select false, null::uuid, null::text, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
    return;
  end if;
  select a.category into v_categories from public.apps a where a.id = v_app;
  v_categories := coalesce(v_categories, '{}');
  -- Nothing picked unless the placement is active and a creative is eligible.
  select null::uuid as id, null::uuid as campaign_id into v_pick;
  if v_placement.status = 'active' then
    -- The layout's length (null: no active campaign buys the format), and the largest boost a
    -- campaign's keywords can earn from this request's (sdk_draw_weight of a budget of 1).
    select d.hi into v_length from public.campaign_draw d where d.format = v_placement.format order by d.lo desc limit 1;
    v_boost := public.sdk_draw_weight(1, p_keywords, p_keywords);
    -- Up to eight points along the layout; the campaign a point names, if it is kept and may fill.
    for v_try in 1..8 loop
      exit when v_length is null or v_pick.id is not null;
      v_point := random()::numeric * v_length;
      select s.* into v_pick
      from (select c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap
            from (select d.campaign_id from public.campaign_draw d
                  where d.format = v_placement.format and d.lo <= v_point order by d.lo desc limit 1) d
            join public.campaigns c on c.id = d.campaign_id
            where public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
              and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                              v_placement.format, v_categories, v_app)
              and random()::numeric * c.daily_budget_micro * v_boost < public.sdk_draw_weight(c.daily_budget_micro, c.keywords, p_keywords)) c
      cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap, v_placement.format,
                                                      v_app, p_network_hash, p_network_factor, now()) s;
    end loop;
    if v_length is not null and v_pick.id is null then
      -- Every running campaign here, in the order of one draw by weight; the first that may fill.
      select s.* into v_pick
      from (select c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap
            from public.campaigns c
            where public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
              and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                              v_placement.format, v_categories, v_app)
            order by -ln(1 - random()) / public.sdk_draw_weight(c.daily_budget_micro, c.keywords, p_keywords)) c
      cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap, v_placement.format,
                                                      v_app, p_network_hash, p_network_factor, now()) s
      limit 1;
    end if;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, client_hash, network_hash, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, p_client_hash, p_network_hash, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  if v_pick.id is not null then
    select public.sdk_cost_per_impression(v_placement.format, s) into v_promised from public.pricing_settings s;
  end if;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, campaign_id, creative_id, day, requests, fills, promised_micro)
  values (v_app, v_placement.id, p_api_key_id, v_pick.campaign_id, v_pick.id, (now() at time zone 'UTC')::date, 1,
          case when v_pick.id is null then 0 else 1 end, coalesce(v_promised, 0));
  if v_pick.id is null then
    return query select true, v_decision, v_placement.format, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
  else
    return query select true, v_decision, v_placement.format, v_pick.id, v_pick.advertiser, v_pick.headline, v_pick.body,
                        v_pick.cta, v_pick.image_url, v_pick.video_url;
  end if;
end $$;
revoke all on function public.sdk_serve_ad(uuid, text, text[], uuid, text, text, integer) from public, anon, authenticated;
grant execute on function public.sdk_serve_ad(uuid, text, text[], uuid, text, text, integer) to sdk;

-- What waits for the operator on the advertisers' side (migration 20261207000000_advertisers),
-- for /ops: the manual top-ups asked for and not paid yet (to match against the payments that
-- arrive; data buyers' too, with the account they fund: migration 20261209000000_data_buyers), the campaigns sent for review with all their creatives, and the creatives waiting for
-- review in campaigns already approved (new or edited), oldest first; and each advertiser's
-- balance. Creative text goes out as data, and the console renders it as text. Refused to anyone
-- but staff (public.is_staff). Amounts in micro-dollars.
create or replace function public.staff_advertising_queue(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'top_ups', (select coalesce(json_agg(r order by r.requested_at), '[]')
                from (select t.id, t.invoice_number, t.amount_micro, t.rail, t.requested_at, u.email, t.account_kind,
                             case when t.account_kind = 'buyer' then b.company else p.company end as company
                      from public.top_ups t join public.users u on u.id = t.user_id
                      left join public.advertiser_profiles p on p.user_id = t.user_id
                      left join public.buyer_profiles b on b.user_id = t.user_id
                      where t.status = 'requested' and t.rail = 'manual'
                      order by t.requested_at limit p_limit) r),
    'campaigns', (select coalesce(json_agg(r order by r.submitted_at), '[]')
                  from (select c.id, c.name, c.advertiser, u.email, c.status, c.submitted_at, c.starts_at, c.ends_at, c.hard_stop,
                               c.lifetime_budget_micro, c.daily_cap_micro, c.formats, c.keywords, c.include_categories, c.exclude_categories,
                               (select coalesce(json_agg(x order by x.created_at), '[]')
                                from (select cr.id, cr.format, cr.status, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url,
                                             cr.landing_url, cr.width, cr.height, cr.duration_ms, cr.created_at
                                      from public.creatives cr where cr.campaign_id = c.id) x) as creatives
                        from public.campaigns c join public.users u on u.id = c.advertiser_id
                        where c.status = 'in_review'
                        order by c.submitted_at nulls last limit p_limit) r),
    'creatives', (select coalesce(json_agg(r order by r.updated_at), '[]')
                  from (select cr.id, cr.campaign_id, c.name as campaign, c.advertiser, cr.format, cr.headline, cr.body, cr.cta,
                               cr.image_url, cr.video_url, cr.landing_url, cr.width, cr.height, cr.duration_ms, cr.updated_at
                        from public.creatives cr join public.campaigns c on c.id = cr.campaign_id
                        where cr.status = 'in_review' and c.status not in ('draft', 'in_review', 'rejected', 'completed')
                        order by cr.updated_at limit p_limit) r),
    'advertisers', (select coalesce(json_agg(r order by r.company), '[]')
                    from (select p.user_id, p.company, u.email, public.ledger_balance_micro('advertiser', p.user_id) as balance_micro,
                                 (select count(*) from public.campaigns c where c.advertiser_id = p.user_id and c.status = 'active') as active_campaigns
                          from public.advertiser_profiles p join public.users u on u.id = p.user_id
                          order by p.company limit p_limit) r));
end $$;

revoke all on function public.staff_advertising_queue(integer) from public, anon, sdk;
grant execute on function public.staff_advertising_queue(integer) to authenticated;

-- What the operator console (/ops) shows (migration 20261206000000_payouts): the ledger's
-- balances (each platform account, and each publisher's earned and available balances), the
-- payouts (those to send first, then the latest; each with the statuses it may be marked with
-- next, public.payout_next_statuses), the month closes and the latest audit entries.
-- Staff read it through this function, not through policies on the tables: the account reads
-- (public.account_earnings and the others) rely on row-level security alone to keep a caller to
-- their own rows, and a staff policy on those tables would widen them. Refused to anyone but staff
-- (public.is_staff). Amounts in micro-dollars.
create or replace function public.staff_overview(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'platform', (select coalesce(json_agg(r order by r.kind), '[]')
                 from (select a.kind, coalesce(sum(p.amount_micro), 0)::bigint as balance_micro
                       from public.ledger_accounts a left join public.ledger_postings p on p.account_id = a.id
                       where a.user_id is null group by a.kind) r),
    'publishers', (select coalesce(json_agg(r order by r.email), '[]')
                   from (select u.id as user_id, u.email, u.name,
                                coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher'), 0)::bigint as pending_micro,
                                coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher_available'), 0)::bigint as available_micro,
                                m.rail, m.masked as destination, coalesce(m.ready, false) as method_ready
                         from public.users u
                         join public.ledger_accounts a on a.user_id = u.id and a.kind in ('publisher', 'publisher_available')
                         left join public.ledger_postings p on p.account_id = a.id
                         left join public.payout_methods m on m.user_id = u.id
                         group by u.id, u.email, u.name, m.rail, m.masked, m.ready) r),
    'payouts', (select coalesce(json_agg(r order by r.open desc, r.requested_at desc), '[]')
                from (select o.id, o.user_id, u.email, o.period, o.amount_micro, o.status,
                             o.rail, o.destination, o.reference, o.failure_reason, o.requested_at, o.paid_at, o.status_changed_at,
                             cardinality(public.payout_next_statuses(o.status)) > 0 as open, public.payout_next_statuses(o.status) as next
                      from public.payouts o join public.users u on u.id = o.user_id
                      order by cardinality(public.payout_next_statuses(o.status)) > 0 desc, o.requested_at desc
                      limit greatest(p_limit, 0)) r),
    'months', (select coalesce(json_agg(r order by r.month desc), '[]')
               from (select c.month, c.closed_at, c.publishers, c.amount_micro, c.closed_by
                     from public.ledger_month_closes c order by c.month desc limit 24) r),
    'audit', (select coalesce(json_agg(r order by r.id desc), '[]')
              from (select l.id, l.at, u.email as staff, l.action, l.subject, l.reason, l.details
                    from public.staff_audit_log l left join public.users u on u.id = l.staff_user_id
                    order by l.id desc limit greatest(p_limit, 0)) r));
end $$;

revoke all on function public.staff_overview(integer) from public, anon, sdk;
grant execute on function public.staff_overview(integer) to authenticated;

-- What staff need to send a payout (migration 20261206000000_payouts): the payout's amount,
-- status and rail, and the publisher's payout method on that rail: the bank details, still
-- encrypted (the server opens them, lib/money/payouts/staff.ts), or the Stripe account. Refused to anyone but staff (public.is_staff); every look is in the
-- audit log, with why. Answers null for an unknown payout.
create or replace function public.staff_payout_details(p_payout uuid, p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_answer json;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  select json_build_object('payout_id', o.id, 'email', u.email, 'amount_micro', o.amount_micro, 'status', o.status,
                           'rail', o.rail, 'masked', m.masked,
                           -- The method's details when it is still the rail the payout was requested on.
                           'details_ciphertext', case when m.rail = o.rail then m.details_ciphertext end,
                           'stripe_account_id', case when m.rail = o.rail then m.stripe_account_id end)
  into v_answer
  from public.payouts o join public.users u on u.id = o.user_id left join public.payout_methods m on m.user_id = o.user_id
  where o.id = p_payout;
  if v_answer is not null then
    insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
    values (auth.uid(), 'payout.details_viewed', p_payout::text, nullif(btrim(coalesce(p_why, '')), ''), '{}');
  end if;
  return v_answer;
end $$;

revoke all on function public.staff_payout_details(uuid, text) from public, anon, sdk;
grant execute on function public.staff_payout_details(uuid, text) to authenticated;

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
    'cpm_floating_video_micro', 'cpm_tooltip_micro', 'cpm_sponsored_card_micro', 'cpm_inline_text_micro',
    'price_per_ai_interaction_row_micro', 'price_per_ux_session_recording_micro', 'price_per_gb_bundle_micro',
    'exclusive_license_multiplier', 'min_payout_micro', 'min_top_up_micro',
    'data_license_max_app_share', 'data_license_max_publisher_share', 'data_license_min_share_records',
    'data_seller_min_age_days', 'data_seller_min_ad_days', 'data_clawback_days'];
  v_steps constant numeric[] := array[0.0001, 0.0001, 0.0001, 100, 100, 100, 100, 100, 100, 100, 0.01, 10000, 10000, 0.0001, 0.0001, 1, 1, 1, 1];
  v_largest constant numeric[] := array[1, 1, 1, 999999999900, 999999999900, 999999999900, 999999999900,
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
    cpm_floating_video_micro, cpm_tooltip_micro, cpm_sponsored_card_micro, cpm_inline_text_micro,
    price_per_ai_interaction_row_micro, price_per_ux_session_recording_micro, price_per_gb_bundle_micro,
    exclusive_license_multiplier, min_payout_micro, min_top_up_micro,
    data_license_max_app_share, data_license_max_publisher_share, data_license_min_share_records,
    data_seller_min_age_days, data_seller_min_ad_days, data_clawback_days, reason, scheduled_by)
  values (
    v_at, (p_values ->> 'publisher_ad_revenue_share')::numeric, (p_values ->> 'platform_ad_fee')::numeric,
    (p_values ->> 'publisher_data_revenue_share')::numeric,
    (p_values ->> 'cpm_floating_video_micro')::numeric::bigint, (p_values ->> 'cpm_tooltip_micro')::numeric::bigint,
    (p_values ->> 'cpm_sponsored_card_micro')::numeric::bigint, (p_values ->> 'cpm_inline_text_micro')::numeric::bigint,
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

-- Why a top-up of `p_amount_micro` for user `p_user`'s account of kind `p_account_kind` would be
-- refused, or null when it would not (migration 20261207000000_advertisers; the buyer's account,
-- migration 20261209000000_data_buyers): `not_an_advertiser` without an advertiser profile, or
-- `not_a_buyer` without a buyer profile;
-- `amount_out_of_range` below the published minimum (`pricing_settings.min_top_up_micro`, answered
-- as `minimum_micro`), above a million dollars or not in whole cents. The one rule for every rail:
-- public.top_up_request (an invoice), public.top_up_open_checkout and the console before it asks
-- Stripe for a session (lib/money/stripe/checkout.ts).
create or replace function public.top_up_refusal(p_user uuid, p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_minimum bigint;
begin
  if p_account_kind = 'buyer' then
    if p_user is null or not exists (select 1 from public.buyer_profiles p where p.user_id = p_user) then
      return json_build_object('ok', false, 'error', 'not_a_buyer');
    end if;
  elsif p_account_kind is distinct from 'advertiser' or p_user is null
        or not exists (select 1 from public.advertiser_profiles p where p.user_id = p_user) then
    return json_build_object('ok', false, 'error', 'not_an_advertiser');
  end if;
  select s.min_top_up_micro into v_minimum from public.pricing_settings s;
  if p_amount_micro is null or p_amount_micro < coalesce(v_minimum, 0) or p_amount_micro > 1000000000000 or p_amount_micro % 10000 <> 0 then
    return json_build_object('ok', false, 'error', 'amount_out_of_range', 'minimum_micro', v_minimum);
  end if;
  return null;
end $$;

revoke all on function public.top_up_refusal(uuid, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_refusal(uuid, bigint, text) to service_role;

-- The draw's layout in the daily budgets' new unit.
select public.campaign_draw_rebuild();
