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
