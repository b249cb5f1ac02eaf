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
  where c.status in ('scheduled', 'active', 'paused') and c.lifetime_budget_micro is not null
    and c.id in (select t.campaign_id from public.ad_spend_pending t)
    and (select coalesce(sum(s.spent_micro), 0) from public.campaign_daily_spend s where s.campaign_id = c.id) >= c.lifetime_budget_micro;
  delete from public.ad_spend_pending;
  return v_written;
end $$;

revoke all on function public.ledger_post_ad_spend() from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_spend() to service_role;
