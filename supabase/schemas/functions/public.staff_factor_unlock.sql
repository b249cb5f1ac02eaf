-- Unlocks the second factor of the staff member whose email is `p_email` (migration
-- 20261213000000_staff_factor_budget), out of band: `npm run staff:unlock -- <email>`
-- (scripts/staff.ts), never a route. Forgets the wrong codes counted, and writes the audit log,
-- with `p_why`, whether or not the factor was locked. Answers null for an email of no staff member.
create or replace function public.staff_factor_unlock(p_email text, p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid;
  v_locked_at timestamptz;
  v_cleared integer;
begin
  select s.user_id, s.factor_locked_at into v_user, v_locked_at
  from public.staff_members s join public.users u on u.id = s.user_id
  where u.email = lower(btrim(p_email))
  for update of s;
  if not found then
    return null;
  end if;
  update public.staff_members s set factor_locked_at = null where s.user_id = v_user;
  delete from public.staff_factor_attempts a where a.user_id = v_user;
  get diagnostics v_cleared = row_count;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (v_user, 'staff.second_factor_unlocked', v_user::text, nullif(btrim(coalesce(p_why, '')), ''),
          jsonb_build_object('was_locked_at', v_locked_at, 'wrong_codes_forgotten', v_cleared, 'by', 'command line'));
  return json_build_object('user_id', v_user, 'was_locked', v_locked_at is not null, 'wrong_codes_forgotten', v_cleared);
end $$;

revoke all on function public.staff_factor_unlock(text, text) from public, anon, authenticated, sdk;
grant execute on function public.staff_factor_unlock(text, text) to service_role;
