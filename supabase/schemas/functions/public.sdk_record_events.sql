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
