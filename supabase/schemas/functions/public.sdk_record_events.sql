-- One call per batch, as `sdk`. The caller has checked each event's token (signature, expiry,
-- app) and passes the decision it names; this decides the rest, in the order the rules are
-- documented (content/docs/sdk-integration.md, Counting rules). Each event is
-- `{n, id, kind, decision_id, visible_share, visible_seconds, area_px}` (the last three: the SDK's
-- viewability evidence, for impressions). Each event answers its `n` and one outcome:
--   recorded    billable, counted, on its decision;
--   duplicate   its id was recorded before (a retry): nothing changes;
--   invalid     recorded in `ad_events` as invalid traffic, never billed, with the reason
--               (`unknown_decision` alone is answered without a row: there is no ad to name).
--
-- What a batch mostly holds, first impressions that meet the viewability rule, is recorded in
-- one statement: each decision takes its impression only while it has none (once per ad), which
-- a concurrent batch for the same decision waits on and then finds taken. Everything else
-- (clicks, retries, invalid traffic) is decided one event at a time, impressions before clicks,
-- so a batch holding both for one decision counts both. The counts billed go to
-- `ad_traffic_counts` in the same transaction. The rules are functions with their own files:
-- sdk_invalid_reason names the first one an event fails (sdk_viewable, sdk_already_counted,
-- sdk_click_before_impression, sdk_recent_clicks); sdk_cost_per_impression and
-- sdk_publisher_revenue say what it is worth.
create or replace function public.sdk_record_events(p_events jsonb, p_ip_hash text, p_bot boolean)
returns table (n integer, outcome text, reason text)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_user uuid := public.sdk_user_id();
  v_today date := (now() at time zone 'UTC')::date;
  v_pricing public.pricing_settings;
  v_recorded integer[] := '{}';
  v_event record;
  v_decision record;
  v_viewable boolean;
  v_reason text;
  v_cost numeric;
  v_taken boolean;
begin
  select * into v_pricing from public.pricing_settings;

  -- The common case, in one statement.
  if not p_bot then
    with input as (
      select e.n, e.id, e.decision_id, e.visible_share, e.visible_seconds, e.area_px,
             row_number() over (partition by e.id order by e.n) as nth_of_id,
             row_number() over (partition by e.decision_id order by e.n) as nth_of_decision
      from jsonb_to_recordset(p_events)
           as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
      where e.kind = 'impression'
    ), impressed as (
      update public.ad_decisions d set
        impression_event_id = i.id, impressed_at = now(),
        visible_share = least(i.visible_share, 1), visible_seconds = least(i.visible_seconds, 86400),
        cost_usd = public.sdk_cost_per_impression(p.format, v_pricing),
        revenue_usd = public.sdk_publisher_revenue(public.sdk_cost_per_impression(p.format, v_pricing), v_pricing)
      from input i, public.placements p
      where d.id = i.decision_id and i.nth_of_id = 1 and i.nth_of_decision = 1
        and d.creative_id is not null and p.id = d.placement_id
        and not public.sdk_already_counted('impression', d.impression_event_id, d.click_event_id)
        and d.click_event_id is distinct from i.id
        and public.sdk_viewable(p.format, i.visible_share, i.visible_seconds, i.area_px)
        -- An id already recorded as invalid traffic stays what it was: the slow path answers `duplicate`.
        and not exists (select 1 from public.ad_events x where x.placement_id = d.placement_id and x.event_id = i.id)
      returning i.n, d.placement_id, d.campaign_id, d.revenue_usd, d.cost_usd
    ), counted as (
      insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, revenue_usd, cost_usd)
      select v_app, m.placement_id, m.campaign_id, v_today, count(*), sum(m.revenue_usd), sum(m.cost_usd)
      from impressed m group by m.placement_id, m.campaign_id
    )
    select coalesce(array_agg(m.n), '{}') into v_recorded from impressed m;
  end if;
  if cardinality(v_recorded) > 0 then
    return query select recorded, 'recorded'::text, null::text from unnest(v_recorded) as recorded;
  end if;
  if cardinality(v_recorded) = jsonb_array_length(p_events) then
    return;
  end if;

  -- Everything else, one at a time.
  for v_event in
    select e.n, e.id, e.kind, e.decision_id, e.visible_share, e.visible_seconds, e.area_px
    from jsonb_to_recordset(p_events)
         as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
    where not (e.n = any(v_recorded))
    order by e.kind = 'click', e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.impression_event_id, d.click_event_id, p.format
    into v_decision
    from public.ad_decisions d join public.placements p on p.id = d.placement_id
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

    -- The first counting rule the event fails. The 3-hour rule is the one that reads other
    -- decisions, and for concurrent clicks of one address on one ad its check and the click's
    -- update must be one step: a lock, taken only for a click that no other rule refuses, then
    -- the rules again with what the check found.
    v_viewable := public.sdk_viewable(v_decision.format, v_event.visible_share, v_event.visible_seconds, v_event.area_px);
    v_reason := public.sdk_invalid_reason(v_event.kind, p_bot, v_viewable, v_decision.impression_event_id, v_decision.click_event_id,
                                          p_repeat_click => false);
    if v_reason is null and v_event.kind = 'click' then
      perform pg_advisory_xact_lock(hashtextextended(coalesce(p_ip_hash, '') || v_decision.creative_id::text, 0));
      v_reason := public.sdk_invalid_reason(v_event.kind, p_bot, v_viewable, v_decision.impression_event_id, v_decision.click_event_id,
                    p_repeat_click => exists (select 1 from public.sdk_recent_clicks(v_decision.creative_id, p_ip_hash, now())));
    end if;

    if v_reason is null then
      v_cost := case when v_event.kind = 'impression' then public.sdk_cost_per_impression(v_decision.format, v_pricing) else 0 end;
      -- Once per ad, and a click after its impression, again in the update itself: a concurrent
      -- batch that took the decision first is waited on, then found here.
      if v_event.kind = 'impression' then
        update public.ad_decisions set
          impression_event_id = v_event.id, impressed_at = now(),
          visible_share = least(v_event.visible_share, 1), visible_seconds = least(v_event.visible_seconds, 86400),
          cost_usd = v_cost, revenue_usd = public.sdk_publisher_revenue(v_cost, v_pricing)
        where id = v_decision.id and not public.sdk_already_counted('impression', impression_event_id, click_event_id)
        returning true into v_taken;
      else
        update public.ad_decisions set click_event_id = v_event.id, clicked_at = now(), click_ip_hash = p_ip_hash
        where id = v_decision.id and not public.sdk_already_counted('click', impression_event_id, click_event_id)
          and not public.sdk_click_before_impression('click', impression_event_id)
        returning true into v_taken;
      end if;
      if coalesce(v_taken, false) then
        v_taken := null;
        insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, clicks, revenue_usd, cost_usd)
        values (v_app, v_decision.placement_id, v_decision.campaign_id, v_today,
                case when v_event.kind = 'impression' then 1 else 0 end, case when v_event.kind = 'click' then 1 else 0 end,
                public.sdk_publisher_revenue(v_cost, v_pricing), v_cost);
        return query select v_event.n, 'recorded'::text, null::text;
        continue;
      end if;
      -- A concurrent batch took it first (it waited on the row): the same event, or another.
      if exists (select 1 from public.ad_decisions x where x.id = v_decision.id
                 and v_event.id = case when v_event.kind = 'impression' then x.impression_event_id else x.click_event_id end) then
        return query select v_event.n, 'duplicate'::text, null::text;
        continue;
      end if;
      v_reason := 'already_counted';
    end if;

    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            v_event.kind, false, v_reason, p_ip_hash)
    on conflict do nothing
    returning true into v_taken;
    if coalesce(v_taken, false) then
      v_taken := null;
      return query select v_event.n, 'invalid'::text, v_reason;
    else
      return query select v_event.n, 'duplicate'::text, null::text;
    end if;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, boolean) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, boolean) to sdk;
