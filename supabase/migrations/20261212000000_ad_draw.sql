-- The ad decision in a few index reads however many campaigns run, and a roll-up whose plan
-- cannot depend on statistics (issue 30's bench: 1,000 active campaigns and 5,000 creatives).
--
-- * `campaign_draw`: for each format, every active campaign that buys it laid end to end, each
--   as long as its daily budget (`lo` to `hi`, in dollars). public.sdk_serve_ad draws a point
--   along it and keeps the campaign it names by rejection (that function's comment says why the
--   draw is the same as before); it used to scan and sort every running campaign on every
--   request, about a millisecond of the database's time with 1,000 campaigns. Triggers on
--   `campaigns` lay it out anew, in the same transaction, when a statement adds or removes an
--   active campaign or changes a status, a daily budget or the formats bought; nothing else
--   writes it. Only the SDK's role reads it, inside the decision.
-- * public.roll_up_ad_traffic takes its batches by an array of ids (or row addresses) instead
--   of `in (select … limit …)`. With statistics that said `ad_traffic_counts` was empty (stale
--   on a queue that fills between two analyses, and never refreshed where autovacuum is off),
--   PostgreSQL re-ran the locking subquery once per row: 24,000 counts took five minutes, the
--   run was cancelled at its time limit every ten seconds, and counts piled up while its CPU
--   starved the requests being served.

-- ── The roll-up ─────────────────────────────────────────────────────────────────────────────
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
-- The server runs it every few seconds (lib/sdk/rollup.ts); on Supabase pg_cron can instead.
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
           sum(t.clicks) as clicks, sum(t.invalid) as invalid, sum(t.revenue_usd) as revenue, sum(t.cost_usd) as cost
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_usd, cost_usd,
                                         posted_usd, posted_cost_usd)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost, b.revenue, b.cost
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      invalid_events = s.invalid_events + excluded.invalid_events,
      revenue_usd = s.revenue_usd + excluded.revenue_usd,
      cost_usd    = s.cost_usd + excluded.cost_usd,
      posted_usd  = s.posted_usd + excluded.posted_usd,
      posted_cost_usd = s.posted_cost_usd + excluded.posted_cost_usd
  ), billed as (
    -- What this run's counts billed, for the ledger (public.ledger_post_ad_spend, below).
    insert into public.ad_spend_pending (day, campaign_id, app_id, cost_micro, revenue_micro)
    select t.day, t.campaign_id, t.app_id, sum((t.cost_usd * 1000000)::bigint), sum((t.revenue_usd * 1000000)::bigint)
    from taken t where t.cost_usd > 0 or t.revenue_usd > 0
    group by t.day, t.campaign_id, t.app_id
  ), totals as (
    update public.placements p set
      ad_requests = p.ad_requests + c.requests,
      fills       = p.fills + c.fills,
      impressions = p.impressions + c.impressions,
      clicks      = p.clicks + c.clicks,
      invalid_events = p.invalid_events + c.invalid,
      revenue_usd = p.revenue_usd + c.revenue
    from (select b.placement_id, sum(b.requests) requests, sum(b.fills) fills, sum(b.impressions) impressions,
                 sum(b.clicks) clicks, sum(b.invalid) invalid, sum(b.revenue) revenue
          from by_day b group by b.placement_id) c
    where p.id = c.placement_id
  ), spend as (
    insert into public.campaign_daily_spend as s (campaign_id, day, impressions, clicks, spent_usd)
    select t.campaign_id, t.day, sum(t.impressions), sum(t.clicks), sum(t.cost_usd)
    -- A campaign deleted since its ad was served has no spend to keep (and must not stop the run).
    from taken t where (t.impressions > 0 or t.clicks > 0) and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.day
    on conflict (campaign_id, day) do update set
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_usd   = s.spent_usd + excluded.spent_usd
  ), report as (
    insert into public.campaign_daily_stats as s (campaign_id, creative_id, app_id, day, fills, impressions, clicks, spent_usd)
    select t.campaign_id, t.creative_id, t.app_id, t.day, sum(t.fills), sum(t.impressions), sum(t.clicks), sum(t.cost_usd)
    from taken t
    where t.creative_id is not null and (t.fills > 0 or t.impressions > 0 or t.clicks > 0)
      and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.creative_id, t.app_id, t.day
    on conflict (campaign_id, day, creative_id, app_id) do update set
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_usd   = s.spent_usd + excluded.spent_usd
  ), promised as (
    insert into public.sdk_counters as k (name, period, used)
    select x.name, x.slot, x.micro
    from (select 'served:' || t.campaign_id as name, date_bin(interval '5 minutes', t.at, timestamptz '2000-01-01 00:00:00+00') as slot,
                 sum((t.promised_usd * 1000000)::bigint) as micro
          from taken t where t.campaign_id is not null and t.promised_usd > 0 group by 1, 2
          union all
          select 'billed:' || t.campaign_id, date_bin(interval '5 minutes', t.at, timestamptz '2000-01-01 00:00:00+00'),
                 sum((t.cost_usd * 1000000)::bigint)
          from taken t where t.campaign_id is not null and t.cost_usd > 0 group by 1, 2) x
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

-- ── The draw's layout ──────────────────────────────────────────────────────────────────────
create table public.campaign_draw (
  format       text not null check (format in ('floating_video', 'tooltip', 'sponsored_card', 'inline_text')),
  -- Where the campaign starts and ends along its format's layout: the daily budgets before it,
  -- and those and its own. No foreign key: the layout is rewritten whenever a campaign it holds
  -- changes, and a campaign it names is read, and checked, at each draw.
  lo           numeric not null check (lo >= 0),
  hi           numeric not null,
  campaign_id  uuid not null,
  primary key (format, lo),
  check (hi > lo)
);
alter table public.campaign_draw enable row level security;
alter table public.campaign_draw force row level security;
revoke all on public.campaign_draw from public, anon, authenticated, sdk, service_role;
grant select on public.campaign_draw to sdk, service_role;
create policy "Apps draw campaigns through the SDK"
  on public.campaign_draw for select to sdk using (true);
create policy "The service reads the layout of the draw"
  on public.campaign_draw for select to service_role using (true);

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
  select f.format, sum(c.daily_budget_usd) over w - c.daily_budget_usd, sum(c.daily_budget_usd) over w, c.id
  from public.campaigns c
  cross join unnest(array['floating_video', 'tooltip', 'sponsored_card', 'inline_text']) as f (format)
  where c.status = 'active' and (cardinality(c.formats) = 0 or f.format = any(c.formats))
  window w as (partition by f.format order by c.id rows between unbounded preceding and current row);
end $$;

revoke all on function public.campaign_draw_rebuild() from public, anon, authenticated, sdk, service_role;

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
                where (a.status, a.daily_budget_usd, a.formats) is distinct from (r.status, r.daily_budget_usd, r.formats)
                  and 'active' in (a.status, r.status)) then
    perform public.campaign_draw_rebuild();
  end if;
  return null;
end $$;

revoke all on function public.campaign_draw_changed() from public, anon, authenticated, sdk, service_role;

create trigger campaigns_drawn_in after insert on public.campaigns
  referencing new table as added for each statement execute function public.campaign_draw_changed();
create trigger campaigns_drawn_again after update on public.campaigns
  referencing old table as removed new table as added for each statement execute function public.campaign_draw_changed();
create trigger campaigns_drawn_out after delete on public.campaigns
  referencing old table as removed for each statement execute function public.campaign_draw_changed();

select public.campaign_draw_rebuild();

-- ── The decision ───────────────────────────────────────────────────────────────────────────
-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the eligible
-- creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: campaign running (sdk_campaign_running; its end date stops it only with a hard
-- stop) and targeting this placement of this app (sdk_campaign_targets), with an approved
-- creative of the format, paced budget left today and the client under its frequency cap
-- (sdk_campaign_creative); each rule has its file here. The decision remembers the client
-- (`p_client_hash`, lib/platform/http/client-ip.ts). The request is counted
-- (`ad_traffic_counts`, with the price a fill promises) whether or not it filled. Nothing here
-- writes a row another request writes too: serving waits on no one.
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
                                               p_client_hash text)
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
  v_promised numeric;
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
      from (select c.id, c.advertiser, c.daily_budget_usd, c.frequency_cap
            from (select d.campaign_id from public.campaign_draw d
                  where d.format = v_placement.format and d.lo <= v_point order by d.lo desc limit 1) d
            join public.campaigns c on c.id = d.campaign_id
            where public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
              and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                              v_placement.format, v_categories, v_app)
              and random()::numeric * c.daily_budget_usd * v_boost < public.sdk_draw_weight(c.daily_budget_usd, c.keywords, p_keywords)) c
      cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_usd, c.frequency_cap, v_placement.format,
                                                      v_app, p_client_hash, now()) s;
    end loop;
    if v_length is not null and v_pick.id is null then
      -- Every running campaign here, in the order of one draw by weight; the first that may fill.
      select s.* into v_pick
      from (select c.id, c.advertiser, c.daily_budget_usd, c.frequency_cap
            from public.campaigns c
            where public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
              and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                              v_placement.format, v_categories, v_app)
            order by -ln(1 - random()) / public.sdk_draw_weight(c.daily_budget_usd, c.keywords, p_keywords)) c
      cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_usd, c.frequency_cap, v_placement.format,
                                                      v_app, p_client_hash, now()) s
      limit 1;
    end if;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, client_hash, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, p_client_hash, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  if v_pick.id is not null then
    select public.sdk_cost_per_impression(v_placement.format, s) into v_promised from public.pricing_settings s;
  end if;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, campaign_id, creative_id, day, requests, fills, promised_usd)
  values (v_app, v_placement.id, p_api_key_id, v_pick.campaign_id, v_pick.id, (now() at time zone 'UTC')::date, 1,
          case when v_pick.id is null then 0 else 1 end, coalesce(v_promised, 0));
  if v_pick.id is null then
    return query select true, v_decision, v_placement.format, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
  else
    return query select true, v_decision, v_placement.format, v_pick.id, v_pick.advertiser, v_pick.headline, v_pick.body,
                        v_pick.cta, v_pick.image_url, v_pick.video_url;
  end if;
end $$;
revoke all on function public.sdk_serve_ad(uuid, text, text[], uuid, text) from public, anon, authenticated;
grant execute on function public.sdk_serve_ad(uuid, text, text[], uuid, text) to sdk;
