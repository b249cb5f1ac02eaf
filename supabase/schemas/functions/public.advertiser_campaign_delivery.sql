-- How a campaign of the caller's is delivering today (migration 20261220000200_campaign_delivery):
-- the ad requests of today (UTC, the day its budget runs by) on the placements it targets now
-- (its formats, its categories, apps it did not exclude and that did not block it:
-- sdk_campaign_targets, sdk_campaign_blocked, the draw's own rules), how many of them it won,
-- those that no campaign was given and why (daily_stats' unfilled reasons: a sensitive
-- conversation, none relevant enough, blocked, none eligible), what it spent, the daily budgets of
-- the other running campaigns buying its formats (the draw is by daily budget), and the requests
-- of the last seven full days on the same placements (the reach estimate). Today's figures add what
-- the roll-up has not folded in yet (ad_traffic_counts), so a request shows within seconds.
-- The market's figures are other publishers' traffic and other advertisers' budgets: rounded
-- (public.market_figure), never exact. The campaign's own are exact.
-- The caller's own campaign only (null otherwise); runs for signed-in callers.
create or replace function public.advertiser_campaign_delivery(p_campaign_id uuid)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_c public.campaigns;
  v_today date := (now() at time zone 'UTC')::date;
begin
  select * into v_c from public.campaigns c where c.id = p_campaign_id and c.advertiser_id = auth.uid();
  if not found then
    return null;
  end if;
  return (
    with targeted as (
      select p.id
      from public.placements p join public.apps a on a.id = p.app_id
      where p.status = 'active'
        and public.sdk_campaign_targets(v_c.formats, v_c.include_categories, v_c.exclude_categories, v_c.excluded_apps, p.format, a.category, a.id)
        and not public.sdk_campaign_blocked(v_c.advertiser, v_c.advertiser_category,
                                            (select coalesce(array_agg(lower(x)), '{}') from unnest(a.blocked_advertisers) x), a.blocked_categories)
    ),
    today as (
      select coalesce(sum(s.ad_requests), 0) as requests, coalesce(sum(s.unfilled_sensitive), 0) as sensitive,
             coalesce(sum(s.unfilled_below_relevance), 0) as below_relevance, coalesce(sum(s.unfilled_blocked), 0) as blocked,
             coalesce(sum(s.unfilled_no_eligible_campaign), 0) as no_eligible_campaign
      from public.daily_stats s where s.day = v_today and s.placement_id in (select t.id from targeted t)
      union all
      select coalesce(sum(k.requests), 0), coalesce(sum(k.requests) filter (where k.no_fill_reason = 'sensitive'), 0),
             coalesce(sum(k.requests) filter (where k.no_fill_reason = 'below_relevance'), 0),
             coalesce(sum(k.requests) filter (where k.no_fill_reason = 'blocked'), 0),
             coalesce(sum(k.requests) filter (where k.no_fill_reason = 'no_eligible_campaign'), 0)
      from public.ad_traffic_counts k where k.day = v_today and k.placement_id in (select t.id from targeted t)
    )
    select json_build_object(
      'day', to_char(v_today, 'YYYY-MM-DD'),
      'requests', public.market_figure((select sum(t.requests) from today t)),
      'unfilled', json_build_object(
        'sensitive', public.market_figure((select sum(t.sensitive) from today t)),
        'below_relevance', public.market_figure((select sum(t.below_relevance) from today t)),
        'blocked', public.market_figure((select sum(t.blocked) from today t)),
        'no_eligible_campaign', public.market_figure((select sum(t.no_eligible_campaign) from today t))),
      'won', (select coalesce(sum(s.fills), 0) from public.campaign_daily_stats s where s.campaign_id = v_c.id and s.day = v_today)
             + (select coalesce(sum(k.fills), 0) from public.ad_traffic_counts k where k.campaign_id = v_c.id and k.day = v_today),
      'daily_budget_micro', v_c.daily_budget_micro,
      'spent_micro', (select coalesce(sum(s.spent_micro), 0) from public.campaign_daily_stats s where s.campaign_id = v_c.id and s.day = v_today),
      'week_requests', public.market_figure((select sum(s.ad_requests) from public.daily_stats s
                                             where s.day >= v_today - 7 and s.day < v_today and s.placement_id in (select t.id from targeted t))),
      'competing_budget_micro', public.market_figure((select sum(o.daily_budget_micro) from public.campaigns o
                                  where o.id <> v_c.id
                                    and public.sdk_campaign_running(o.status, o.starts_at, case when o.hard_stop then o.ends_at end, now())
                                    and (cardinality(o.formats) = 0 or cardinality(v_c.formats) = 0 or o.formats && v_c.formats))),
      'creative_formats', (select coalesce(json_agg(distinct cr.format), '[]') from public.creatives cr where cr.campaign_id = v_c.id and cr.status = 'active'))
  );
end $$;

revoke all on function public.advertiser_campaign_delivery(uuid) from public, anon, sdk;
grant execute on function public.advertiser_campaign_delivery(uuid) to authenticated;
