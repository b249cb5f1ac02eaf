-- Ad revenue enters the ledger per app and day (migration 20261204000000_ledger), from the
-- placements' daily stats the roll-up keeps (public.roll_up_ad_traffic calls this at the end of
-- each run, in its transaction). A day is posted once it is over: an hour after its end, and once
-- no count of it or of an earlier day waits for the roll-up. Each app's day is two transactions,
-- written once each (public.ledger_post, kind and reference `<app>:<day>`):
--   ad_revenue     what the publisher earned: out of `ad_sales` (what advertisers paid for ads),
--                  into the publisher's account;
--   platform_fee   the rest of what the ads cost: out of `ad_sales`, into `platform_fees`.
-- So the ledger grows with apps and days, not with traffic. A day's apps are posted up to
-- `p_limit` a run, from the last day posted on; answers how many apps' days it posted. `p_now`
-- is the clock it reads (tests move it; the roll-up passes none).
create or replace function public.ledger_post_ad_revenue(p_limit integer default 1000, p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed date := ((p_now - interval '1 hour') at time zone 'UTC')::date - 1;
  v_from date;
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
  select coalesce(max(t.occurred_at at time zone 'UTC')::date, '-infinity'::date) into v_from
  from public.ledger_transactions t where t.kind = 'ad_revenue';
  if v_from > v_closed then
    return 0;
  end if;
  v_sales := public.ledger_account('ad_sales', null);
  v_fees := public.ledger_account('platform_fees', null);
  for v_day in
    select p.app_id, p.user_id, s.day, round(sum(s.revenue_usd) * 1000000)::bigint as revenue, round(sum(s.cost_usd) * 1000000)::bigint as cost
    from public.daily_stats s join public.placements p on p.id = s.placement_id
    where s.day >= v_from and s.day <= v_closed
      and not exists (select 1 from public.ledger_transactions t where t.kind = 'ad_revenue' and t.reference = p.app_id || ':' || s.day)
    group by p.app_id, p.user_id, s.day
    having sum(s.revenue_usd) > 0
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
    v_posted := v_posted + 1;
  end loop;
  return v_posted;
end $$;

revoke all on function public.ledger_post_ad_revenue(integer, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_revenue(integer, timestamptz) to service_role;
