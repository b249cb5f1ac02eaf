-- GET /api/v1/me: the caller's profile row as JSON. Like every account read it runs as its
-- caller (security invoker): row-level security decides what it sees and no function names a
-- user. As a PL/pgSQL function its plan is kept for the session, so a read costs its execution,
-- not its planning. Null when the caller has no profile row; fails (cardinality_violation) if a
-- broken policy ever let more than one profile through.
create or replace function public.account_profile() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object('id', u.id, 'email', u.email, 'name', u.name, 'company', u.company, 'role', u.role, 'created_at', u.created_at)
          from public.users u);
end $$;

-- Functions are executable by everyone unless revoked (and Supabase grants new functions in
-- public to anon by name); only signed-in callers read accounts.
revoke execute on function public.account_profile() from public, anon;
grant execute on function public.account_profile() to authenticated;
