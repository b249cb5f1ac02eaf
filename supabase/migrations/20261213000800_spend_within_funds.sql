-- Spend within funds (issue 39): an advertiser's campaigns were paused for want of funds only when
-- the roll-up (every 10 s) posted their spend to the ledger, and billing checked each campaign's
-- daily budget, never its advertiser's balance: at a test price, $50 of funds were billed to
-- -$550 between two roll-ups. Now billing never bills an advertiser past what it may spend:
--
-- * `sdk_advertiser_funds` counts, per advertiser, what billing has taken from its funds and the
--   ledger does not show yet (`taken_micro`: what the budget leases of all its campaigns took,
--   less what they gave back and what the roll-up has posted), and what it may spend as last read
--   from the ledger (`spendable_micro`, public.account_spendable_micro).
-- * A lease that runs short takes from its campaign's budget as before (public.sdk_take_budget,
--   which now answers by how much the lease's holding changed, and leases ahead only when the
--   funds are far from spent too); then, after every budget of the batch, each advertiser whose
--   leases took is checked against its funds, advertisers in id order (public.sdk_take_funds):
--   what is past them goes back to the leases and budgets it came from, and its impressions are
--   `over_budget`. The impression that crosses the last of the funds still counts, as with a
--   budget, so a balance goes below zero by less than one impression's price and the roll-up
--   pauses the campaigns. A batch that spends from its lease (most do) touches none of this.
-- * The roll-up's posting moves what it posted out of `taken_micro`, and gives back what leases
--   of days gone hold unspent (public.ledger_post_ad_spend).

create table public.sdk_advertiser_funds (
  advertiser_id    uuid primary key,
  spendable_micro  bigint not null default 0,
  taken_micro      bigint not null default 0 check (taken_micro >= 0),
  checked_at       timestamptz
);
alter table public.sdk_advertiser_funds enable row level security;
alter table public.sdk_advertiser_funds force row level security;
revoke all on public.sdk_advertiser_funds from public, anon, authenticated, sdk, service_role;
-- Numbers only. Billing reads them to decide whether to lease ahead; only the security-definer
-- functions above write them.
grant select on public.sdk_advertiser_funds to sdk, service_role;
create policy "Apps read the funds of advertisers at billing through the SDK"
  on public.sdk_advertiser_funds for select to sdk using (true);
create policy "The service reads the funds of advertisers at billing"
  on public.sdk_advertiser_funds for select to service_role using (true);

-- Leases of days gone can no longer be spent: what they hold goes back (their budgets are over).
update public.sdk_budget_leases set granted = spent where period < date_trunc('day', now(), 'UTC') and granted > spent;
-- What billing has taken and the ledger does not show yet: today's leases' holdings and the counts
-- not rolled up. The funds themselves are read at the first batch that needs them.
insert into public.sdk_advertiser_funds (advertiser_id, taken_micro)
select c.advertiser_id, sum(x.micro)::bigint
from (select l.campaign_id, l.granted - l.spent as micro from public.sdk_budget_leases l where l.granted > l.spent
      union all
      select t.campaign_id, (t.cost_usd * 1000000)::bigint from public.ad_traffic_counts t where t.cost_usd > 0) x
join public.campaigns c on c.id = x.campaign_id
where c.advertiser_id is not null
group by c.advertiser_id;

-- The budget's take answers what its lease's holding changed by, and knows the advertiser.
drop function public.sdk_take_budget(uuid, timestamptz, integer, bigint, bigint);

-- A campaign's daily budget at billing (public.sdk_record_events): takes up to `p_items`
-- impressions of `p_unit` micro-dollars each from campaign `p_campaign`'s budget of the day
-- `p_period`, whose limit is `p_limit`, and answers how many it took (`items`) and by how much
-- what this connection's lease holds of the advertiser `p_advertiser`'s funds changed (`funds`,
-- micro-dollars: what it took from the counter, less what it gave back), which the caller then
-- takes from the advertiser's funds (public.sdk_take_funds) once the budgets of the whole batch
-- are taken.
--
-- The budget is a counter (`sdk_counters`, `budget:<campaign>`), and a batch that debited it
-- directly would hold its row from its take to its commit: batches billing one campaign would
-- bill one at a time. So the counter lends, and batches spend from a lease: each database
-- connection (its backend's pid, of 1,024 shards, so that two connections rarely share one: with
-- 16, the ten of a pool shared some, and pgbench billed 13% fewer batches a second) has a lease
-- per campaign and day (`sdk_budget_leases`), which its batches spend from, holding only that
-- row, and which takes from the counter only when it runs short: what the batch lacks and, while
-- more than 1,024 such batches are left of the budget and of the advertiser's funds, four
-- batches' worth more. What a lease took stays in the counter, so
--   * the counter holds what the leases took, and a lease spends only what it took: a campaign is
--     billed at most its daily budget and one impression's price;
--   * what leases took and have not spent is at most four batches for each connection that bills
--     the campaign; pacing (public.sdk_serve_ad) counts it as spent. The last 1,024 batches'
--     worth are taken exactly, each lease spends what it holds before it takes more, and a batch
--     the counter cannot cover first takes back what the other leases hold unspent (those not in
--     use: `skip locked`), so a campaign spends its whole budget;
--   * a lease is spent only under the limit it was taken with: when the budget changes, the next
--     batch of that lease gives back what it has not spent and takes again under the new limit;
--   * what a lease took is also taken from its advertiser's funds, but after every budget of the
--     batch (public.sdk_take_funds, which may give some of it back): the funds' row is locked
--     last, so a batch holding it never waits for a lease or a counter. Here the funds are only
--     read, unlocked, to lease ahead only when they are far from spent too.
-- Locks, in this order: the lease, then the counter, then (never waiting) the other leases.
create or replace function public.sdk_take_budget(p_campaign uuid, p_period timestamptz, p_items integer, p_unit bigint, p_limit bigint,
                                                   p_advertiser uuid default null, out items integer, out funds bigint)
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
  v_funds_left bigint;
begin
  items := 0;
  funds := 0;
  if p_items <= 0 then
    return;
  end if;
  -- The common case, in one statement: the lease covers the batch.
  update public.sdk_budget_leases l set spent = l.spent + v_cost
  where l.campaign_id = p_campaign and l.period = p_period and l.shard = v_shard
    and l.lease_limit = p_limit and l.granted - l.spent >= v_cost;
  if found then
    items := p_items;
    return;
  end if;

  insert into public.sdk_budget_leases as l (campaign_id, period, shard, lease_limit) values (p_campaign, p_period, v_shard, p_limit)
  on conflict (campaign_id, period, shard) do update set spent = l.spent
  returning l.granted, l.spent, l.lease_limit into v_lease;
  v_left := v_lease.granted - v_lease.spent;
  if v_lease.lease_limit <> p_limit and v_left > 0 then
    -- Taken under another limit: given back, and taken again under this one.
    update public.sdk_counters set used = greatest(used - v_left, 0) where name = 'budget:' || p_campaign and period = p_period;
    funds := funds - v_left;
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
        funds := funds - v_back;
      end if;
    end if;
    if v_used < p_limit then
      if p_limit - v_used > 1024 * v_cost and p_advertiser is not null then
        -- The advertiser's funds left as last counted (public.sdk_take_funds), unlocked: no row yet is none.
        select f.spendable_micro - f.taken_micro into v_funds_left from public.sdk_advertiser_funds f where f.advertiser_id = p_advertiser;
      end if;
      v_more := least((p_items - v_taken) + case when p_limit - v_used > 1024 * v_cost and (p_advertiser is null or coalesce(v_funds_left, 0) > 1024 * v_cost)
                                                 then 4 * p_items else 0 end,
                      ceil((p_limit - v_used)::numeric / greatest(p_unit, 1)))::integer;
      update public.sdk_counters set used = used + v_more::bigint * p_unit where name = 'budget:' || p_campaign and period = p_period;
      funds := funds + v_more::bigint * p_unit;
      v_left := v_left + v_more::bigint * p_unit;
      v_taken := least(p_items, v_left / greatest(p_unit, 1));
    end if;
  end if;
  update public.sdk_budget_leases
  set granted = spent + v_left, spent = spent + v_taken::bigint * p_unit, lease_limit = p_limit
  where campaign_id = p_campaign and period = p_period and shard = v_shard;
  items := v_taken;
end $$;

revoke all on function public.sdk_take_budget(uuid, timestamptz, integer, bigint, bigint, uuid) from public, anon, authenticated;
grant execute on function public.sdk_take_budget(uuid, timestamptz, integer, bigint, bigint, uuid) to sdk;

-- An advertiser's funds at billing (migration 20261213000800_spend_within_funds): billing never
-- bills an advertiser past what it may spend. public.sdk_record_events calls it once per
-- advertiser whose leases took from (or gave back to) their budgets in the batch, after every
-- budget (public.sdk_take_budget), advertisers in id order: `p_micro` is by how much what the
-- batch's leases hold changed, and the arrays describe the batch's groups of that advertiser, in
-- the order they were taken (campaign, its lease's change `p_funds`, price `p_units`,
-- impressions taken `p_items`). Answers null when the funds cover it (the common case), else the
-- impressions each group keeps.
--
-- `sdk_advertiser_funds` holds, per advertiser, what billing has taken (`taken_micro`: what the
-- leases of all its campaigns took from their budgets, less what they gave back and what the
-- roll-up has posted to the ledger since: public.ledger_post_ad_spend) and what it may spend as
-- last read from the ledger (`spendable_micro`, public.account_spendable_micro: the balance less
-- card money not cleared yet; lowered with `taken_micro` when the roll-up posts), read again
-- when a batch needs more than it leaves or when it is older than a second (a sum over the
-- account's postings: not for every batch). What is left is their difference. When the batch
-- wants more, the impression that crosses the last of the funds is still taken (as with a
-- budget, so that a balance reaches zero and the roll-up pauses the campaigns) and the rest
-- goes back: first what the groups' leases hold beyond the batch, then the batch's last
-- impressions, each from its own lease and budget counter, which this batch holds already
-- (only groups that took from their counter give back). So an advertiser's balance goes below
-- zero by less than one impression's price, at most.
-- It locks the funds' row last, after every lease and counter of the batch, and in advertiser
-- order: a batch holding it waits for nothing but another advertiser's row further on, so two
-- batches never wait on each other in a circle. Security definer: it reads the ledger.
create or replace function public.sdk_take_funds(p_advertiser uuid, p_micro bigint, p_period timestamptz, p_campaigns uuid[], p_funds bigint[],
                                                 p_units bigint[], p_items integer[])
returns integer[]
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_shard smallint := pg_backend_pid() % 1024;
  v_row public.sdk_advertiser_funds;
  v_spendable bigint;
  v_checked timestamptz;
  v_left bigint;
  v_back bigint;
  v_cut bigint;
  v_share bigint;
  v_unspent bigint;
  v_from bigint;
  v_k integer;
  v_kept integer[] := p_items;
  v_unit bigint := 1;
begin
  if p_advertiser is null or p_micro = 0 then
    return null;
  end if;
  insert into public.sdk_advertiser_funds as f (advertiser_id) values (p_advertiser)
  on conflict (advertiser_id) do update set taken_micro = f.taken_micro
  returning f.* into v_row;
  if p_micro < 0 then
    update public.sdk_advertiser_funds set taken_micro = greatest(taken_micro + p_micro, 0) where advertiser_id = p_advertiser;
    return null;
  end if;

  v_spendable := v_row.spendable_micro;
  v_checked := v_row.checked_at;
  if v_checked is null or v_checked < now() - interval '1 second' or v_spendable - v_row.taken_micro < p_micro then
    v_spendable := public.account_spendable_micro('advertiser', p_advertiser);
    v_checked := now();
  end if;
  v_left := v_spendable - v_row.taken_micro;
  for i in 1 .. coalesce(array_length(p_campaigns, 1), 0) loop
    if p_funds[i] > 0 then
      v_unit := greatest(v_unit, p_units[i]);
    end if;
  end loop;
  -- What goes back: what is past the funds left, less (while something is left) one impression.
  v_back := least(p_micro, greatest(0, p_micro - v_left - case when v_left > 0 then v_unit - 1 else 0 end));

  v_cut := 0;
  if v_back > 0 then
    -- The last groups first, each giving back at most what its lease took in this batch.
    for i in reverse coalesce(array_length(p_campaigns, 1), 0) .. 1 loop
      exit when v_cut >= v_back;
      continue when p_funds[i] <= 0;
      v_share := least(v_back - v_cut, p_funds[i]);
      select l.granted - l.spent into v_unspent from public.sdk_budget_leases l
      where l.campaign_id = p_campaigns[i] and l.period = p_period and l.shard = v_shard;
      v_from := least(v_share, coalesce(v_unspent, 0));
      v_k := least(v_kept[i], ceil((v_share - v_from)::numeric / greatest(p_units[i], 1))::integer);
      v_share := least(v_share, v_from + v_k::bigint * p_units[i]);
      update public.sdk_budget_leases set granted = granted - v_share, spent = spent - v_k::bigint * p_units[i]
      where campaign_id = p_campaigns[i] and period = p_period and shard = v_shard;
      update public.sdk_counters set used = greatest(used - v_share, 0) where name = 'budget:' || p_campaigns[i] and period = p_period;
      v_kept[i] := v_kept[i] - v_k;
      v_cut := v_cut + v_share;
    end loop;
  end if;

  update public.sdk_advertiser_funds
  set taken_micro = taken_micro + p_micro - v_cut, spendable_micro = v_spendable, checked_at = v_checked
  where advertiser_id = p_advertiser;
  return case when v_cut > 0 then v_kept end;
end $$;

revoke all on function public.sdk_take_funds(uuid, bigint, timestamptz, uuid[], bigint[], bigint[], integer[]) from public, anon, authenticated;
grant execute on function public.sdk_take_funds(uuid, bigint, timestamptz, uuid[], bigint[], bigint[], integer[]) to sdk;

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
--   5. clicks, one at a time: sdk_invalid_reason (after its impression, once per ad, one per
--      address and ad in 3 hours), and the campaign still running and within its budget.
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
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.client_hash, d.created_at, d.impression_event_id, d.click_event_id
    from public.ad_decisions d
    where d.id in (select e.decision_id from events e) and d.creative_id is not null
    order by d.id
    for update
  ), judged as materialized (
    -- Materialized: the rules run once per impression (inlined, the reason would be computed
    -- again wherever the steps below read it).
    select i.n, i.id, d.id as decision_id, d.placement_id, d.campaign_id, c.advertiser_id, d.creative_id, p.format, d.created_at as served_at,
           i.visible_share, i.visible_seconds, public.sdk_cost_per_impression(p.format, v_pricing) as cost_usd, c.daily_budget_usd,
           case
             when d.id is null then 'unknown_decision'
             when i.nth_of_id > 1 or i.id in (d.impression_event_id, d.click_event_id)
                  or exists (select 1 from public.ad_events x where x.placement_id = d.placement_id and x.event_id = i.id) then 'duplicate'
             else public.sdk_impression_reason(
                    p_bot, d.client_hash = p_client_hash, extract(epoch from now() - d.created_at), p.format,
                    i.visible_share, i.visible_seconds, i.area_px, d.impression_event_id is not null,
                    public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()))
           end as reason
    from input i
    left join locked d on d.id = i.decision_id
    left join public.placements p on p.id = d.placement_id
    left join public.campaigns c on c.id = d.campaign_id
  ), once as (
    select j.n, j.id, j.decision_id, j.placement_id, j.campaign_id, j.advertiser_id, j.creative_id, j.format, j.served_at, j.visible_share,
           j.visible_seconds, j.cost_usd, j.daily_budget_usd,
           case when j.reason is null and row_number() over (partition by j.reason is null, j.decision_id order by j.n) > 1
                then 'already_counted' else j.reason end as reason
    from judged j
  ), capped as (
    select o.n, o.id, o.decision_id, o.placement_id, o.campaign_id, o.advertiser_id, o.creative_id, o.format, o.served_at, o.visible_share,
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
    select w.campaign_id, w.advertiser_id, w.format, w.unit,
           public.sdk_take_budget(w.campaign_id, v_day, w.wanted, w.unit, (w.daily_budget_usd * 1000000)::bigint, w.advertiser_id) as took
    from (select c.campaign_id, c.advertiser_id, c.format, count(*)::integer as wanted, (min(c.cost_usd) * 1000000)::bigint as unit,
                 min(c.daily_budget_usd) as daily_budget_usd
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
    select c.n, c.id, c.decision_id, c.placement_id, c.campaign_id, c.creative_id, c.visible_share, c.visible_seconds, c.cost_usd,
           case when c.reason is null and c.nth_of_group > coalesce(k.items, (g.took).items) then 'over_budget' else c.reason end as reason
    from ranked c left join granted g on g.campaign_id = c.campaign_id and g.format = c.format
         left join cut k on k.campaign_id = c.campaign_id and k.format = c.format
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
    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, impressions, invalid, revenue_usd, cost_usd)
    select v_app, c.placement_id, c.campaign_id, c.creative_id, v_today,
           count(*) filter (where c.reason is null), count(*) filter (where c.reason is not null),
           coalesce(sum(public.sdk_publisher_revenue(c.cost_usd, v_pricing)) filter (where c.reason is null), 0),
           coalesce(sum(c.cost_usd) filter (where c.reason is null), 0)
    from final c
    where c.reason is distinct from 'duplicate' and c.reason is distinct from 'unknown_decision'
    group by c.placement_id, c.campaign_id, c.creative_id
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
           public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()) as running,
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
end $$;
revoke all on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) to sdk;

-- What the roll-up counted as billed enters the ledger as it is counted (migration
-- 20261207000000_advertisers): public.roll_up_ad_traffic leaves its run's billed counts in
-- `ad_spend_pending` (per day, campaign and app, in micro-dollars), and this, in the same
-- transaction, writes one `ad_spend` transaction per day they
-- cover (normally one; two around midnight), reference `<uuid>:<day>`, dated in that day (now,
-- or the day's last microsecond for a day that is over), whose postings are:
--   each campaign's advertiser   minus what the campaign's ads cost (attributed to the campaign);
--                                a campaign with no advertiser account (one created before them)
--                                is paid for out of `ad_sales`, as all ads were before;
--   each app's publisher         plus what the app's placements earned (attributed to the app);
--   `platform_fees`              plus the rest of what the app's ads cost (attributed to the app).
-- So they balance by construction: what advertisers spend is what publishers earn plus the fee.
-- Exactly once: the pending rows and the counts they came from leave in the same transaction
-- that posts them (another run's rows, not committed, are not visible here). Then each advertiser it debited whose balance is gone has their running
-- campaigns paused (`out_of_funds`; what they may spend, public.account_spendable_micro: the
-- balance less card money not cleared yet, migration 20261213000500_reversals), and each campaign whose whole budget is spent is completed.
-- What it posted also leaves what billing counts as taken from each advertiser's funds and not
-- in the ledger yet (`sdk_advertiser_funds`, public.sdk_take_funds, migration
-- 20261213000800_spend_within_funds), with what budget leases of days gone hold unspent (no
-- batch can spend them any more); advertisers' rows in id order, as billing locks them.
-- Answers how many transactions it wrote.
create or replace function public.ledger_post_ad_spend()
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_day record;
  v_postings jsonb;
  v_written integer := 0;
  v_moved jsonb;
begin
  for v_day in select distinct t.day from public.ad_spend_pending t order by t.day loop
    select jsonb_agg(x.posting) into v_postings
    from (
      select jsonb_build_object('account_id', case when c.advertiser_id is null then public.ledger_account('ad_sales', null)
                                                     else public.ledger_account('advertiser', c.advertiser_id) end,
                                'amount_micro', -sum(t.cost_micro), 'campaign_id', t.campaign_id) as posting
      from public.ad_spend_pending t left join public.campaigns c on c.id = t.campaign_id
      where t.day = v_day.day
      group by t.campaign_id, c.advertiser_id
      union all
      select jsonb_build_object('account_id', public.ledger_account('publisher', a.user_id), 'amount_micro', sum(t.revenue_micro), 'app_id', t.app_id)
      from public.ad_spend_pending t join public.apps a on a.id = t.app_id
      where t.day = v_day.day
      group by t.app_id, a.user_id
      union all
      select jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', sum(t.cost_micro - t.revenue_micro), 'app_id', t.app_id)
      from public.ad_spend_pending t
      where t.day = v_day.day
      group by t.app_id
    ) x;
    if public.ledger_post('ad_spend', gen_random_uuid() || ':' || v_day.day,
                          least(now(), (v_day.day + 1)::timestamp at time zone 'UTC' - interval '1 microsecond'), null, v_postings) is not null then
      v_written := v_written + 1;
    end if;
  end loop;

  -- Billing's count of each advertiser's funds: what was just posted is in the ledger now, and
  -- what leases of days gone hold unspent is the advertiser's again (a lease in use, by a batch
  -- begun before midnight, is skipped: the next run takes it).
  with gone as (
    select l.campaign_id, l.period, l.shard, l.granted - l.spent as unspent
    from public.sdk_budget_leases l
    where l.period < date_trunc('day', now(), 'UTC') and l.granted > l.spent
    limit 10000
    for update skip locked
  ), back as (
    update public.sdk_budget_leases l set granted = l.spent
    from gone g
    where l.campaign_id = g.campaign_id and l.period = g.period and l.shard = g.shard
    returning g.campaign_id, g.unspent
  ), moved as (
    select c.advertiser_id, t.cost_micro as posted, 0::bigint as unspent
    from public.ad_spend_pending t join public.campaigns c on c.id = t.campaign_id
    where c.advertiser_id is not null
    union all
    select c.advertiser_id, 0, b.unspent
    from back b join public.campaigns c on c.id = b.campaign_id
    where c.advertiser_id is not null
  )
  select jsonb_agg(jsonb_build_object('advertiser_id', m.advertiser_id, 'posted', m.posted, 'unspent', m.unspent) order by m.advertiser_id) into v_moved
  from (select x.advertiser_id, sum(x.posted)::bigint as posted, sum(x.unspent)::bigint as unspent from moved x group by x.advertiser_id) m;
  if v_moved is not null then
    perform 1 from public.sdk_advertiser_funds f
    where f.advertiser_id in (select (e ->> 'advertiser_id')::uuid from jsonb_array_elements(v_moved) e)
    order by f.advertiser_id
    for update;
    update public.sdk_advertiser_funds f
    set taken_micro = greatest(f.taken_micro - m.posted - m.unspent, 0), spendable_micro = f.spendable_micro - m.posted
    from jsonb_to_recordset(v_moved) as m(advertiser_id uuid, posted bigint, unspent bigint)
    where f.advertiser_id = m.advertiser_id;
  end if;

  -- Out of funds: the advertisers just debited whose balance is gone.
  update public.campaigns c set status = 'paused', pause_reason = 'out_of_funds', updated_at = now()
  where c.status in ('scheduled', 'active')
    and c.advertiser_id in (select distinct x.advertiser_id from public.ad_spend_pending t join public.campaigns x on x.id = t.campaign_id
                            where x.advertiser_id is not null and public.account_spendable_micro('advertiser', x.advertiser_id) <= 0);
  -- Their whole budget spent: the campaigns just billed.
  update public.campaigns c set status = 'completed', completed_at = now(), updated_at = now()
  where c.status in ('scheduled', 'active', 'paused') and c.lifetime_budget_usd is not null
    and c.id in (select t.campaign_id from public.ad_spend_pending t)
    and (select coalesce(sum(s.spent_usd), 0) from public.campaign_daily_spend s where s.campaign_id = c.id) >= c.lifetime_budget_usd;
  delete from public.ad_spend_pending;
  return v_written;
end $$;

revoke all on function public.ledger_post_ad_spend() from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_spend() to service_role;

