-- Whether staff session `p_session` of `p_user` is open (migration
-- 20261213000000_staff_factor_budget): started, not signed out, not expired, and its member still
-- staff. Executable by the service role, which reads the ops cookie (lib/identity/auth/staff.ts).
create or replace function public.staff_session_active(p_session uuid, p_user uuid)
returns boolean
language sql stable security definer set search_path = ''
as $$
  select exists (
    select 1 from public.staff_sessions ss join public.staff_members s on s.user_id = ss.user_id
    where ss.id = p_session and ss.user_id = p_user and ss.ended_at is null and ss.expires_at > now()
  )
$$;

revoke all on function public.staff_session_active(uuid, uuid) from public, anon, authenticated, sdk;
grant execute on function public.staff_session_active(uuid, uuid) to service_role;
