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
