-- GET /api/v1/me/earnings: every placement of the caller's (archived apps' too) with its
-- figures, and the payouts. Runs as its caller, like every account read.
create or replace function public.account_earnings() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, fills, invalid_events, created_at
                                 from public.placements) r),
            'payouts', (select coalesce(json_agg(r order by r.period desc), '[]')
                        from (select period, amount_usd, status, paid_at, requested_at from public.payouts) r))
          from public.users u);
end $$;

revoke execute on function public.account_earnings() from public, anon;
grant execute on function public.account_earnings() to authenticated;
