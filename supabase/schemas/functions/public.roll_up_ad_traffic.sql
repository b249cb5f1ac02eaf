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
-- the frequency cap's day and a month's close), counters and budget leases two days after
-- their period, and users' hides of ads once their 30 days are over. Hides are counted like
-- clicks, in the placements' daily stats and the campaigns' (migration 20261217000000_ad_hides).
-- Each campaign's impressions and clicks per placement are added up too, for the click rate a
-- cost-per-click campaign's eligibility estimates (migration 20261221000300_cost_per_click).
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
  delete from public.ad_hides h
  where h.ctid = any(array(select x.ctid from public.ad_hides x where x.hidden_until <= now() limit 10000));

  return query
  with taken as (
    delete from public.ad_traffic_counts c
    where c.id = any(array(select x.id from public.ad_traffic_counts x order by x.id limit p_limit for update skip locked))
    returning c.*
  ), by_day as (
    select t.placement_id, t.day, sum(t.requests) as requests, sum(t.fills) as fills, sum(t.impressions) as impressions,
           sum(t.clicks) as clicks, sum(t.hides) as hides, sum(t.invalid) as invalid, sum(t.revenue_micro) as revenue, sum(t.cost_micro) as cost,
           -- What clicks of cost-per-click campaigns earned (a click's count carries its own revenue).
           coalesce(sum(t.revenue_micro) filter (where t.clicks > 0), 0) as click_revenue,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'sensitive'), 0) as sensitive,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'below_relevance'), 0) as below_relevance,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'blocked'), 0) as blocked,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'no_eligible_campaign'), 0) as no_eligible_campaign,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'placement_inactive'), 0) as placement_inactive
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_micro, cost_micro,
                                         posted_micro, posted_cost_micro, unfilled_sensitive, unfilled_below_relevance, unfilled_blocked,
                                         unfilled_no_eligible_campaign, unfilled_placement_inactive, hides, click_revenue_micro)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost, b.revenue, b.cost,
           b.sensitive, b.below_relevance, b.blocked, b.no_eligible_campaign, b.placement_inactive, b.hides, b.click_revenue
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      unfilled_sensitive = s.unfilled_sensitive + excluded.unfilled_sensitive,
      unfilled_below_relevance = s.unfilled_below_relevance + excluded.unfilled_below_relevance,
      unfilled_blocked = s.unfilled_blocked + excluded.unfilled_blocked,
      unfilled_no_eligible_campaign = s.unfilled_no_eligible_campaign + excluded.unfilled_no_eligible_campaign,
      unfilled_placement_inactive = s.unfilled_placement_inactive + excluded.unfilled_placement_inactive,
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      hides       = s.hides + excluded.hides,
      invalid_events = s.invalid_events + excluded.invalid_events,
      revenue_micro = s.revenue_micro + excluded.revenue_micro,
      click_revenue_micro = s.click_revenue_micro + excluded.click_revenue_micro,
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
      revenue_micro = p.revenue_micro + c.revenue,
      click_revenue_micro = p.click_revenue_micro + c.click_revenue
    from (select b.placement_id, sum(b.requests) requests, sum(b.fills) fills, sum(b.impressions) impressions,
                 sum(b.clicks) clicks, sum(b.invalid) invalid, sum(b.revenue) revenue, sum(b.click_revenue) click_revenue
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
    insert into public.campaign_daily_stats as s (campaign_id, creative_id, app_id, day, fills, impressions, clicks, hides, spent_micro)
    select t.campaign_id, t.creative_id, t.app_id, t.day, sum(t.fills), sum(t.impressions), sum(t.clicks), sum(t.hides), sum(t.cost_micro)
    from taken t
    where t.creative_id is not null and (t.fills > 0 or t.impressions > 0 or t.clicks > 0 or t.hides > 0)
      and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.creative_id, t.app_id, t.day
    on conflict (campaign_id, day, creative_id, app_id) do update set
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      hides       = s.hides + excluded.hides,
      spent_micro = s.spent_micro + excluded.spent_micro
  ), rates as (
    -- Each campaign's impressions and clicks per placement, of all time: the click rate a
    -- cost-per-click campaign's eligibility estimates (public.sdk_cpc_clears).
    insert into public.campaign_placement_stats as s (campaign_id, placement_id, impressions, clicks)
    select t.campaign_id, t.placement_id, sum(t.impressions), sum(t.clicks)
    from taken t
    where (t.impressions > 0 or t.clicks > 0) and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
      and exists (select 1 from public.placements p where p.id = t.placement_id)
    group by t.campaign_id, t.placement_id
    on conflict (campaign_id, placement_id) do update set
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks
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
