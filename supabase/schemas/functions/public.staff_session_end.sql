-- Sign-out of staff session `p_session` of `p_user` (migration 20261213000000_staff_factor_budget):
-- from now on its cookie, and every copy of it, signs in nobody. Answers whether it was open.
-- Executable by the service role (lib/identity/auth/staff.ts).
create or replace function public.staff_session_end(p_session uuid, p_user uuid)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
begin
  update public.staff_sessions ss set ended_at = now()
  where ss.id = p_session and ss.user_id = p_user and ss.ended_at is null;
  return found;
end $$;

revoke all on function public.staff_session_end(uuid, uuid) from public, anon, authenticated, sdk;
grant execute on function public.staff_session_end(uuid, uuid) to service_role;
