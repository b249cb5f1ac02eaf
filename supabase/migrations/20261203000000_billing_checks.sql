-- Billing that cannot be gamed (SECURITY.md, Billing; content/docs/sdk-integration.md, Counting
-- rules). Until now a budget was checked when an ad was served and never when it was billed, and
-- an impression was whatever its caller said. Now:
--
-- * Spend is checked at billing. `sdk_counters` holds bounded counters, one row per name and
--   period: `budget:<campaign>` per UTC day (micro-dollars billed), and `served:<campaign>` and
--   `billed:<campaign>` per five minutes (what serving promised and billing took, added by the
--   roll-up). An impression takes from its campaign's budget in the transaction that bills it
--   (public.sdk_take), so a campaign is billed at most its daily budget and one impression's
--   price, and serving counts what it has promised and not yet billed. The hourly caps per
--   client and publisher are counted by the server (lib/sdk/events.ts), as its rate limits are.
-- * A decision remembers who asked (`client_hash`: a keyed hash of the client's network and
--   browser, lib/platform/http/client-ip.ts). An impression is billable only from that client,
--   no sooner after its ad than its viewability rule's seconds and no later than 15 minutes, with
--   no more seconds in view than have passed, and the large-ad rule for sponsored cards only.
--   The frequency cap counts by client, whether or not a session id is sent.
-- * Invalid traffic is counted (`ad_traffic_counts.invalid`, rolled up into the placements' and
--   days' `invalid_events`, which `account_apps` answers for the placements' invalid share) and
--   kept once per decision, kind and reason, not once per request.
-- * Decisions and invalid traffic are swept after 35 days, counters two days after their period,
--   by the roll-up.

-- ── Counters ───────────────────────────────────────────────────────────────────────────────
create table public.sdk_counters (
  name    text not null check (length(name) <= 120),
  period  timestamptz not null,
  used    bigint not null default 0 check (used >= 0),
  primary key (name, period)
);
create index sdk_counters_period on public.sdk_counters (period);
alter table public.sdk_counters enable row level security;
alter table public.sdk_counters force row level security;
grant select, insert, update on public.sdk_counters to sdk;
grant select, insert, update, delete on public.sdk_counters to service_role;
-- The counters name campaigns, hashed clients and publishers, and hold numbers only; each SDK
-- request takes from those of its own ad, client and publisher (public.sdk_record_events).
create policy "Apps keep the money path counters through the SDK"
  on public.sdk_counters for all to sdk using (true) with check (true);

-- Leases of the daily budgets (public.sdk_take_budget): per campaign, day and shard (a database
-- connection's), what the lease took from the budget's counter (`granted`), what its batches
-- spent of it, and the limit it was taken under.
create table public.sdk_budget_leases (
  campaign_id  uuid not null,
  period       timestamptz not null,
  shard        smallint not null check (shard between 0 and 1023),
  lease_limit  bigint not null,
  granted      bigint not null default 0,
  spent        bigint not null default 0 check (spent >= 0 and spent <= granted),
  primary key (campaign_id, period, shard)
);
create index sdk_budget_leases_period on public.sdk_budget_leases (period);
alter table public.sdk_budget_leases enable row level security;
alter table public.sdk_budget_leases force row level security;
grant select, insert, update on public.sdk_budget_leases to sdk;
grant select, insert, update, delete on public.sdk_budget_leases to service_role;
create policy "Apps keep the budget leases through the SDK"
  on public.sdk_budget_leases for all to sdk using (true) with check (true);

-- Today's spend so far, as the roll-up has counted it, is where today's budgets start.
insert into public.sdk_counters (name, period, used)
select 'budget:' || s.campaign_id, date_trunc('day', now(), 'UTC'), round(s.spent_usd * 1000000)::bigint
from public.campaign_daily_spend s
where s.day = (now() at time zone 'UTC')::date and s.spent_usd > 0;

-- ── Who asked ──────────────────────────────────────────────────────────────────────────────
alter table public.ad_decisions add column client_hash text check (length(client_hash) <= 64);
grant insert (client_hash) on public.ad_decisions to sdk;
drop index public.ad_decisions_session;
create index ad_decisions_client on public.ad_decisions (app_id, client_hash, campaign_id, created_at)
  where client_hash is not null and campaign_id is not null;

-- ── Invalid traffic, counted ───────────────────────────────────────────────────────────────
alter table public.ad_traffic_counts add column invalid integer not null default 0 check (invalid >= 0);
-- What a fill promises its campaign (the impression's price), for pacing (public.roll_up_ad_traffic).
alter table public.ad_traffic_counts add column promised_usd numeric(14, 6) not null default 0 check (promised_usd >= 0);
alter table public.placements add column invalid_events bigint not null default 0 check (invalid_events >= 0);
alter table public.daily_stats add column invalid_events bigint not null default 0 check (invalid_events >= 0);
update public.placements p set invalid_events = x.n
from (select placement_id, count(*) as n from public.ad_events where not billable group by placement_id) x
where x.placement_id = p.id;
update public.daily_stats s set invalid_events = x.n
from (select placement_id, (occurred_at at time zone 'UTC')::date as day, count(*) as n from public.ad_events where not billable group by 1, 2) x
where x.placement_id = s.placement_id and x.day = s.day;
-- Kept once per decision, kind and reason.
delete from public.ad_events a using public.ad_events b
where a.decision_id is not null and a.decision_id = b.decision_id and a.kind = b.kind
  and a.invalid_reason is not distinct from b.invalid_reason and a.id > b.id;
create unique index ad_events_invalid_once on public.ad_events (decision_id, kind, invalid_reason) where decision_id is not null;
create index ad_events_occurred_at on public.ad_events (occurred_at) where not billable;

-- ── The rules and their compositions ───────────────────────────────────────────────────────
drop function public.sdk_serve_ad(uuid, text, text[], uuid);
drop function public.sdk_record_events(jsonb, text, boolean);
drop function public.sdk_session_fills(uuid, text, uuid, timestamptz);
drop function public.sdk_under_frequency_cap(text, bigint, integer);
drop function public.sdk_paced_budget_left(numeric, numeric, numeric);

-- A campaign's daily budget at billing (public.sdk_record_events): takes up to `p_items`
-- impressions of `p_unit` micro-dollars each from campaign `p_campaign`'s budget of the day
-- `p_period`, whose limit is `p_limit`, and answers how many it took.
--
-- The budget is a counter (`sdk_counters`, `budget:<campaign>`), and a batch that debited it
-- directly would hold its row from its take to its commit: batches billing one campaign would
-- bill one at a time. So the counter lends, and batches spend from a lease: each database
-- connection (its backend's pid, of 1,024 shards, so that two connections rarely share one: with
-- 16, the ten of a pool shared some, and pgbench billed 13% fewer batches a second) has a lease
-- per campaign and day (`sdk_budget_leases`), which its batches spend from, holding only that
-- row, and which takes from the counter only when it runs short: what the batch lacks and, while
-- more than 1,024 such batches are left, four batches' worth more. What a lease took stays in the
-- counter, so
--   * the counter holds what the leases took, and a lease spends only what it took: a campaign is
--     billed at most its daily budget and one impression's price;
--   * what leases took and have not spent is at most four batches for each connection that bills
--     the campaign; pacing (public.sdk_serve_ad) counts it as spent. The last 1,024 batches'
--     worth are taken exactly, each lease spends what it holds before it takes more, and a batch
--     the counter cannot cover first takes back what the other leases hold unspent (those not in
--     use: `skip locked`), so a campaign spends its whole budget;
--   * a lease is spent only under the limit it was taken with: when the budget changes, the next
--     batch of that lease gives back what it has not spent and takes again under the new limit.
-- Locks, in this order: the lease, then the counter, then (never waiting) the other leases.
create or replace function public.sdk_take_budget(p_campaign uuid, p_period timestamptz, p_items integer, p_unit bigint, p_limit bigint)
returns integer
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_shard smallint := pg_backend_pid() % 1024;
  v_cost bigint := p_items::bigint * greatest(p_unit, 1);
  v_lease record;
  v_left bigint;
  v_used bigint;
  v_back bigint;
  v_more integer := 0;
  v_taken integer;
begin
  if p_items <= 0 then
    return 0;
  end if;
  -- The common case, in one statement: the lease covers the batch.
  update public.sdk_budget_leases l set spent = l.spent + v_cost
  where l.campaign_id = p_campaign and l.period = p_period and l.shard = v_shard
    and l.lease_limit = p_limit and l.granted - l.spent >= v_cost;
  if found then
    return p_items;
  end if;

  insert into public.sdk_budget_leases as l (campaign_id, period, shard, lease_limit) values (p_campaign, p_period, v_shard, p_limit)
  on conflict (campaign_id, period, shard) do update set spent = l.spent
  returning l.granted, l.spent, l.lease_limit into v_lease;
  v_left := v_lease.granted - v_lease.spent;
  if v_lease.lease_limit <> p_limit and v_left > 0 then
    -- Taken under another limit: given back, and taken again under this one.
    update public.sdk_counters set used = greatest(used - v_left, 0) where name = 'budget:' || p_campaign and period = p_period;
    v_left := 0;
  end if;
  v_taken := least(p_items, v_left / greatest(p_unit, 1));
  if v_taken < p_items then
    -- The budget's counter, locked until the commit: what is missing, and four batches' worth
    -- more while more than 1,024 are left, as long as something is left (the impression that
    -- crosses the limit is still taken, so a budget is overrun by at most one impression's price).
    insert into public.sdk_counters as c (name, period, used) values ('budget:' || p_campaign, p_period, 0)
    on conflict (name, period) do update set used = c.used
    returning c.used into v_used;
    if v_used + (p_items - v_taken)::bigint * p_unit > p_limit then
      -- Short of the batch: what the other leases hold unspent comes back to the counter first
      -- (a lease in use is skipped, never waited for: its batch spends it).
      with idle as (
        select l.shard, l.granted - l.spent as unspent
        from public.sdk_budget_leases l
        where l.campaign_id = p_campaign and l.period = p_period and l.shard <> v_shard and l.granted > l.spent
        for update skip locked
      ), back as (
        update public.sdk_budget_leases l set granted = l.spent
        from idle i
        where l.campaign_id = p_campaign and l.period = p_period and l.shard = i.shard
        returning i.unspent
      )
      select coalesce(sum(b.unspent), 0) into v_back from back b;
      if v_back > 0 then
        update public.sdk_counters set used = greatest(used - v_back, 0) where name = 'budget:' || p_campaign and period = p_period
        returning used into v_used;
      end if;
    end if;
    if v_used < p_limit then
      v_more := least((p_items - v_taken) + case when p_limit - v_used > 1024 * v_cost then 4 * p_items else 0 end,
                      ceil((p_limit - v_used)::numeric / greatest(p_unit, 1)))::integer;
      update public.sdk_counters set used = used + v_more::bigint * p_unit where name = 'budget:' || p_campaign and period = p_period;
      v_left := v_left + v_more::bigint * p_unit;
      v_taken := least(p_items, v_left / greatest(p_unit, 1));
    end if;
  end if;
  update public.sdk_budget_leases
  set granted = spent + v_left, spent = spent + v_taken::bigint * p_unit, lease_limit = p_limit
  where campaign_id = p_campaign and period = p_period and shard = v_shard;
  return v_taken;
end $$;

revoke all on function public.sdk_take_budget(uuid, timestamptz, integer, bigint, bigint) from public, anon, authenticated;
grant execute on function public.sdk_take_budget(uuid, timestamptz, integer, bigint, bigint) to sdk;

-- What campaign `p_campaign` was billed on the day `p_period`, in micro-dollars: what its budget's
-- counter (`budget:<campaign>`) gave out, less what the leases that took it have not spent
-- (public.sdk_take_budget).
-- It reads tables, so PostgreSQL does not inline it: a click calls it once (sdk_record_events),
-- not a statement for each row. Executable by `sdk`, the role the compositions run as, and nobody
-- else.
create or replace function public.sdk_budget_spent(p_campaign uuid, p_period timestamptz)
returns bigint
language sql stable
as $$
  select coalesce((select k.used from public.sdk_counters k where k.name = 'budget:' || p_campaign and k.period = p_period), 0)
         - coalesce((select sum(l.granted - l.spent) from public.sdk_budget_leases l
                     where l.campaign_id = p_campaign and l.period = p_period), 0)::bigint
$$;

revoke all on function public.sdk_budget_spent(uuid, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_budget_spent(uuid, timestamptz) to sdk;

-- The five minutes `p_at` falls in: what serving promised and billing took are counted per slot
-- (`served:<campaign>` and `billed:<campaign>` counters, kept by the roll-up), and a promise older
-- than the impression window (15 minutes, sdk_impression_reason) no longer counts, so pacing reads
-- the slots of the last 15 to 20 minutes.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): inlined where called.
create or replace function public.sdk_promise_slot(p_at timestamptz)
returns timestamptz
language sql immutable
as $$
  select date_bin(interval '5 minutes', p_at, timestamptz '2000-01-01 00:00:00+00')
$$;

revoke all on function public.sdk_promise_slot(timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_promise_slot(timestamptz) to sdk;

-- The seconds the Media Rating Council's rule asks an ad of the format to be in view: two of
-- playback for video, one for the rest. No impression is billable sooner after its ad was served.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_view_seconds(p_format text)
returns numeric
language sql immutable
as $$
  select case when p_format = 'floating_video' then 2 else 1 end::numeric
$$;

revoke all on function public.sdk_view_seconds(text) from public, anon, authenticated;
grant execute on function public.sdk_view_seconds(text) to sdk;

-- The Media Rating Council's rule: 50% of the pixels for one continuous second, 30% for display
-- ads of 242,500 pixels or more (a sponsored card; text formats are never that large, so their
-- area is not evidence), and 50% for two seconds of playback for video.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_viewable(p_format text, p_share numeric, p_seconds numeric, p_area bigint)
returns boolean
language sql immutable
as $$
  select coalesce(
    p_seconds >= public.sdk_view_seconds(p_format)
    and p_share >= case when p_format = 'sponsored_card' and coalesce(p_area, 0) >= 242500 then 0.3 else 0.5 end,
    false)
$$;

revoke all on function public.sdk_viewable(text, numeric, numeric, bigint) from public, anon, authenticated;
grant execute on function public.sdk_viewable(text, numeric, numeric, bigint) to sdk;

-- Why an impression of a served ad, not a duplicate, is invalid traffic, or null when it may be
-- billed (the counters decide the rest: sdk_record_events), in the documented order
-- (content/docs/sdk-integration.md, Counting rules). Each argument is a fact the caller knows:
-- whether the request is a robot's, whether it came from the client the ad was served to, the
-- seconds since the ad was served on the server's clock, the format and the SDK's evidence,
-- whether the ad has its impression (or an earlier one of this batch took it), and whether its
-- campaign is running now.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_impression_reason(p_bot boolean, p_same_client boolean, p_age_seconds numeric, p_format text,
                                                        p_share numeric, p_seconds numeric, p_area bigint, p_counted boolean,
                                                        p_campaign_running boolean)
returns text
language sql immutable
as $$
  select case
    when p_bot then 'bot'
    when not coalesce(p_same_client, false) then 'other_client'
    when p_age_seconds < public.sdk_view_seconds(p_format) then 'too_soon'
    when p_age_seconds > 900 then 'too_late'
    when coalesce(p_seconds, 0) > p_age_seconds then 'impossible_evidence'
    when not public.sdk_viewable(p_format, p_share, p_seconds, p_area) then 'not_viewable'
    when p_counted then 'already_counted'
    when not coalesce(p_campaign_running, false) then 'campaign_ended'
  end
$$;

revoke all on function public.sdk_impression_reason(boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, boolean)
  from public, anon, authenticated;
grant execute on function public.sdk_impression_reason(boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, boolean) to sdk;

-- A client (its network and browser, the decision's `client_hash`) may be shown a campaign's ads
-- fewer than `frequency_cap` times per 24 hours, whether or not it sends a session id.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_under_frequency_cap(p_fills bigint, p_frequency_cap integer)
returns boolean
language sql immutable
as $$
  select p_fills < p_frequency_cap
$$;

revoke all on function public.sdk_under_frequency_cap(bigint, integer) from public, anon, authenticated;
grant execute on function public.sdk_under_frequency_cap(bigint, integer) to sdk;

-- The app's filled decisions of the campaign for the client in the 24 hours before `p_at`, for
-- the frequency cap (index ad_decisions_client). Set-returning, so that it is inlined as a
-- subquery where it is called; it runs as its caller, under the SDK role's policies.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_client_fills(p_app_id uuid, p_client_hash text, p_campaign_id uuid, p_at timestamptz)
returns setof uuid
language sql stable
as $$
  select d.id from public.ad_decisions d
  where d.app_id = p_app_id and d.client_hash = p_client_hash and d.campaign_id = p_campaign_id
    and d.created_at > p_at - interval '24 hours'
$$;

revoke all on function public.sdk_client_fills(uuid, text, uuid, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_client_fills(uuid, text, uuid, timestamptz) to sdk;

-- A campaign may fill while what it has committed today, in micro-dollars, is below its paced
-- budget: what its impressions were billed (its `budget:` counters, debited at billing) and what
-- the ads it served in the impression window may still bill (its `served:` less `billed:`
-- counters).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_paced_budget_left(p_committed_micro bigint, p_daily_budget numeric, p_day_share numeric)
returns boolean
language sql immutable
as $$
  select coalesce(p_committed_micro, 0) < public.sdk_paced_budget_usd(p_daily_budget, p_day_share) * 1000000
$$;

revoke all on function public.sdk_paced_budget_left(bigint, numeric, numeric) from public, anon, authenticated;
grant execute on function public.sdk_paced_budget_left(bigint, numeric, numeric) to sdk;

-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the
-- eligible creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: creative active, campaign running (sdk_campaign_running), paced budget left today
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
  v_placement record;
  v_pick record;
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
      where cr.format = v_placement.format and cr.status = 'active'
        and public.sdk_campaign_running(c.status, c.starts_at, c.ends_at, now())
        and public.sdk_paced_budget_left(
              (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k where k.name = 'budget:' || c.id and k.period = v_day)
              + greatest(0, (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                             where k.name = 'served:' || c.id and k.period >= v_promised_since)
                            - (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                               where k.name = 'billed:' || c.id and k.period >= v_promised_since)),
              c.daily_budget_usd, v_day_share)
        and public.sdk_under_frequency_cap((select count(*) from public.sdk_client_fills(v_app, p_client_hash, c.id, now())), c.frequency_cap)
      order by c.id, random()
    ) as e
    order by -ln(1 - random()) / e.weight
    limit 1;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, client_hash, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, p_client_hash, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  if v_pick.id is not null then
    select public.sdk_cost_per_impression(v_placement.format, s) into v_promised from public.pricing_settings s;
  end if;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, campaign_id, day, requests, fills, promised_usd)
  values (v_app, v_placement.id, p_api_key_id, v_pick.campaign_id, (now() at time zone 'UTC')::date, 1,
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

-- One call per batch, as `sdk`. The caller has checked each event's token (signature, expiry,
-- app) and passes the decision it names; this decides the rest, in the order the rules are
-- documented (content/docs/sdk-integration.md, Counting rules). Each event is
-- `{n, id, kind, decision_id, visible_share, visible_seconds, area_px}` (the last three: the SDK's
-- viewability evidence, for impressions). `p_ip_hash` is the keyed hash of the client's address,
-- `p_client_hash` of its network and browser (lib/platform/http/client-ip.ts); `p_client_allowed`
-- and `p_publisher_allowed` are how many of the batch's impressions the hourly caps still allow,
-- from this client and for this publisher (lib/sdk/events.ts keeps those counts, shared by every
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
--      applied (sdk_impression_reason): an ad's impression is `already_counted` when it has one,
--      or when an earlier impression of the batch that passed the rules takes it;
--   2. of the impressions that passed, those past what the hourly caps allow are invalid
--      (`client_limit`, `publisher_limit`);
--   3. each campaign's budget for the day (sdk_take_budget, one call per campaign and format):
--      what it refuses is `over_budget`. The budget is debited in the same transaction as the
--      impressions it pays for, so a campaign is billed at most its daily budget and one
--      impression's price; the batch holds its connection's lease of the budget, not the budget
--      itself, to the commit;
--   4. what passed billed on its decision, the invalid ones kept once per ad and reason, the
--      counts for the roll-up (`ad_traffic_counts`) written, and every impression answered:
--      steps 1 to 4 are one statement;
--   5. clicks, one at a time: sdk_invalid_reason (after its impression, once per ad, one per
--      address and ad in 3 hours), and the campaign still running and within its budget.
-- Locks are taken in one order: the batch's decisions (id order), the budgets' leases and
-- counters (campaign id order), the advisory lock of a click; so two batches never wait on each
-- other in a circle.
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
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.client_hash, d.created_at, d.impression_event_id, d.click_event_id
    from public.ad_decisions d
    where d.id in (select e.decision_id from events e) and d.creative_id is not null
    order by d.id
    for update
  ), judged as materialized (
    -- Materialized: the rules run once per impression (inlined, the reason would be computed
    -- again wherever the steps below read it).
    select i.n, i.id, d.id as decision_id, d.placement_id, d.campaign_id, d.creative_id, p.format, d.created_at as served_at,
           i.visible_share, i.visible_seconds, public.sdk_cost_per_impression(p.format, v_pricing) as cost_usd, c.daily_budget_usd,
           case
             when d.id is null then 'unknown_decision'
             when i.nth_of_id > 1 or i.id in (d.impression_event_id, d.click_event_id)
                  or exists (select 1 from public.ad_events x where x.placement_id = d.placement_id and x.event_id = i.id) then 'duplicate'
             else public.sdk_impression_reason(
                    p_bot, d.client_hash = p_client_hash, extract(epoch from now() - d.created_at), p.format,
                    i.visible_share, i.visible_seconds, i.area_px, d.impression_event_id is not null,
                    public.sdk_campaign_running(c.status, c.starts_at, c.ends_at, now()))
           end as reason
    from input i
    left join locked d on d.id = i.decision_id
    left join public.placements p on p.id = d.placement_id
    left join public.campaigns c on c.id = d.campaign_id
  ), once as (
    select j.n, j.id, j.decision_id, j.placement_id, j.campaign_id, j.creative_id, j.format, j.served_at, j.visible_share,
           j.visible_seconds, j.cost_usd, j.daily_budget_usd,
           case when j.reason is null and row_number() over (partition by j.reason is null, j.decision_id order by j.n) > 1
                then 'already_counted' else j.reason end as reason
    from judged j
  ), capped as (
    select o.n, o.id, o.decision_id, o.placement_id, o.campaign_id, o.creative_id, o.format, o.served_at, o.visible_share,
           o.visible_seconds, o.cost_usd, o.daily_budget_usd,
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
    select w.campaign_id, w.format,
           public.sdk_take_budget(w.campaign_id, v_day, w.wanted, (w.cost_usd * 1000000)::bigint, (w.daily_budget_usd * 1000000)::bigint) as granted
    from (select c.campaign_id, c.format, count(*)::integer as wanted, min(c.cost_usd) as cost_usd, min(c.daily_budget_usd) as daily_budget_usd
          from capped c where c.reason is null group by c.campaign_id, c.format) as w
    order by w.campaign_id, w.format
  ), final as materialized (
    select c.n, c.id, c.decision_id, c.placement_id, c.campaign_id, c.creative_id, c.visible_share, c.visible_seconds, c.cost_usd,
           case when c.reason is null and c.nth_of_group > g.granted then 'over_budget' else c.reason end as reason
    from ranked c left join granted g on g.campaign_id = c.campaign_id and g.format = c.format
  ), billed as (
    update public.ad_decisions d set
      impression_event_id = c.id, impressed_at = now(),
      visible_share = least(c.visible_share, 1), visible_seconds = c.visible_seconds,
      cost_usd = c.cost_usd, revenue_usd = public.sdk_publisher_revenue(c.cost_usd, v_pricing)
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
    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, invalid, revenue_usd, cost_usd)
    select v_app, c.placement_id, c.campaign_id, v_today,
           count(*) filter (where c.reason is null), count(*) filter (where c.reason is not null),
           coalesce(sum(public.sdk_publisher_revenue(c.cost_usd, v_pricing)) filter (where c.reason is null), 0),
           coalesce(sum(c.cost_usd) filter (where c.reason is null), 0)
    from final c
    where c.reason is distinct from 'duplicate' and c.reason is distinct from 'unknown_decision'
    group by c.placement_id, c.campaign_id
  )
  select c.n,
         case when c.reason is null then 'recorded' when c.reason = 'duplicate' then 'duplicate' else 'invalid' end,
         case when c.reason = 'duplicate' then null else c.reason end
  from final c
  order by c.n;

  -- 5. Clicks, one at a time, after the impressions, so a batch holding both for one ad counts both.
  if not p_events @> '[{"kind": "click"}]' then
    return;
  end if;
  for v_event in
    select e.n, e.id, e.decision_id
    from jsonb_to_recordset(p_events) as e(n integer, id text, kind text, decision_id uuid)
    where e.kind = 'click'
    order by e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.impression_event_id, d.click_event_id,
           public.sdk_campaign_running(c.status, c.starts_at, c.ends_at, now()) as running,
           public.sdk_budget_spent(d.campaign_id, v_day) >= c.daily_budget_usd * 1000000 as spent
    into v_decision
    from public.ad_decisions d left join public.campaigns c on c.id = d.campaign_id
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

    -- The first counting rule the click fails. The 3-hour rule is the one that reads other
    -- decisions, and for concurrent clicks of one address on one ad its check and the click's
    -- update must be one step: a lock, taken only for a click that no other rule refuses, then
    -- the rules again with what the check found.
    v_reason := coalesce(
      public.sdk_invalid_reason('click', p_bot, true, v_decision.impression_event_id, v_decision.click_event_id, p_repeat_click => false),
      case when not coalesce(v_decision.running, false) then 'campaign_ended' when v_decision.spent then 'over_budget' end);
    if v_reason is null then
      perform pg_advisory_xact_lock(hashtextextended(coalesce(p_ip_hash, '') || v_decision.creative_id::text, 0));
      v_reason := public.sdk_invalid_reason('click', p_bot, true, v_decision.impression_event_id, v_decision.click_event_id,
                    p_repeat_click => exists (select 1 from public.sdk_recent_clicks(v_decision.creative_id, p_ip_hash, now())));
    end if;

    if v_reason is null then
      -- Once per ad, and after its impression (the decision is locked: nothing else changes it).
      update public.ad_decisions set click_event_id = v_event.id, clicked_at = now(), click_ip_hash = p_ip_hash
      where id = v_decision.id and not public.sdk_already_counted('click', impression_event_id, click_event_id)
        and not public.sdk_click_before_impression('click', impression_event_id)
      returning true into v_taken;
      if coalesce(v_taken, false) then
        v_taken := null;
        insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, clicks)
        values (v_app, v_decision.placement_id, v_decision.campaign_id, v_today, 1);
        return query select v_event.n, 'recorded'::text, null::text;
        continue;
      end if;
      v_reason := 'already_counted';
    end if;

    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, invalid)
    values (v_app, v_decision.placement_id, v_decision.campaign_id, v_today, 1);
    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            'click', false, v_reason, p_ip_hash)
    on conflict do nothing;
    return query select v_event.n, 'invalid'::text, v_reason;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) to sdk;
revoke all on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) to sdk;

-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats (with what the ads cost), the campaigns' daily spend and the
-- keys' last use, in one transaction: every count is added exactly once. Then the days that are
-- over go into the ledger, in the same transaction (public.ledger_post_ad_revenue). Rows of transactions still open are invisible
-- here and wait for the next run; `skip locked` lets two runs share the work without waiting.
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
  -- Decision ids are time-ordered (public.time_ordered_uuid): the oldest are the lowest.
  delete from public.ad_decisions d
  where d.id in (select x.id from public.ad_decisions x
                 where x.id < (lpad(to_hex(floor(extract(epoch from v_retained_since) * 1000)::bigint), 12, '0')
                               || '00000000000000000000')::uuid
                 order by x.id limit 10000)
    and d.created_at < v_retained_since;
  delete from public.ad_events e
  where e.id in (select x.id from public.ad_events x where x.occurred_at < v_retained_since and not x.billable limit 10000);
  delete from public.sdk_counters k
  where (k.name, k.period) in (select x.name, x.period from public.sdk_counters x where x.period < now() - interval '2 days' limit 10000);
  delete from public.sdk_budget_leases l
  where (l.campaign_id, l.period, l.shard) in (select x.campaign_id, x.period, x.shard from public.sdk_budget_leases x
                                               where x.period < now() - interval '2 days' limit 10000);

  return query
  with taken as (
    delete from public.ad_traffic_counts c
    where c.id in (select x.id from public.ad_traffic_counts x order by x.id limit p_limit for update skip locked)
    returning c.*
  ), by_day as (
    select t.placement_id, t.day, sum(t.requests) as requests, sum(t.fills) as fills, sum(t.impressions) as impressions,
           sum(t.clicks) as clicks, sum(t.invalid) as invalid, sum(t.revenue_usd) as revenue, sum(t.cost_usd) as cost
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_usd, cost_usd)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      invalid_events = s.invalid_events + excluded.invalid_events,
      revenue_usd = s.revenue_usd + excluded.revenue_usd,
      cost_usd    = s.cost_usd + excluded.cost_usd
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

  -- The days that are over, into the ledger (after this run's counts, which it waits for).
  perform public.ledger_post_ad_revenue();
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;

-- GET /api/v1/me/apps: the caller's apps that are not archived, with their allowed origins, and
-- their placements with the rolled-up figures (fills and invalid traffic included). Runs as its caller: row-level
-- security alone decides whose rows these are. (Earnings still count every placement: money
-- earned stays earned.)
create or replace function public.account_apps() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'apps', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, name, slug, description, category, allowed_origins, created_at
                           from public.apps where archived_at is null) r),
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select p.id, p.app_id, p.name, p.format, p.status, p.impressions, p.clicks, p.revenue_usd,
                                        p.ad_requests, p.fills, p.invalid_events, p.created_at
                                 from public.placements p join public.apps a on a.id = p.app_id
                                 where a.archived_at is null) r))
          from public.users u);
end $$;

revoke execute on function public.account_apps() from public, anon;
grant execute on function public.account_apps() to authenticated;

-- GET /api/v1/me/earnings: every placement of the caller's (archived apps' too) with its
-- figures, the payouts, and what the placements earned, exactly, in micro-dollars
-- (`ad_revenue_micro`): the ledger's ad revenue and adjustments on the caller's publisher account
-- for the days it has posted (migration 20261204000000_ledger), and the daily stats of today and
-- the days not posted yet. Runs as its caller, like every account read: row-level security keeps
-- each to the caller's own rows.
create or replace function public.account_earnings() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, fills, invalid_events, created_at
                                 from public.placements) r),
            'payouts', (select coalesce(json_agg(r order by r.period desc), '[]')
                        from (select period, amount_usd, status, paid_at, requested_at from public.payouts) r),
            'ad_revenue_micro',
              coalesce((select sum(p.amount_micro)
                        from public.ledger_postings p
                        join public.ledger_accounts a on a.id = p.account_id
                        join public.ledger_transactions t on t.id = p.transaction_id
                        where a.kind = 'publisher' and t.kind in ('ad_revenue', 'adjustment')), 0)
              + coalesce((select sum(round(s.revenue_usd * 1000000))
                          from public.daily_stats s join public.placements pl on pl.id = s.placement_id
                          where not exists (select 1 from public.ledger_transactions t
                                            where t.kind = 'ad_revenue' and t.reference = pl.app_id || ':' || s.day)), 0))
          from public.users u);
end $$;

revoke execute on function public.account_earnings() from public, anon;
grant execute on function public.account_earnings() to authenticated;
