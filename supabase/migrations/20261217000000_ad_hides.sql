-- Issue 41: "Hide this ad". A user who hides an ad sends a `hide` event with the ad's token
-- (POST /functions/v1/events): it is recorded once per ad, from the client the ad was served to,
-- never billed, and keeps that campaign from that client on that app for 30 days.
--
-- - ad_decisions.hide_event_id / hidden_at: the hide an ad counted (once per ad, like its
--   impression and its click).
-- - ad_events.kind: a refused hide is kept for review like a refused click (it is no invalid
--   traffic: a hide bills nothing either way).
-- - ad_hides: (app, client, campaign) and until when. Per app: a hide on one app says nothing to
--   another. The client is kept as public.sdk_hider: the keyed hash of its network and browser
--   (lib/platform/http/client-ip.ts) hashed again with the app's id, another on every app, so no
--   list of what one person hid across apps can be made from it. Swept by the roll-up once over.
-- - hides counted like clicks: ad_traffic_counts, then daily_stats (the publisher's report) and
--   campaign_daily_stats (the advertiser's), and GET /api/v1/me/campaigns.
-- - public.sdk_event_reason decides a hide's reasons (a robot, another client, a second hide of one
--   ad); public.sdk_record_events records it; public.sdk_serve_ad leaves hidden campaigns out.

alter table public.ad_decisions
  add column hide_event_id text,
  add column hidden_at timestamptz,
  add constraint ad_decisions_hide_whole check ((hide_event_id is null) = (hidden_at is null));
grant update (hide_event_id, hidden_at) on table public.ad_decisions to sdk;

alter table public.ad_events drop constraint ad_events_kind_check;
alter table public.ad_events add constraint ad_events_kind_check check (kind = any (array['impression', 'click', 'hide']));

create table public.ad_hides (
  app_id uuid not null references public.apps(id) on delete cascade,
  hider text not null check (length(hider) = 64),
  campaign_id uuid not null references public.campaigns(id) on delete cascade,
  hidden_until timestamptz not null,
  primary key (app_id, hider, campaign_id)
);
create index ad_hides_hidden_until on public.ad_hides (hidden_until);
alter table public.ad_hides enable row level security;
alter table public.ad_hides force row level security;
create policy "Apps read the hides of their own users through the SDK" on public.ad_hides
  as permissive for select to sdk using (app_id = (select public.sdk_app_id()));
create policy "Apps record the hides of their own users through the SDK" on public.ad_hides
  as permissive for insert to sdk with check (app_id = (select public.sdk_app_id()));
create policy "Apps renew the hides of their own users through the SDK" on public.ad_hides
  as permissive for update to sdk using (app_id = (select public.sdk_app_id())) with check (app_id = (select public.sdk_app_id()));
grant select, insert, update on table public.ad_hides to sdk;
grant select, delete on table public.ad_hides to service_role;

alter table public.ad_traffic_counts
  add column hides integer not null default 0,
  add constraint ad_traffic_counts_hides_check check (hides >= 0);
alter table public.daily_stats
  add column hides bigint not null default 0,
  add constraint daily_stats_hides_check check (hides >= 0);
alter table public.campaign_daily_stats
  add column hides bigint not null default 0,
  add constraint campaign_daily_stats_hides_check check (hides >= 0);

drop function public.sdk_event_reason(text, boolean, text, text, boolean, boolean, boolean, numeric, text, numeric, numeric, bigint, boolean);
drop function public.sdk_already_counted(text, text, text);

-- Once per ad: the decision has counted an event of this kind already, whatever its id (a hide:
-- the user hid this ad already; migration 20261217000000_ad_hides).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_already_counted(p_kind text, p_impression_event_id text, p_click_event_id text,
                                                      p_hide_event_id text default null)
returns boolean
language sql immutable
as $$
  select (p_kind = 'impression' and p_impression_event_id is not null) or (p_kind = 'click' and p_click_event_id is not null)
      or (p_kind = 'hide' and p_hide_event_id is not null)
$$;

revoke all on function public.sdk_already_counted(text, text, text, text) from public, anon, authenticated;
grant execute on function public.sdk_already_counted(text, text, text, text) to sdk;

-- Why an event about a served ad, not a duplicate, is not counted: the first reason that applies,
-- in the one order of every reason (EVENT_REASONS, lib/schemas/sdk.ts; content/docs/sdk-integration.md,
-- Counting rules), or null when it counts. The reasons before these (the token's, checked in Node,
-- and `unknown_decision`) and the batch's (the hourly caps and an impression's budget, which
-- sdk_record_events decides among the impressions that pass here) come before and after them in
-- that order, so an event's answer is the first reason of the whole list.
-- Each argument is a fact the caller knows: the kind, whether the request is a robot's; for an
-- impression or a hide, whether it came from the client the ad was served to; for an impression, the seconds since the ad was
-- served on the server's clock, the format and the SDK's evidence; the ids the decision has
-- counted; whether the campaign is running now; for a click, whether the campaign's budget for
-- the day is spent (an impression's is the batch's: the caller passes false) and whether the
-- address clicked this ad in the last 3 hours; for a hide, the id of the hide the decision has
-- counted. A hide (migration 20261217000000_ad_hides) is refused only for a robot, another client
-- or a second hide of one ad: it bills nothing, and an ended campaign may start again. A click's repeat is its last reason, so a caller
-- may ask without it first and look it up only for a click that nothing else refuses.
-- A rule of the money path (migration 20261214000400_event_reasons): `language sql`, not security
-- definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls it.
-- Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_event_reason(p_kind text, p_bot boolean, p_impression_event_id text, p_click_event_id text,
                                                   p_campaign_running boolean, p_over_budget boolean,
                                                   p_same_client boolean default null, p_age_seconds numeric default null,
                                                   p_format text default null, p_share numeric default null, p_seconds numeric default null,
                                                   p_area bigint default null, p_repeat_click boolean default false,
                                                   p_hide_event_id text default null)
returns text
language sql immutable
as $$
  select case
    when p_bot then 'bot'
    when p_kind in ('impression', 'hide') and not coalesce(p_same_client, false) then 'other_client'
    when p_kind = 'impression' and p_age_seconds < public.sdk_view_seconds(p_format) then 'too_soon'
    when p_kind = 'impression' and p_age_seconds > 900 then 'too_late'
    when p_kind = 'impression' and coalesce(p_seconds, 0) > p_age_seconds then 'impossible_evidence'
    when p_kind = 'impression' and not public.sdk_viewable(p_format, p_share, p_seconds, p_area) then 'not_viewable'
    when public.sdk_already_counted(p_kind, p_impression_event_id, p_click_event_id, p_hide_event_id) then 'already_counted'
    when public.sdk_click_before_impression(p_kind, p_impression_event_id) then 'no_impression'
    when p_kind <> 'hide' and not coalesce(p_campaign_running, false) then 'campaign_ended'
    when p_over_budget then 'over_budget'
    when p_kind = 'click' and p_repeat_click then 'repeat_click'
  end
$$;

revoke all on function public.sdk_event_reason(text, boolean, text, text, boolean, boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, text)
  from public, anon, authenticated;
grant execute on function public.sdk_event_reason(text, boolean, text, text, boolean, boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, text)
  to sdk;

-- Who hid an ad, as `ad_hides` keeps it: the client's hash (its network and browser, keyed:
-- lib/platform/http/client-ip.ts) hashed again with the app's id, so the same client is another
-- on every app and no list of what one person hid across apps can be made from the table
-- (migration 20261217000000_ad_hides). Null for no client.
-- A rule of the money path's shape: `language sql`, immutable, no `set` clause, so that
-- PostgreSQL inlines it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_hider(p_app uuid, p_client_hash text)
returns text
language sql immutable
as $$
  -- Both texts are of letters, digits, `-` and `_`: as bytes, they are themselves.
  select encode(sha256((p_app::text || ' ' || p_client_hash)::bytea), 'hex')
$$;

revoke all on function public.sdk_hider(uuid, text) from public, anon, authenticated;
grant execute on function public.sdk_hider(uuid, text) to sdk;

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
           d.hide_event_id
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
           public.sdk_budget_spent(d.campaign_id, v_day) >= c.daily_budget_micro as spent
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
              and not public.sdk_campaign_blocked(c.advertiser, c.advertiser_category, v_blocked_advertisers, v_blocked_categories)
              and c.id <> all(v_hidden)
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
  -- A decision that filled nothing keeps no client, network or session: nothing is billed or
  -- capped by it, and its reason (`sensitive` among them) is then tied to no one.
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, client_hash, network_hash, campaign_id, creative_id,
                                   relevance, matched_hints, no_fill_reason)
  values (v_app, v_placement.id, p_api_key_id, case when v_pick.id is not null then p_session_id end,
          case when v_pick.id is not null then p_client_hash end, case when v_pick.id is not null then p_network_hash end,
          v_pick.campaign_id, v_pick.id, v_relevance, v_matched, v_reason)
  returning id into v_decision;
  if v_pick.id is not null then
    select public.sdk_cost_per_impression(v_placement.format, s) into v_promised from public.pricing_settings s;
  end if;
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
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'sensitive'), 0) as sensitive,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'below_relevance'), 0) as below_relevance,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'blocked'), 0) as blocked,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'no_eligible_campaign'), 0) as no_eligible_campaign,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'placement_inactive'), 0) as placement_inactive
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_micro, cost_micro,
                                         posted_micro, posted_cost_micro, unfilled_sensitive, unfilled_below_relevance, unfilled_blocked,
                                         unfilled_no_eligible_campaign, unfilled_placement_inactive, hides)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost, b.revenue, b.cost,
           b.sensitive, b.below_relevance, b.blocked, b.no_eligible_campaign, b.placement_inactive, b.hides
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

-- GET /api/v1/me/campaigns and the MCP tool `list_my_campaigns` (scope campaigns:read, migration
-- 20261208000000_account_campaigns): the caller's advertiser balance, exactly, in micro-dollars
-- (the postings of their `advertiser` ledger account: top-ups in, ad spend out), and their
-- campaigns, oldest first, each with its totals from the daily figures the roll-up keeps
-- (`campaign_daily_stats`: impressions, clicks, hides by users, and spend in micro-dollars,
-- exact) and its creatives, oldest first. A user who is not an advertiser has no campaigns and no
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
                                       c.context_hints, c.excluded_phrases, c.advertiser_category,
                                       coalesce(s.impressions, 0)::bigint as impressions, coalesce(s.clicks, 0)::bigint as clicks,
                                       coalesce(s.hides, 0)::bigint as hides,
                                       coalesce(s.spend_micro, 0)::bigint as spend_micro, coalesce(k.creatives, '[]') as creatives
                                from public.campaigns c
                                left join (select d.campaign_id, sum(d.impressions) as impressions, sum(d.clicks) as clicks,
                                                  sum(d.hides) as hides, sum(d.spent_micro) as spend_micro
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

