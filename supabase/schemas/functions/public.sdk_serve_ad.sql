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
