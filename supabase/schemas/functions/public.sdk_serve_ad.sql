-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the
-- eligible creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: creative active (approved in review), campaign running (sdk_campaign_running; its
-- end date stops it only with a hard stop), targeting this app (its categories included, none
-- excluded, the app not excluded: migration 20261207000000_advertisers), paced budget left today
-- (sdk_day_share, sdk_paced_budget_left) counting what it was billed today (its `budget:`
-- counter) and what the ads it served in the impression window may still bill
-- (its `served:` less its `billed:` counters of the last 15 minutes, which the roll-up keeps),
-- under the client's frequency cap (sdk_client_fills, sdk_under_frequency_cap); each rule has its
-- file here. The decision remembers the client (`p_client_hash`, lib/platform/http/client-ip.ts).
-- The request is counted (`ad_traffic_counts`, with the price a fill promises) whether or not it
-- filled. Nothing here writes a row another request writes too: serving waits on no one. The
-- draw: weight from sdk_draw_weight, and `-ln(1 - random()) / weight` is the smallest for each
-- campaign with probability weight / total.
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
  v_candidate record;
  v_creative record;
  v_day_share numeric := public.sdk_day_share(now());
  v_day timestamptz := date_trunc('day', now(), 'UTC');
  v_promised_since timestamptz := public.sdk_promise_slot(now() - interval '15 minutes');
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
    -- The campaigns that may serve here, in the order of the draw by weight; for each in turn, one
    -- of its approved creatives of the placement's format, at random (a campaign with more
    -- creatives does not win more often), and the first that has one, paced budget left and the
    -- client under its frequency cap wins. Drawing every candidate's place at once and checking
    -- in that order is the same draw as among only those that pass (the smallest of
    -- `-ln(1 - random()) / weight` over them), but what costs a lookup (a creative, counters,
    -- the client's decisions) runs for the first few candidates, not for every campaign and
    -- creative in the market (migration 20261207000000_advertisers: with 1,000 campaigns,
    -- checking all of them made a decision 13 times slower than the bare route).
    for v_candidate in
      select c.id as campaign_id, c.advertiser, c.daily_budget_usd, c.frequency_cap
      from public.campaigns c
      where public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
        and (cardinality(c.formats) = 0 or v_placement.format = any(c.formats))
        and (cardinality(c.include_categories) = 0 or c.include_categories && v_categories)
        and not (c.exclude_categories && v_categories)
        and not (v_app = any(c.excluded_apps))
      order by -ln(1 - random()) / public.sdk_draw_weight(c.daily_budget_usd, c.keywords, p_keywords)
    loop
      select cr.id, cr.campaign_id, v_candidate.advertiser as advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url
      into v_creative
      from public.creatives cr
      where cr.campaign_id = v_candidate.campaign_id and cr.format = v_placement.format and cr.status = 'active'
      order by random()
      limit 1;
      continue when not found;
      if public.sdk_paced_budget_left(
           (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
            where k.name = 'budget:' || v_candidate.campaign_id and k.period = v_day)
           + greatest(0, (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                          where k.name = 'served:' || v_candidate.campaign_id and k.period >= v_promised_since)
                         - (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                            where k.name = 'billed:' || v_candidate.campaign_id and k.period >= v_promised_since)),
           v_candidate.daily_budget_usd, v_day_share)
         and public.sdk_under_frequency_cap((select count(*) from public.sdk_client_fills(v_app, p_client_hash, v_candidate.campaign_id, now())),
                                            v_candidate.frequency_cap) then
        v_pick := v_creative;
        exit;
      end if;
    end loop;
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
