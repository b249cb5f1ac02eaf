-- GET /api/v1/me/campaigns and the MCP tool `list_my_campaigns` (scope campaigns:read, migration
-- 20261208000000_account_campaigns): the caller's advertiser balance, exactly, in micro-dollars
-- (the postings of their `advertiser` ledger account: top-ups in, ad spend out), and their
-- campaigns, oldest first, each with its totals from the daily figures the roll-up keeps
-- (`campaign_daily_stats`: impressions, clicks, hides by users, and spend in micro-dollars,
-- exact, and the conversions counted and their value, migration 20261221000100_campaign_conversions;
-- its bid per click when it pays per click, migration 20261221000300_cost_per_click)
-- and its creatives, oldest first. A user who is not an advertiser has no campaigns and no
-- advertiser account: an empty list and 0. Like the other account reads it runs as its caller, so row-level
-- security alone decides whose rows these are, and it names no user.
create or replace function public.account_campaigns() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'balance_micro', (select coalesce(sum(p.amount_micro), 0)::bigint
                              from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                              where a.kind = 'advertiser'),
            'campaigns', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                          from (select c.id, c.name, c.status, c.pause_reason, c.rejection_reason, c.starts_at, c.ends_at, c.hard_stop,
                                       c.formats, c.lifetime_budget_micro, c.daily_cap_micro, c.created_at,
                                       c.context_hints, c.excluded_phrases, c.advertiser_category, c.attribution_window_days, c.max_cpc_micro,
                                       coalesce(s.impressions, 0)::bigint as impressions, coalesce(s.clicks, 0)::bigint as clicks,
                                       coalesce(s.hides, 0)::bigint as hides,
                                       coalesce(s.spend_micro, 0)::bigint as spend_micro, coalesce(s.conversions, 0)::bigint as conversions,
                                       coalesce(s.conversion_value_micro, 0)::bigint as conversion_value_micro,
                                       coalesce(k.creatives, '[]') as creatives
                                from public.campaigns c
                                left join (select d.campaign_id, sum(d.impressions) as impressions, sum(d.clicks) as clicks,
                                                  sum(d.hides) as hides, sum(d.spent_micro) as spend_micro, sum(d.conversions) as conversions,
                                                  sum(d.conversion_value_micro) as conversion_value_micro
                                           from public.campaign_daily_stats d group by d.campaign_id) s on s.campaign_id = c.id
                                left join (select x.campaign_id,
                                                  json_agg(json_build_object('id', x.id, 'format', x.format, 'status', x.status,
                                                                             'rejection_reason', x.rejection_reason, 'headline', x.headline)
                                                           order by x.created_at, x.id) as creatives
                                           from public.creatives x group by x.campaign_id) k on k.campaign_id = c.id) r))
          from public.users u);
end $$;

revoke execute on function public.account_campaigns() from public, anon;
grant execute on function public.account_campaigns() to authenticated;
