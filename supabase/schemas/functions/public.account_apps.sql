-- GET /api/v1/me/apps: the caller's apps that are not archived, with their allowed origins,
-- excluded topics and blocks, and their placements with the rolled-up figures (fills and invalid
-- traffic included; what clicks of ads paid per click earned apart, migration
-- 20261221000300_cost_per_click) and min_relevance. Runs as its caller: row-level
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
                           from (select p.id, p.app_id, p.name, p.format, p.status, p.impressions, p.clicks, p.revenue_micro, p.click_revenue_micro,
                                        p.ad_requests, p.fills, p.invalid_events, p.min_relevance, p.created_at
                                 from public.placements p join public.apps a on a.id = p.app_id
                                 where a.archived_at is null) r))
          from public.users u);
end $$;

revoke execute on function public.account_apps() from public, anon;
grant execute on function public.account_apps() to authenticated;
