-- What the operator reads of each campaign's traffic over the last `p_days` days (issue 44,
-- migration 20261221000200_traffic_quality): its counted clicks (the daily figures) and refused
-- ones (`ad_events`, each ad's refusal once per reason: a refused click is kept for 35 days), its
-- counted conversions and those kept as invalid (`conversions`, by the day they arrived; a foreign
-- click's conversion names no campaign and is in no campaign's figures), with the reasons, so that
-- clicks or conversions that look bought can be looked into. The campaigns with any of these, the
-- most first, at most `p_limit`. Staff only (public.is_staff).
create or replace function public.staff_traffic_quality(p_days integer default 30, p_limit integer default 100)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_since timestamptz := now() - make_interval(days => greatest(p_days, 1));
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return (select coalesce(json_agg(r order by r.clicks + r.invalid_clicks + r.conversions + r.invalid_conversions desc, r.name, r.id), '[]')
          from (select c.id, c.name, c.advertiser, c.status,
                       coalesce(s.clicks, 0)::bigint as clicks, coalesce(e.invalid_clicks, 0)::bigint as invalid_clicks,
                       coalesce(e.reasons, '{}'::jsonb) as click_reasons,
                       coalesce(v.conversions, 0)::bigint as conversions, coalesce(v.invalid_conversions, 0)::bigint as invalid_conversions,
                       coalesce(v.reasons, '{}'::jsonb) as conversion_reasons
                from public.campaigns c
                left join (select d.campaign_id, sum(d.clicks) as clicks from public.campaign_daily_stats d
                           where d.day >= (v_since at time zone 'UTC')::date group by d.campaign_id) s on s.campaign_id = c.id
                left join (select x.campaign_id, sum(x.n) as invalid_clicks, jsonb_object_agg(x.invalid_reason, x.n) as reasons
                           from (select a.campaign_id, a.invalid_reason, count(*) as n from public.ad_events a
                                 where a.kind = 'click' and not a.billable and a.occurred_at >= v_since and a.campaign_id is not null
                                 group by a.campaign_id, a.invalid_reason) x
                           group by x.campaign_id) e on e.campaign_id = c.id
                left join (select y.campaign_id, sum(y.n) filter (where y.valid) as conversions, sum(y.n) filter (where not y.valid) as invalid_conversions,
                                  jsonb_object_agg(y.invalid_reason, y.n) filter (where not y.valid) as reasons
                           from (select k.campaign_id, k.valid, k.invalid_reason, count(*) as n from public.conversions k
                                 where k.received_at >= v_since and k.campaign_id is not null
                                 group by k.campaign_id, k.valid, k.invalid_reason) y
                           group by y.campaign_id) v on v.campaign_id = c.id
                where coalesce(s.clicks, 0) + coalesce(e.invalid_clicks, 0) + coalesce(v.conversions, 0) + coalesce(v.invalid_conversions, 0) > 0
                order by coalesce(s.clicks, 0) + coalesce(e.invalid_clicks, 0) + coalesce(v.conversions, 0) + coalesce(v.invalid_conversions, 0) desc, c.id
                limit greatest(p_limit, 0)) r);
end $$;

revoke all on function public.staff_traffic_quality(integer, integer) from public, anon, sdk;
grant execute on function public.staff_traffic_quality(integer, integer) to authenticated;
