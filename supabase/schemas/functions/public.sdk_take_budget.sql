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
