-- A staff session starts (migration 20261213000000_staff_factor_budget): its id goes into the
-- `monetize-ops` cookie, which works while the session is open (public.staff_session_active).
-- Forgets this member's sessions that ended or expired more than a day ago. Executable by the
-- service role, which signs staff in (lib/identity/auth/staff.ts).
create or replace function public.staff_session_start(p_user uuid, p_max_age_s integer)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  delete from public.staff_sessions ss
  where ss.user_id = p_user and coalesce(ss.ended_at, ss.expires_at) < now() - interval '1 day';
  insert into public.staff_sessions (user_id, expires_at)
  values (p_user, now() + make_interval(secs => p_max_age_s))
  returning id into v_id;
  return v_id;
end $$;

revoke all on function public.staff_session_start(uuid, integer) from public, anon, authenticated, sdk;
grant execute on function public.staff_session_start(uuid, integer) to service_role;
