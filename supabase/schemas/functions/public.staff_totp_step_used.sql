-- Staff sign-in's second factor (migration 20261206000000_payouts): records that staff member
-- `p_user` used the code of the 30-second step `p_step`, and answers whether that step is later
-- than the last one accepted, so each code signs in once (RFC 6238 §5.2), even if two sign-ins
-- race with it. Executable by the service role, which signs staff in (lib/identity/auth/staff.ts).
create or replace function public.staff_totp_step_used(p_user uuid, p_step bigint)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
begin
  update public.staff_members s set last_totp_step = p_step where s.user_id = p_user and s.last_totp_step < p_step;
  return found;
end $$;

revoke all on function public.staff_totp_step_used(uuid, bigint) from public, anon, authenticated, sdk;
grant execute on function public.staff_totp_step_used(uuid, bigint) to service_role;
