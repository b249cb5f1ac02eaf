-- Cost per click (issue 44). A campaign may bid per click instead of buying impressions at the
-- CPM: `max_cpc_micro`, its bid, at or above the floor in the pricing settings (`cpc_floor_micro`,
-- a price like the CPMs, set by staff). It draws only where its bid times its estimated click rate
-- reaches the format's price per impression (public.sdk_cpc_clears), the rate being its clicks per
-- impression on the placement (`campaign_placement_stats`, kept by the roll-up) smoothed toward a
-- published prior. Its impressions bill nothing; each valid click bills its bid, from the
-- campaign's budget of the day and its advertiser's funds, in the click's own transaction
-- (public.sdk_record_events), and the publisher earns its share of it, posted to the ledger by the
-- roll-up as impressions are.

alter table public.pricing_settings add column cpc_floor_micro bigint not null default 100000;
alter table public.pricing_settings add constraint pricing_settings_cpc_floor_micro_check
  check (cpc_floor_micro > 0 and cpc_floor_micro % 100 = 0);
alter table public.pricing_changes add column cpc_floor_micro bigint not null default 100000;
alter table public.pricing_changes add constraint pricing_changes_cpc_floor_micro_check
  check (cpc_floor_micro > 0 and cpc_floor_micro % 100 = 0);

-- What a decision's click billed, apart from what its impression billed (`cost_micro`,
-- `revenue_micro`): a click is billed on its own day, and money:check follows each to its day.
alter table public.ad_decisions
  add column click_cost_micro bigint not null default 0 constraint ad_decisions_click_cost_micro_check check (click_cost_micro >= 0),
  add column click_revenue_micro bigint not null default 0 constraint ad_decisions_click_revenue_micro_check check (click_revenue_micro >= 0),
  -- The bid per click the ad was served with (null: it pays per impression), fixed when drawn.
  add column cpc_bid_micro bigint constraint ad_decisions_cpc_bid_micro_check check (cpc_bid_micro > 0);
grant update (click_cost_micro, click_revenue_micro) on public.ad_decisions to sdk;
grant insert (cpc_bid_micro) on public.ad_decisions to sdk;

-- What publishers earned from clicks, beside the totals that hold it (the roll-up adds it up).
alter table public.daily_stats add column click_revenue_micro bigint not null default 0;
alter table public.placements add column click_revenue_micro bigint not null default 0;

-- A campaign's bid per click (null: a CPM campaign), to the hundredth of a cent.
alter table public.campaigns add column max_cpc_micro bigint;
alter table public.campaigns add constraint campaigns_max_cpc_micro_check
  check (max_cpc_micro is null or (max_cpc_micro > 0 and max_cpc_micro % 100 = 0 and max_cpc_micro <= 100000000));
grant insert (max_cpc_micro), update (max_cpc_micro) on public.campaigns to authenticated;

-- Each campaign's impressions and clicks per placement, of all time (public.roll_up_ad_traffic).
create table public.campaign_placement_stats (
  campaign_id uuid not null references public.campaigns (id) on delete cascade,
  placement_id uuid not null references public.placements (id) on delete cascade,
  impressions bigint not null default 0 constraint campaign_placement_stats_impressions_check check (impressions >= 0),
  clicks bigint not null default 0 constraint campaign_placement_stats_clicks_check check (clicks >= 0),
  constraint campaign_placement_stats_pkey primary key (campaign_id, placement_id)
);
alter table public.campaign_placement_stats enable row level security;
alter table public.campaign_placement_stats force row level security;
create policy "The ad server reads the click rates" on public.campaign_placement_stats as permissive for select to sdk using (true);
create policy "The service keeps the click rates" on public.campaign_placement_stats as permissive for all to service_role using (true) with check (true);
revoke all on public.campaign_placement_stats from public, anon, authenticated, sdk, service_role;
grant select on public.campaign_placement_stats to sdk;
grant select, insert, update on public.campaign_placement_stats to service_role;

-- Whether a cost-per-click campaign may draw on a placement by its price (migration
-- 20261221000300_cost_per_click): when its bid per click is at least the floor in the pricing
-- settings and its expected earnings per impression there, the bid times its estimated click rate,
-- reach the format's price per impression, so a publisher never earns less per impression from it
-- than from a CPM ad. The estimated click rate is the campaign's on this placement
-- (`campaign_placement_stats`, kept by the roll-up) smoothed toward the published prior, 1%
-- weighted as 1,000 impressions: (clicks + 10) / (impressions + 1,000). In integers:
-- bid × (clicks + 10) ≥ price per impression × (impressions + 1,000). One row, `clears`.
-- A rule of the money path: `language sql`, a table function so that PostgreSQL inlines it into
-- public.sdk_serve_ad, which asks it only of a campaign with a bid (a CPM campaign's is null).
create or replace function public.sdk_cpc_clears(p_campaign uuid, p_placement uuid, p_bid bigint, p_format text)
returns table (clears boolean)
language sql stable
as $$
  select p_bid >= s.cpc_floor_micro
         and p_bid::numeric * (coalesce(t.clicks, 0) + 10)
             >= public.sdk_cost_per_impression(p_format, s)::numeric * (coalesce(t.impressions, 0) + 1000)
  from public.pricing_settings s
  left join public.campaign_placement_stats t on t.campaign_id = p_campaign and t.placement_id = p_placement
$$;

revoke all on function public.sdk_cpc_clears(uuid, uuid, bigint, text) from public, anon, authenticated;
grant execute on function public.sdk_cpc_clears(uuid, uuid, bigint, text) to sdk, service_role;

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
-- A cost-per-click campaign draws only where its bid times its estimated click rate there is at
-- least the format's price per impression (public.sdk_cpc_clears, migration
-- 20261221000300_cost_per_click): a publisher never earns less per impression from it than from a
-- CPM ad.
-- A campaign the client hid on this app in the last 30 days (`ad_hides`, under
-- public.sdk_hider; migration 20261217000000_ad_hides) is left out of every draw.
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
                                               p_client_hash text, p_network_hash text, p_network_factor integer,
                                               p_market_version bigint default null, p_verdict text default null,
                                               p_candidates uuid[] default null, p_relevance numeric[] default null,
                                               p_matched jsonb default null)
returns table (
  found          boolean,
  decision_id    uuid,
  format         text,
  creative_id    uuid,
  advertiser     text,
  headline       text,
  body           text,
  cta            text,
  image_url      text,
  video_url      text,
  no_fill_reason text,
  relevance      numeric,
  matched_hints  text[],
  stale          boolean
)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_categories text[];
  v_blocked_advertisers text[];
  v_blocked_categories text[];
  v_hidden uuid[];
  v_placement record;
  v_pick record;
  v_decision uuid;
  v_promised bigint;
  v_length numeric;
  v_boost numeric;
  v_point numeric;
  v_reason text;
  v_relevance numeric;
  v_matched text[];
  v_bid bigint;
begin
  select p.id, p.format, p.status, p.min_relevance into v_placement from public.placements p where p.id = p_placement_id;
  if not found then
    return query select false, null::uuid, null::text, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text,
                        null::text, null::numeric, null::text[], false;
    return;
  end if;
  if p_market_version is not null and p_market_version <> (select m.version from public.ad_market m) then
    return query select true, null::uuid, null::text, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text,
                        null::text, null::numeric, null::text[], true;
    return;
  end if;
  select a.category, (select array_agg(lower(x)) from unnest(a.blocked_advertisers) x), a.blocked_categories
  into v_categories, v_blocked_advertisers, v_blocked_categories
  from public.apps a where a.id = v_app;
  v_categories := coalesce(v_categories, '{}');
  v_blocked_advertisers := coalesce(v_blocked_advertisers, '{}');
  v_blocked_categories := coalesce(v_blocked_categories, '{}');
  v_hidden := array(select h.campaign_id from public.ad_hides h
                    where h.app_id = v_app and h.hider = public.sdk_hider(v_app, p_client_hash) and h.hidden_until > now());
  -- Nothing picked unless the placement is active and a creative is eligible.
  select null::uuid as id, null::uuid as campaign_id, null::numeric as relevance, null::bigint as ord into v_pick;
  if v_placement.status <> 'active' then
    v_reason := 'placement_inactive';
  elsif p_verdict is not null then
    v_reason := p_verdict;
  elsif p_candidates is not null then
    -- The candidates at or above min_relevance that run here and are not blocked, in the order of
    -- one draw by weight; the first that may fill.
    select s.*, c.relevance, c.ord into v_pick
    from (select c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap, x.relevance, x.ord
          from unnest(p_candidates, p_relevance) with ordinality as x(id, relevance, ord)
          join public.campaigns c on c.id = x.id
          where x.relevance > 0 and x.relevance >= v_placement.min_relevance
            and public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
            and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                            v_placement.format, v_categories, v_app)
            and not public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, v_blocked_advertisers, v_blocked_categories)
            and c.id <> all(v_hidden)
            and (c.max_cpc_micro is null
                 or exists (select 1 from public.sdk_cpc_clears(c.id, v_placement.id, c.max_cpc_micro, v_placement.format) x where x.clears))
          order by -ln(1 - random()) / public.sdk_relevant_weight(public.sdk_draw_weight(c.daily_budget_micro, c.keywords, p_keywords), x.relevance)) c
    cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap, v_placement.format,
                                                    v_app, p_network_hash, p_network_factor, now()) s
    limit 1;
    if v_pick.id is null and not exists (select 1 from public.campaign_draw d where d.format = v_placement.format) then
      v_reason := 'no_eligible_campaign';
    elsif v_pick.id is null then
      -- Of the candidates at or above min_relevance: none (below_relevance); none running here
      -- (no_eligible_campaign); all of those blocked (blocked); else none could fill now.
      select case when count(*) = 0 then 'below_relevance'
                  when count(*) filter (where h.here) = 0 then 'no_eligible_campaign'
                  when bool_and(h.blocked) filter (where h.here) then 'blocked'
                  else 'no_eligible_campaign' end
      into v_reason
      from (select public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
                   and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                                   v_placement.format, v_categories, v_app) as here,
                   public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, v_blocked_advertisers, v_blocked_categories) as blocked
            from unnest(p_candidates, p_relevance) as x(id, relevance)
            join public.campaigns c on c.id = x.id
            where x.relevance > 0 and x.relevance >= v_placement.min_relevance) h;
    else
      v_relevance := v_pick.relevance;
      v_matched := array(select jsonb_array_elements_text(p_matched -> (v_pick.ord::integer - 1)));
    end if;
  else
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
              and not public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, v_blocked_advertisers, v_blocked_categories)
              and c.id <> all(v_hidden)
              and random()::numeric * c.daily_budget_micro * v_boost < public.sdk_draw_weight(c.daily_budget_micro, c.keywords, p_keywords)
              and (c.max_cpc_micro is null
                 or exists (select 1 from public.sdk_cpc_clears(c.id, v_placement.id, c.max_cpc_micro, v_placement.format) x where x.clears))) c
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
              and not public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, v_blocked_advertisers, v_blocked_categories)
              and c.id <> all(v_hidden)
              and (c.max_cpc_micro is null
                 or exists (select 1 from public.sdk_cpc_clears(c.id, v_placement.id, c.max_cpc_micro, v_placement.format) x where x.clears))
            order by -ln(1 - random()) / public.sdk_draw_weight(c.daily_budget_micro, c.keywords, p_keywords)) c
      cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_micro, c.frequency_cap, v_placement.format,
                                                      v_app, p_network_hash, p_network_factor, now()) s
      limit 1;
    end if;
    if v_pick.id is null then
      -- Blocked when campaigns run here and the app blocked every one of them.
      select case when bool_and(public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, v_blocked_advertisers, v_blocked_categories))
                  then 'blocked' else 'no_eligible_campaign' end
      into v_reason
      from public.campaigns c
      where v_length is not null and cardinality(v_blocked_advertisers) + cardinality(v_blocked_categories) > 0
        and public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
        and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                        v_placement.format, v_categories, v_app);
    end if;
  end if;
  -- What the ad costs is fixed now, as it was drawn: the format's price per impression, or the
  -- campaign's bid per click (kept on the decision: a later change of the campaign's bid or way of
  -- paying never reaches an ad already served).
  if v_pick.id is not null then
    select public.sdk_cost_per_impression(v_placement.format, s), c.max_cpc_micro into v_promised, v_bid
    from public.pricing_settings s, public.campaigns c where c.id = v_pick.campaign_id;
  end if;
  -- A decision that filled nothing keeps no client, network or session: nothing is billed or
  -- capped by it, and its reason (`sensitive` among them) is then tied to no one.
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, client_hash, network_hash, campaign_id, creative_id,
                                   relevance, matched_hints, no_fill_reason, cpc_bid_micro)
  values (v_app, v_placement.id, p_api_key_id, case when v_pick.id is not null then p_session_id end,
          case when v_pick.id is not null then p_client_hash end, case when v_pick.id is not null then p_network_hash end,
          v_pick.campaign_id, v_pick.id, v_relevance, v_matched, v_reason, v_bid)
  returning id into v_decision;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, campaign_id, creative_id, day, requests, fills, promised_micro, no_fill_reason)
  values (v_app, v_placement.id, p_api_key_id, v_pick.campaign_id, v_pick.id, (now() at time zone 'UTC')::date, 1,
          case when v_pick.id is null then 0 else 1 end, coalesce(v_promised, 0), v_reason);
  if v_pick.id is null then
    return query select true, v_decision, v_placement.format, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text,
                        v_reason, null::numeric, null::text[], false;
  else
    return query select true, v_decision, v_placement.format, v_pick.id, v_pick.advertiser, v_pick.headline, v_pick.body,
                        v_pick.cta, v_pick.image_url, v_pick.video_url, null::text, v_relevance, v_matched, false;
  end if;
end $$;
revoke all on function public.sdk_serve_ad(uuid, text, text[], uuid, text, text, integer, bigint, text, uuid[], numeric[], jsonb) from public, anon, authenticated;
grant execute on function public.sdk_serve_ad(uuid, text, text[], uuid, text, text, integer, bigint, text, uuid[], numeric[], jsonb) to sdk;

-- One call per batch, as `sdk`. The caller has checked each event's token (signature, expiry,
-- app) and passes the decision it names; this decides the rest (impressions, clicks and hides), in the order the rules are
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
--      still running and within its budget, then one per address and ad in 3 hours);
--   6. hides, one at a time, their decisions in id order (migration 20261217000000_ad_hides):
--      once per ad, from the client it was served to; a hide bills nothing, keeps the campaign
--      from that client on this app for 30 days (`ad_hides`, under public.sdk_hider, which
--      public.sdk_serve_ad reads) and is counted for both sides' reports. A refused hide is kept
--      for review like a refused click, but is no invalid traffic: it bills nothing either way.
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
  v_took record;
  v_kept integer[];
  v_cost bigint;
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
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.client_hash, d.created_at, d.impression_event_id, d.click_event_id,
           d.hide_event_id, d.cpc_bid_micro
    from public.ad_decisions d
    where d.id in (select e.decision_id from events e) and d.creative_id is not null
    order by d.id
    for update
  ), judged as materialized (
    -- Materialized: the rules run once per impression (inlined, the reason would be computed
    -- again wherever the steps below read it).
    select i.n, i.id, d.id as decision_id, d.placement_id, d.campaign_id, c.advertiser_id, d.creative_id, p.format, d.created_at as served_at,
           i.visible_share, i.visible_seconds,
           -- A cost-per-click campaign's impression is free: its clicks are billed (step 5).
           case when d.cpc_bid_micro is null then public.sdk_cost_per_impression(p.format, v_pricing) else 0 end as cost_micro, c.daily_budget_micro,
           case
             when d.id is null then 'unknown_decision'
             when i.nth_of_id > 1 or i.id in (d.impression_event_id, d.click_event_id, d.hide_event_id)
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
          from capped c where c.reason is null and c.cost_micro > 0 group by c.campaign_id, c.advertiser_id, c.format) as w
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

  -- Most batches hold impressions only.
  if not p_events @> '[{"kind": "click"}]' and not p_events @> '[{"kind": "hide"}]' then
    return;
  end if;

  -- 5. Clicks, one at a time, after the impressions, so a batch holding both for one ad counts both.
  for v_event in
    select e.n, e.id, e.decision_id
    from jsonb_to_recordset(p_events) as e(n integer, id text, kind text, decision_id uuid)
    where e.kind = 'click'
    order by e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.impression_event_id, d.click_event_id, d.hide_event_id,
           public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()) as running,
           public.sdk_budget_spent(d.campaign_id, v_day) >= c.daily_budget_micro as spent,
           d.cpc_bid_micro, c.advertiser_id, c.daily_budget_micro
    into v_decision
    from public.ad_decisions d left join public.campaigns c on c.id = d.campaign_id
    where d.id = v_event.decision_id;
    if not found or v_decision.creative_id is null then
      -- A token names a decision that filled; anything else is not an ad of this app.
      return query select v_event.n, 'invalid'::text, 'unknown_decision'::text;
      continue;
    end if;
    if v_event.id in (v_decision.impression_event_id, v_decision.click_event_id, v_decision.hide_event_id)
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
      -- Once per ad, and after its impression: claimed first (the update's own condition, which a
      -- concurrent batch's claim makes false), billed after, so nothing is billed for a click that
      -- another batch counted.
      update public.ad_decisions set click_event_id = v_event.id, clicked_at = now(), click_ip_hash = p_ip_hash
      where id = v_decision.id and not public.sdk_already_counted('click', impression_event_id, click_event_id)
        and not public.sdk_click_before_impression('click', impression_event_id)
      returning true into v_taken;
      if coalesce(v_taken, false) then
        v_taken := null;
        -- A cost-per-click ad's click is billed here, as an impression is (step 3): the bid the ad
        -- was served with (public.sdk_serve_ad keeps it on the decision), taken from its campaign's
        -- budget of the day and then its advertiser's funds, in the click's transaction, so a
        -- campaign is billed at most its budget and one click's price, an advertiser at most its
        -- funds and one click's price (migration 20261221000300_cost_per_click). What either
        -- refuses is `over_budget`, and the click is then not counted either.
        v_cost := 0;
        if v_decision.cpc_bid_micro is not null then
          select * into v_took from public.sdk_take_budget(v_decision.campaign_id, v_day, 1, v_decision.cpc_bid_micro,
                                                           v_decision.daily_budget_micro, v_decision.advertiser_id);
          v_kept := null;
          if v_took.funds <> 0 and v_decision.advertiser_id is not null then
            v_kept := public.sdk_take_funds(v_decision.advertiser_id, v_took.funds, v_day, array[v_decision.campaign_id], array[v_took.funds],
                                            array[v_decision.cpc_bid_micro], array[v_took.items]);
          end if;
          if v_took.items < 1 or coalesce(v_kept[1], 1) < 1 then
            update public.ad_decisions set click_event_id = null, clicked_at = null, click_ip_hash = null where id = v_decision.id;
            v_reason := 'over_budget';
          else
            v_cost := v_decision.cpc_bid_micro;
            update public.ad_decisions set click_cost_micro = v_cost, click_revenue_micro = public.sdk_publisher_revenue(v_cost, v_pricing)
            where id = v_decision.id;
          end if;
        end if;
        if v_reason is null then
          insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, clicks, revenue_micro, cost_micro)
          values (v_app, v_decision.placement_id, v_decision.campaign_id, v_decision.creative_id, v_today, 1,
                  public.sdk_publisher_revenue(v_cost, v_pricing), v_cost);
          return query select v_event.n, 'recorded'::text, null::text;
          continue;
        end if;
      else
        v_reason := 'already_counted';
      end if;
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

  -- 6. Hides, one at a time, after the clicks, in the decisions' order (as every lock of a batch
  -- is taken). Each locks its decision: two hides of one ad, in two batches, count once.
  for v_event in
    select e.n, e.id, e.decision_id
    from jsonb_to_recordset(p_events) as e(n integer, id text, kind text, decision_id uuid)
    where e.kind = 'hide'
    order by e.decision_id, e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.client_hash, d.impression_event_id, d.click_event_id, d.hide_event_id
    into v_decision
    from public.ad_decisions d
    where d.id = v_event.decision_id
    for update;
    if not found or v_decision.creative_id is null then
      return query select v_event.n, 'invalid'::text, 'unknown_decision'::text;
      continue;
    end if;
    if v_event.id in (v_decision.impression_event_id, v_decision.click_event_id, v_decision.hide_event_id)
       or exists (select 1 from public.ad_events x where x.placement_id = v_decision.placement_id and x.event_id = v_event.id) then
      return query select v_event.n, 'duplicate'::text, null::text;
      continue;
    end if;
    v_reason := public.sdk_event_reason('hide', p_bot, v_decision.impression_event_id, v_decision.click_event_id, true, false,
                                        p_same_client => v_decision.client_hash = p_client_hash, p_hide_event_id => v_decision.hide_event_id);
    if v_reason is null then
      update public.ad_decisions set hide_event_id = v_event.id, hidden_at = now() where id = v_decision.id and hide_event_id is null;
      insert into public.ad_hides as h (app_id, hider, campaign_id, hidden_until)
      values (v_app, public.sdk_hider(v_app, p_client_hash), v_decision.campaign_id, now() + interval '30 days')
      on conflict (app_id, hider, campaign_id) do update set hidden_until = excluded.hidden_until;
      insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, hides)
      values (v_app, v_decision.placement_id, v_decision.campaign_id, v_decision.creative_id, v_today, 1);
      return query select v_event.n, 'recorded'::text, null::text;
      continue;
    end if;
    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            'hide', false, v_reason, p_ip_hash)
    on conflict do nothing;
    return query select v_event.n, 'invalid'::text, v_reason;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) to sdk;

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

-- The account API's campaigns gain how each pays (its bid per click).
-- GET /api/v1/me/campaigns and the MCP tool `list_my_campaigns` (scope campaigns:read, migration
-- 20261208000000_account_campaigns): the caller's advertiser balance, exactly, in micro-dollars
-- (the postings of their `advertiser` ledger account: top-ups in, ad spend out), and their
-- campaigns, oldest first, each with its totals from the daily figures the roll-up keeps
-- (`campaign_daily_stats`: impressions, clicks, hides by users, and spend in micro-dollars,
-- exact, and the conversions counted and their value, migration 20261221000100_campaign_conversions;
-- its bid per click when it pays per click, migration 20261221000300_cost_per_click)
-- and its creatives, oldest first. A user who is not an advertiser has no campaigns and no
-- advertiser account: an empty list and 0. Like the other account reads it runs as its caller, so row-level
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
                                       c.context_hints, c.excluded_phrases, c.advertiser_category, c.attribution_window_days, c.max_cpc_micro,
                                       coalesce(s.impressions, 0)::bigint as impressions, coalesce(s.clicks, 0)::bigint as clicks,
                                       coalesce(s.hides, 0)::bigint as hides,
                                       coalesce(s.spend_micro, 0)::bigint as spend_micro, coalesce(s.conversions, 0)::bigint as conversions,
                                       coalesce(s.conversion_value_micro, 0)::bigint as conversion_value_micro,
                                       coalesce(k.creatives, '[]') as creatives
                                from public.campaigns c
                                left join (select d.campaign_id, sum(d.impressions) as impressions, sum(d.clicks) as clicks,
                                                  sum(d.hides) as hides, sum(d.spent_micro) as spend_micro, sum(d.conversions) as conversions,
                                                  sum(d.conversion_value_micro) as conversion_value_micro
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

-- The operator's review shows how a campaign pays.
-- What waits for the operator on the advertisers' side (migration 20261207000000_advertisers),
-- for /ops: the manual top-ups asked for and not paid yet (to match against the payments that
-- arrive; data buyers' too, with the account they fund: migration 20261209000000_data_buyers), the campaigns sent for review with all their creatives, and the creatives waiting for
-- review in campaigns already approved (new or edited), oldest first; and each advertiser's
-- balance. Creative text goes out as data, and the console renders it as text. Refused to anyone
-- but staff (public.is_staff). Amounts in micro-dollars. Each campaign comes with its
-- advertiser's time zone, in which its dates are days (migration 20261220000100_ops_campaign_time_zone):
-- the operator reads the same days the advertiser chose.
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
                               c.lifetime_budget_micro, c.daily_cap_micro, c.max_cpc_micro, c.formats, c.keywords, c.include_categories, c.exclude_categories,
                               c.context_hints, c.excluded_phrases, c.advertiser_category,
                               (select p.time_zone from public.advertiser_profiles p where p.user_id = c.advertiser_id) as time_zone,
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

-- The account API's placements gain what clicks earned.
-- GET /api/v1/me/apps: the caller's apps that are not archived, with their allowed origins,
-- excluded topics and blocks, and their placements with the rolled-up figures (fills and invalid
-- traffic included; what clicks of ads paid per click earned apart, migration
-- 20261221000300_cost_per_click) and min_relevance. Runs as its caller: row-level
-- security alone decides whose rows these are. (Earnings still count every placement: money
-- earned stays earned.)
create or replace function public.account_apps() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'apps', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, name, slug, description, category, allowed_origins, excluded_topics, blocked_advertisers,
                                  blocked_categories, created_at
                           from public.apps where archived_at is null) r),
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select p.id, p.app_id, p.name, p.format, p.status, p.impressions, p.clicks, p.revenue_micro, p.click_revenue_micro,
                                        p.ad_requests, p.fills, p.invalid_events, p.min_relevance, p.created_at
                                 from public.placements p join public.apps a on a.id = p.app_id
                                 where a.archived_at is null) r))
          from public.users u);
end $$;

revoke execute on function public.account_apps() from public, anon;
grant execute on function public.account_apps() to authenticated;

-- The earnings' placements gain what clicks earned.
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
                     from (select id, app_id, name, format, status, impressions, clicks, revenue_micro, click_revenue_micro, ad_requests, fills, invalid_events,
                                  min_relevance, created_at
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
