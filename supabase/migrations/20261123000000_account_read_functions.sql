-- The account reads (GET /api/v1/me, /me/apps, /me/earnings, /me/api-keys), one function each,
-- returning the caller's profile row with its lists as JSON. They run as the caller (security
-- invoker): row-level security decides what they see, exactly as for a query sent by the
-- application, and no function names a user. As PL/pgSQL functions their plans are kept for the
-- session, so a read costs its execution, not its planning: on the embedded database planning
-- the same SELECT on every request was most of a read's time.
--
-- Each returns null when the caller has no profile row (deleted since the token was issued),
-- and fails (cardinality_violation) if a broken policy ever let more than one profile through.

create function public.account_profile() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'company', u.company, 'role', u.role, 'created_at', u.created_at)
          from public.users u);
end $$;

create function public.account_apps() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'apps', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, name, slug, description, category, created_at from public.apps) r),
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, created_at
                                 from public.placements) r))
          from public.users u);
end $$;

create function public.account_earnings() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, created_at
                                 from public.placements) r),
            'payouts', (select coalesce(json_agg(r order by r.period desc), '[]')
                        from (select period, amount_usd, status, paid_at, requested_at from public.payouts) r))
          from public.users u);
end $$;

create function public.account_api_keys() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'api_keys', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                         from (select id, name, environment, status, key_prefix, key_last4, created_at, last_used_at
                               from public.api_keys) r))
          from public.users u);
end $$;

-- Functions are executable by everyone unless revoked (and Supabase grants new functions in
-- public to anon by name); only signed-in callers read accounts.
revoke execute on function public.account_profile(), public.account_apps(), public.account_earnings(), public.account_api_keys() from public, anon;
grant execute on function public.account_profile(), public.account_apps(), public.account_earnings(), public.account_api_keys() to authenticated;
