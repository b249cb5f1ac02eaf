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
-- The draw: weight from sdk_draw_weight, and `-ln(1 - random()) / weight` is the smallest for
-- each campaign with probability weight / total. Campaigns are tried in that order and the first
-- that may fill wins, which is the same draw as among only those that may (the order of a
-- subset is the subset's draw), while only the first few cost a lookup: ordering the running
-- campaigns is one scan and sort, and each one reached a few index reads (migration
-- 20261207000000_advertisers: checking every campaign and creative made a decision 13 times
-- slower than the bare route with 1,000 campaigns).
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
