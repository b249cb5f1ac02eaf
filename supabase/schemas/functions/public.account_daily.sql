-- The daily figures behind the console's earnings chart and `GET /api/v1/me/earnings/daily`: the
-- caller's rows of `daily_stats` for the last 90 days (the longest period offered), each with
-- the app of its placement. Like the other account reads it runs as its caller, so row-level
-- security alone decides whose rows these are, and it names no user.
create or replace function public.account_daily() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'daily', (select coalesce(json_agg(r order by r.day, r.placement_id), '[]')
                      from (select d.placement_id, p.app_id, d.day, d.impressions, d.clicks, d.revenue_micro
                            from public.daily_stats d join public.placements p on p.id = d.placement_id
                            where d.day > current_date - 90) r))
          from public.users u);
end $$;

revoke execute on function public.account_daily() from public, anon;
grant execute on function public.account_daily() to authenticated;
