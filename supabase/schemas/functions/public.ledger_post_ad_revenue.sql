-- Ad revenue counted before advertisers had ledger accounts (migration 20261207000000_advertisers)
-- enters the ledger as it always did: per app and day, once the day is over (an hour after its
-- end, and once no count of it or of an earlier day waits for the roll-up), paid out of
-- `ad_sales`. Since that migration the roll-up posts what it counts as it counts it
-- (public.ledger_post_ad_spend), so only the daily stats of the demo's seeded history and of
-- databases migrated from before are left for this: the part of a row not in the ledger yet
-- (`revenue_micro - posted_micro`, indexed while it is not zero). Each app's day is two
-- transactions, written once each (public.ledger_post, kind and reference `<app>:<day>`):
--   ad_revenue     what the publisher earned: out of `ad_sales`, into the publisher's account;
--   platform_fee   the rest of what the ads cost: out of `ad_sales`, into `platform_fees`;
-- and its rows are then marked posted. Up to `p_limit` apps' days a run; answers how many it
-- posted. `p_now` is the clock it reads (the seed and tests move it; the roll-up passes none).
create or replace function public.ledger_post_ad_revenue(p_limit integer default 1000, p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed date := ((p_now - interval '1 hour') at time zone 'UTC')::date - 1;
  v_sales uuid;
  v_fees uuid;
  v_day record;
  v_at timestamptz;
  v_revenue bigint;
  v_fee bigint;
  v_posted integer := 0;
begin
  -- A day whose counts still wait for the roll-up is not over.
  select least(v_closed, min(c.day) - 1) into v_closed from public.ad_traffic_counts c;
  -- Nothing left to post, the common case: one look at an index that holds only what is left.
  if not exists (select 1 from public.daily_stats s where s.revenue_micro <> s.posted_micro and s.day <= v_closed) then
    return 0;
  end if;
  v_sales := public.ledger_account('ad_sales', null);
  v_fees := public.ledger_account('platform_fees', null);
  for v_day in
    select p.app_id, p.user_id, s.day, sum(s.revenue_micro - s.posted_micro)::bigint as revenue,
           sum(s.cost_micro - s.posted_cost_micro)::bigint as cost
    from public.daily_stats s join public.placements p on p.id = s.placement_id
    where s.revenue_micro <> s.posted_micro and s.day <= v_closed
    group by p.app_id, p.user_id, s.day
    order by s.day, p.app_id
    limit p_limit
  loop
    v_at := v_day.day::timestamp at time zone 'UTC';
    v_revenue := v_day.revenue;
    -- What the ads cost is at least what they earned (daily stats from before costs were kept have none).
    v_fee := greatest(v_day.cost - v_revenue, 0);
    perform public.ledger_post('ad_revenue', v_day.app_id || ':' || v_day.day, v_at, null,
      jsonb_build_array(jsonb_build_object('account_id', v_sales, 'amount_micro', -v_revenue, 'app_id', v_day.app_id),
                        jsonb_build_object('account_id', public.ledger_account('publisher', v_day.user_id), 'amount_micro', v_revenue,
                                           'app_id', v_day.app_id)));
    if v_fee > 0 then
      perform public.ledger_post('platform_fee', v_day.app_id || ':' || v_day.day, v_at, null,
        jsonb_build_array(jsonb_build_object('account_id', v_sales, 'amount_micro', -v_fee, 'app_id', v_day.app_id),
                          jsonb_build_object('account_id', v_fees, 'amount_micro', v_fee, 'app_id', v_day.app_id)));
    end if;
    update public.daily_stats s set posted_micro = s.revenue_micro, posted_cost_micro = s.cost_micro
    from public.placements p
    where p.id = s.placement_id and p.app_id = v_day.app_id and s.day = v_day.day and s.revenue_micro <> s.posted_micro;
    v_posted := v_posted + 1;
  end loop;
  return v_posted;
end $$;

revoke all on function public.ledger_post_ad_revenue(integer, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_revenue(integer, timestamptz) to service_role;
