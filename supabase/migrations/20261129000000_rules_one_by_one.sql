-- The money path's rules, one function each, so that each is read and tested on its own
-- (tests/integration/sql-rules.test.ts) and changed in one place: pacing, the frequency cap, once
-- per ad, click after impression, one click per address and ad in 3 hours, and the reasons an
-- event is invalid traffic, named in the documented order (content/docs/sdk-integration.md,
-- Counting rules). `sdk_serve_ad` and `sdk_record_events` become compositions of them, with the
-- same signatures, results and side effects as before (migration 20261125000000).
--
-- Every rule is `language sql`, not security definer, with no `set` clause, and no more volatile
-- than it has to be: PostgreSQL then inlines it into the statement that calls it, as if its text
-- were written there, and plans the same statement as before. The hot path costs what it did
-- (ARCHITECTURE.md, The money path; supabase/schemas/README.md has the measurement). A scalar rule
-- cannot read a table and still be inlined, so the two rules that read decisions are set-returning
-- functions, used in `from`, which are inlined as subqueries. They run as their caller, so the SDK
-- role's policies still decide what they see. Their bodies name every object by schema, so the
-- callers' empty `search_path` finds what they mean.
--
-- Each rule may be called by `sdk`, the role that runs the compositions (a function is inlined
-- only for a caller that may execute it), and by nobody else: PostgreSQL grants execute to
-- PUBLIC, and Supabase to its API roles, unless revoked.

-- ── Serving: which campaigns may fill an ad request ────────────────────────────────────────

-- Active, started, and not ended at `p_at`.
create function public.sdk_campaign_running(p_status text, p_starts_at timestamptz, p_ends_at timestamptz, p_at timestamptz)
returns boolean
language sql immutable
as $$
  select p_status = 'active' and p_starts_at <= p_at and (p_ends_at is null or p_ends_at > p_at)
$$;

-- Pacing. The share of the UTC day gone by at `p_at`, from 0 at midnight towards 1.
create function public.sdk_day_share(p_at timestamptz)
returns numeric
language sql stable
as $$
  select extract(epoch from (p_at - date_trunc('day', p_at, 'UTC'))) / 86400
$$;

-- The most a campaign may have spent today when `p_day_share` of the day has gone by: its daily
-- budget times that share, plus an hour's worth, so that a campaign can start serving after
-- midnight; never more than the whole budget.
create function public.sdk_paced_budget_usd(p_daily_budget numeric, p_day_share numeric)
returns numeric
language sql immutable
as $$
  select p_daily_budget * least(1, p_day_share + 1.0 / 24)
$$;

-- A campaign may fill while what it spent today (the roll-up's figure; none yet is 0) is below
-- its paced budget.
create function public.sdk_paced_budget_left(p_spent_today numeric, p_daily_budget numeric, p_day_share numeric)
returns boolean
language sql immutable
as $$
  select coalesce(p_spent_today, 0) < public.sdk_paced_budget_usd(p_daily_budget, p_day_share)
$$;

-- The frequency cap. The decisions the campaign filled for this session of the app in the 24
-- hours before `p_at` (none for a request without a session). Index: ad_decisions_session.
create function public.sdk_session_fills(p_app_id uuid, p_session_id text, p_campaign_id uuid, p_at timestamptz)
returns setof uuid
language sql stable
as $$
  select d.id from public.ad_decisions d
  where d.app_id = p_app_id and d.session_id = p_session_id and d.campaign_id = p_campaign_id
    and d.created_at > p_at - interval '24 hours'
$$;

-- A session may be shown a campaign's ads fewer than `frequency_cap` times per 24 hours; a
-- request without a session is not capped.
create function public.sdk_under_frequency_cap(p_session_id text, p_fills bigint, p_frequency_cap integer)
returns boolean
language sql immutable
as $$
  select p_session_id is null or p_fills < p_frequency_cap
$$;

-- The draw's weight of an eligible campaign: its daily budget, tripled when one of its keywords is
-- among the request's.
create function public.sdk_draw_weight(p_daily_budget numeric, p_campaign_keywords text[], p_request_keywords text[])
returns numeric
language sql immutable
as $$
  select p_daily_budget * case when p_campaign_keywords && coalesce(p_request_keywords, '{}') then 3 else 1 end
$$;

-- ── Recording: what an event is worth, and whether it counts ───────────────────────────────

-- What an impression earns the publisher: its cost times the publisher's share, from the pricing
-- settings in force, to the millionth of a dollar.
create function public.sdk_publisher_revenue(p_cost numeric, p_pricing public.pricing_settings)
returns numeric
language sql immutable
as $$
  select round(p_cost * p_pricing.publisher_ad_revenue_share, 6)
$$;

-- Once per ad: the decision has counted an event of this kind already, whatever its id.
create function public.sdk_already_counted(p_kind text, p_impression_event_id text, p_click_event_id text)
returns boolean
language sql immutable
as $$
  select (p_kind = 'impression' and p_impression_event_id is not null) or (p_kind = 'click' and p_click_event_id is not null)
$$;

-- Click after impression: a click on an ad whose impression has not been counted.
create function public.sdk_click_before_impression(p_kind text, p_impression_event_id text)
returns boolean
language sql immutable
as $$
  select p_kind = 'click' and p_impression_event_id is null
$$;

-- One click per address and ad in 3 hours: the decisions whose billable click came from this
-- address (its keyed hash, lib/sdk/traffic.ts) on this creative in the 3 hours before `p_at`.
-- Index: ad_decisions_recent_clicks.
create function public.sdk_recent_clicks(p_creative_id uuid, p_ip_hash text, p_at timestamptz)
returns setof uuid
language sql stable
as $$
  select x.id from public.ad_decisions x
  where x.creative_id = p_creative_id and x.click_ip_hash = p_ip_hash and x.clicked_at > p_at - interval '3 hours'
$$;

-- Why an event about a served ad, not a duplicate, is invalid traffic, or null when it counts:
-- the first of the counting rules it fails, in their documented order. Each argument is a fact
-- the caller knows: whether the request is a robot's, whether the evidence is viewable (it
-- matters for impressions only), the ids the decision has counted, and whether the address
-- clicked this ad in the last 3 hours (it matters for clicks only).
create function public.sdk_invalid_reason(p_kind text, p_bot boolean, p_viewable boolean, p_impression_event_id text,
                                          p_click_event_id text, p_repeat_click boolean)
returns text
language sql immutable
as $$
  select case
    when p_bot then 'bot'
    when p_kind = 'impression' and not p_viewable then 'not_viewable'
    when public.sdk_already_counted(p_kind, p_impression_event_id, p_click_event_id) then 'already_counted'
    when public.sdk_click_before_impression(p_kind, p_impression_event_id) then 'no_impression'
    when p_kind = 'click' and p_repeat_click then 'repeat_click'
  end
$$;

revoke all on function
  public.sdk_campaign_running(text, timestamptz, timestamptz, timestamptz),
  public.sdk_day_share(timestamptz),
  public.sdk_paced_budget_usd(numeric, numeric),
  public.sdk_paced_budget_left(numeric, numeric, numeric),
  public.sdk_session_fills(uuid, text, uuid, timestamptz),
  public.sdk_under_frequency_cap(text, bigint, integer),
  public.sdk_draw_weight(numeric, text[], text[]),
  public.sdk_publisher_revenue(numeric, public.pricing_settings),
  public.sdk_already_counted(text, text, text),
  public.sdk_click_before_impression(text, text),
  public.sdk_recent_clicks(uuid, text, timestamptz),
  public.sdk_invalid_reason(text, boolean, boolean, text, text, boolean)
from public, anon, authenticated;
grant execute on function
  public.sdk_campaign_running(text, timestamptz, timestamptz, timestamptz),
  public.sdk_day_share(timestamptz),
  public.sdk_paced_budget_usd(numeric, numeric),
  public.sdk_paced_budget_left(numeric, numeric, numeric),
  public.sdk_session_fills(uuid, text, uuid, timestamptz),
  public.sdk_under_frequency_cap(text, bigint, integer),
  public.sdk_draw_weight(numeric, text[], text[]),
  public.sdk_publisher_revenue(numeric, public.pricing_settings),
  public.sdk_already_counted(text, text, text),
  public.sdk_click_before_impression(text, text),
  public.sdk_recent_clicks(uuid, text, timestamptz),
  public.sdk_invalid_reason(text, boolean, boolean, text, text, boolean)
to sdk;

-- ── Serving an ad ──────────────────────────────────────────────────────────────────────────
-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the
-- eligible creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: creative active, campaign running, paced budget left today, under the session's
-- frequency cap (the rules above). The request is counted (`ad_traffic_counts`) whether or not it
-- filled. The draw: `-ln(1 - random()) / weight` is the smallest for each campaign with
-- probability weight / total.
create or replace function public.sdk_serve_ad(p_placement_id uuid, p_session_id text, p_keywords text[], p_api_key_id uuid)
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
  v_placement record;
  v_pick record;
  v_day_share numeric := public.sdk_day_share(now());
  v_decision uuid;
begin
  select p.id, p.format, p.status into v_placement from public.placements p where p.id = p_placement_id;
  if not found then
    return query select false, null::uuid, null::text, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
    return;
  end if;
  -- Nothing picked unless the placement is active and a creative is eligible.
  select null::uuid as id, null::uuid as campaign_id into v_pick;
  if v_placement.status = 'active' then
    -- One creative per eligible campaign, at random, then one campaign by weight: a campaign
    -- with more creatives does not win more often.
    select e.* into v_pick
    from (
      select distinct on (c.id) cr.id, cr.campaign_id, c.advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url,
             public.sdk_draw_weight(c.daily_budget_usd, c.keywords, p_keywords) as weight
      from public.creatives cr
      join public.campaigns c on c.id = cr.campaign_id
      left join public.campaign_daily_spend s on s.campaign_id = c.id and s.day = (now() at time zone 'UTC')::date
      where cr.format = v_placement.format and cr.status = 'active'
        and public.sdk_campaign_running(c.status, c.starts_at, c.ends_at, now())
        and public.sdk_paced_budget_left(s.spent_usd, c.daily_budget_usd, v_day_share)
        and public.sdk_under_frequency_cap(p_session_id, (select count(*) from public.sdk_session_fills(v_app, p_session_id, c.id, now())),
                                           c.frequency_cap)
      order by c.id, random()
    ) as e
    order by -ln(1 - random()) / e.weight
    limit 1;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, day, requests, fills)
  values (v_app, v_placement.id, p_api_key_id, (now() at time zone 'UTC')::date, 1, case when v_pick.id is null then 0 else 1 end);
  if v_pick.id is null then
    return query select true, v_decision, v_placement.format, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
  else
    return query select true, v_decision, v_placement.format, v_pick.id, v_pick.advertiser, v_pick.headline, v_pick.body,
                        v_pick.cta, v_pick.image_url, v_pick.video_url;
  end if;
end $$;

-- ── Recording impressions and clicks ───────────────────────────────────────────────────────
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
-- `ad_traffic_counts` in the same transaction.
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
