-- Issue 41: the ad decision reads the conversation.
--
-- - placements.min_relevance: a campaign answers a request with a conversation only at or above
--   it (default 0.3, chosen on the labelled set: lib/ads/relevance/decide.ts).
-- - apps.excluded_topics (phrases after which the app shows no ad), blocked_advertisers (names,
--   compared without case) and blocked_categories (of the campaigns' fixed list).
-- - ad_decisions keep the relevance of the ad served, the hints that matched (the advertiser's
--   words, never the user's) and why nothing filled; the traffic counts carry that reason, and
--   the daily stats count each placement's unfilled requests by it.
-- - ad_market: a version that moves whenever what the server reads conversations against
--   changes (a running campaign's hints or excluded phrases, a campaign starting or stopping, an
--   app's excluded topics). The server keeps the market in memory with its version and sends it
--   with each request; a request read against an older market is answered `stale` and read again
--   (lib/ads/serving/market.ts), so a new campaign is served on the first request it fits.

alter table public.placements
  add column min_relevance numeric(4,3) not null default 0.3,
  add constraint placements_min_relevance_check check (min_relevance between 0 and 1);
grant insert (min_relevance), update (min_relevance) on table public.placements to authenticated;
grant select (min_relevance) on table public.placements to sdk;

-- Whether a list of short texts fits: a flat list of at most `p_most`, none null, each of 1 to
-- `p_longest` characters without spaces around it. The check of campaigns' phrases
-- (public.phrases_fit) and of the advertisers an app blocks by name (migration 20261216000000_ad_context).
create or replace function public.texts_fit(p_texts text[], p_most integer, p_longest integer) returns boolean
language sql immutable set search_path = ''
as $$
  select coalesce(array_ndims(p_texts), 1) = 1
     and cardinality(p_texts) <= p_most
     and array_position(p_texts, null) is null
     and coalesce((select bool_and(length(t) between 1 and p_longest and t = btrim(t)) from unnest(p_texts) t), true)
$$;

revoke all on function public.texts_fit(text[], integer, integer) from public;
grant execute on function public.texts_fit(text[], integer, integer) to anon, authenticated, sdk, service_role;

-- Whether a list of phrases (a campaign's context hints and excluded phrases, an app's excluded
-- topics, a decision's matched hints) fits: at most 20, each of 1 to 60 characters
-- (public.texts_fit; migration 20261215000100_campaign_context).
create or replace function public.phrases_fit(p_phrases text[]) returns boolean
language sql immutable set search_path = ''
as $$
  select public.texts_fit(p_phrases, 20, 60)
$$;

revoke all on function public.phrases_fit(text[]) from public;
grant execute on function public.phrases_fit(text[]) to anon, authenticated, sdk, service_role;

alter table public.apps
  add column excluded_topics text[] not null default '{}',
  add column blocked_advertisers text[] not null default '{}',
  add column blocked_categories text[] not null default '{}',
  add constraint apps_excluded_topics_fit check (public.phrases_fit(excluded_topics)),
  add constraint apps_blocked_advertisers_fit check (public.texts_fit(blocked_advertisers, 50, 100)),
  add constraint apps_blocked_categories_check check (
    coalesce(array_ndims(blocked_categories), 1) = 1 and array_position(blocked_categories, null) is null
    and blocked_categories <@ array['software', 'education', 'finance', 'travel', 'retail', 'food_drink', 'health_fitness', 'entertainment',
                                    'gaming', 'dating', 'gambling', 'alcohol', 'crypto', 'other']);
grant insert (excluded_topics, blocked_advertisers, blocked_categories), update (excluded_topics, blocked_advertisers, blocked_categories)
  on table public.apps to authenticated;
grant select (blocked_advertisers, blocked_categories) on table public.apps to sdk;

alter table public.ad_decisions
  add column relevance numeric(4,3),
  add column matched_hints text[],
  add column no_fill_reason text,
  add constraint ad_decisions_relevance_check check (relevance between 0 and 1),
  add constraint ad_decisions_matched_hints_check check (public.phrases_fit(matched_hints)),
  add constraint ad_decisions_no_fill_reason_check check (no_fill_reason in
    ('sensitive', 'below_relevance', 'blocked', 'no_eligible_campaign', 'placement_inactive'));
grant insert (relevance, matched_hints, no_fill_reason) on table public.ad_decisions to sdk;

alter table public.ad_traffic_counts
  add column no_fill_reason text,
  add constraint ad_traffic_counts_no_fill_reason_check check (no_fill_reason in
    ('sensitive', 'below_relevance', 'blocked', 'no_eligible_campaign', 'placement_inactive'));

alter table public.daily_stats
  add column unfilled_sensitive bigint not null default 0,
  add column unfilled_below_relevance bigint not null default 0,
  add column unfilled_blocked bigint not null default 0,
  add column unfilled_no_eligible_campaign bigint not null default 0,
  add column unfilled_placement_inactive bigint not null default 0,
  add constraint daily_stats_unfilled_check check (least(unfilled_sensitive, unfilled_below_relevance, unfilled_blocked,
                                                        unfilled_no_eligible_campaign, unfilled_placement_inactive) >= 0);

create table public.ad_market (
  id boolean primary key default true check (id),
  version bigint not null default 1
);
insert into public.ad_market default values;
alter table public.ad_market enable row level security;
alter table public.ad_market force row level security;
create policy "Apps read the version of the market through the SDK" on public.ad_market as permissive for select to sdk using (true);
grant select on table public.ad_market to sdk;
grant select on table public.ad_market to service_role;


-- After a statement on `campaigns` or `apps`: moves the market's version (public.ad_market) when
-- what the server reads conversations against changed: an active campaign with hints added or
-- removed, a campaign's status, hints or excluded phrases changed while it was or became active,
-- or an app's excluded topics. Other changes (spend, a name, a review) leave it, so the roll-up's
-- updates of campaigns do not make every server read the market again.
create or replace function public.ad_market_changed()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if tg_table_name = 'apps' then
    if tg_op = 'INSERT' then
      if not exists (select 1 from added a where cardinality(a.excluded_topics) > 0) then return null; end if;
    elsif not exists (select 1 from added a join removed r on r.id = a.id
                      where (a.excluded_topics, a.archived_at is null) is distinct from (r.excluded_topics, r.archived_at is null)) then
      return null;
    end if;
  elsif tg_op = 'INSERT' then
    if not exists (select 1 from added a where a.status = 'active' and cardinality(a.context_hints) > 0) then return null; end if;
  elsif tg_op = 'DELETE' then
    if not exists (select 1 from removed r where r.status = 'active' and cardinality(r.context_hints) > 0) then return null; end if;
  elsif not exists (select 1 from added a join removed r on r.id = a.id
                    where (a.status, a.context_hints, a.excluded_phrases) is distinct from (r.status, r.context_hints, r.excluded_phrases)
                      and 'active' in (a.status, r.status)
                      and cardinality(a.context_hints) + cardinality(r.context_hints) > 0) then
    return null;
  end if;
  update public.ad_market set version = version + 1;
  return null;
end $$;

revoke all on function public.ad_market_changed() from public, anon, authenticated, sdk, service_role;

-- What the server reads an ad request's conversation against (lib/ads/serving/market.ts), with
-- the version it was read at (public.ad_market): the active campaigns that have hints, each with
-- its hints and excluded phrases, and the apps' excluded topics. One statement, so the version
-- is the one these rows were read at. Definer: an app's key sees only its own app, and every
-- app's topics are read here (the server keeps them; the SDK never sees them).
create or replace function public.sdk_ad_market()
returns json
language sql stable security invoker set search_path = ''
as $$
  select json_build_object(
    'version', (select m.version from public.ad_market m),
    'campaigns', (select coalesce(json_agg(json_build_object('id', c.id, 'hints', c.context_hints, 'excluded', c.excluded_phrases) order by c.id), '[]')
                  from public.campaigns c where c.status = 'active' and cardinality(c.context_hints) > 0),
    'topics', (select coalesce(json_agg(json_build_object('app_id', a.id, 'topics', a.excluded_topics) order by a.id), '[]')
               from public.apps a where cardinality(a.excluded_topics) > 0 and a.archived_at is null))
$$;

revoke all on function public.sdk_ad_market() from public, anon, authenticated, sdk;
grant execute on function public.sdk_ad_market() to service_role;

-- Whether the app blocked this campaign: its advertiser's name (without case; the app's list is
-- lower-cased by the caller) or its category.
create or replace function public.sdk_campaign_blocked(p_advertiser text, p_category text, p_blocked_advertisers text[], p_blocked_categories text[])
returns boolean
language sql immutable
as $$
  select lower(p_advertiser) = any(p_blocked_advertisers) or p_category = any(p_blocked_categories)
$$;

revoke all on function public.sdk_campaign_blocked(text, text, text[], text[]) from public, anon, authenticated;
grant execute on function public.sdk_campaign_blocked(text, text, text[], text[]) to sdk;

-- A campaign's weight in the draw of a request with a conversation: its weight without one
-- (public.sdk_draw_weight) times its relevance squared (DRAW_RELEVANCE_POWER in
-- lib/ads/relevance/decide.ts), so a small campaign that fits well wins over a large one that
-- barely does: relevance 0.91 weighs 2.6 times 0.56.
create or replace function public.sdk_relevant_weight(p_weight bigint, p_relevance numeric)
returns numeric
language sql immutable
as $$
  select p_weight * p_relevance * p_relevance
$$;

revoke all on function public.sdk_relevant_weight(bigint, numeric) from public, anon, authenticated;
grant execute on function public.sdk_relevant_weight(bigint, numeric) to sdk;

create trigger campaigns_market_in after insert on public.campaigns referencing new table as added
  for each statement execute function public.ad_market_changed();
create trigger campaigns_market_again after update on public.campaigns referencing old table as removed new table as added
  for each statement execute function public.ad_market_changed();
create trigger campaigns_market_out after delete on public.campaigns referencing old table as removed
  for each statement execute function public.ad_market_changed();
create trigger apps_market_in after insert on public.apps referencing new table as added
  for each statement execute function public.ad_market_changed();
create trigger apps_market_again after update on public.apps referencing old table as removed new table as added
  for each statement execute function public.ad_market_changed();

drop function public.sdk_serve_ad(uuid, text, text[], uuid, text, text, integer);
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
-- the frequency cap's day and a month's close), and counters and budget leases two days after
-- their period.
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

  return query
  with taken as (
    delete from public.ad_traffic_counts c
    where c.id = any(array(select x.id from public.ad_traffic_counts x order by x.id limit p_limit for update skip locked))
    returning c.*
  ), by_day as (
    select t.placement_id, t.day, sum(t.requests) as requests, sum(t.fills) as fills, sum(t.impressions) as impressions,
           sum(t.clicks) as clicks, sum(t.invalid) as invalid, sum(t.revenue_micro) as revenue, sum(t.cost_micro) as cost,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'sensitive'), 0) as sensitive,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'below_relevance'), 0) as below_relevance,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'blocked'), 0) as blocked,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'no_eligible_campaign'), 0) as no_eligible_campaign,
           coalesce(sum(t.requests) filter (where t.no_fill_reason = 'placement_inactive'), 0) as placement_inactive
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_micro, cost_micro,
                                         posted_micro, posted_cost_micro, unfilled_sensitive, unfilled_below_relevance, unfilled_blocked,
                                         unfilled_no_eligible_campaign, unfilled_placement_inactive)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost, b.revenue, b.cost,
           b.sensitive, b.below_relevance, b.blocked, b.no_eligible_campaign, b.placement_inactive
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
    insert into public.campaign_daily_stats as s (campaign_id, creative_id, app_id, day, fills, impressions, clicks, spent_micro)
    select t.campaign_id, t.creative_id, t.app_id, t.day, sum(t.fills), sum(t.impressions), sum(t.clicks), sum(t.cost_micro)
    from taken t
    where t.creative_id is not null and (t.fills > 0 or t.impressions > 0 or t.clicks > 0)
      and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.creative_id, t.app_id, t.day
    on conflict (campaign_id, day, creative_id, app_id) do update set
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
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

-- The publisher's account read answers the app's excluded topics and blocks, and each placement's min_relevance.
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
                     from (select id, name, slug, description, category, allowed_origins, excluded_topics, blocked_advertisers,
                                  blocked_categories, created_at
                           from public.apps where archived_at is null) r),
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select p.id, p.app_id, p.name, p.format, p.status, p.impressions, p.clicks, p.revenue_micro,
                                        p.ad_requests, p.fills, p.invalid_events, p.min_relevance, p.created_at
                                 from public.placements p join public.apps a on a.id = p.app_id
                                 where a.archived_at is null) r))
          from public.users u);
end $$;

revoke execute on function public.account_apps() from public, anon;
grant execute on function public.account_apps() to authenticated;

-- The earnings read reads placements as the apps read does (with min_relevance).
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
                     from (select id, app_id, name, format, status, impressions, clicks, revenue_micro, ad_requests, fills, invalid_events, min_relevance,
                                  created_at
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
