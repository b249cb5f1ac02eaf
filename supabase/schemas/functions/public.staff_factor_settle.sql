-- The outcome of a code checked under the budget (migration 20261213000000_staff_factor_budget):
-- a right code gives its unit back; a wrong one keeps it, and when the wrong codes of the window
-- reach `p_budget` the factor locks, with a line in the audit log. Answers whether the factor is
-- locked now. Executable by the service role, which signs staff in (lib/identity/auth/staff.ts).
create or replace function public.staff_factor_settle(p_attempt bigint, p_right boolean, p_budget integer, p_window_s integer)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid;
  v_locked_at timestamptz;
  v_count integer;
begin
  select a.user_id into v_user from public.staff_factor_attempts a where a.id = p_attempt;
  if not found then
    return false;
  end if;
  select s.factor_locked_at into v_locked_at from public.staff_members s where s.user_id = v_user for update;
  if p_right then
    delete from public.staff_factor_attempts a where a.id = p_attempt;
    return v_locked_at is not null;
  end if;
  if v_locked_at is not null then
    return true;
  end if;
  select count(*) into v_count from public.staff_factor_attempts a
  where a.user_id = v_user and a.at > now() - make_interval(secs => p_window_s);
  if v_count < p_budget then
    return false;
  end if;
  update public.staff_members s set factor_locked_at = now() where s.user_id = v_user;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (v_user, 'staff.second_factor_locked', v_user::text,
          format('%s wrong codes in %s hours, after the right password: locked until unlocked from the command line', v_count, round(p_window_s / 3600.0, 1)::float8),
          jsonb_build_object('wrong_codes', v_count, 'budget', p_budget, 'window_s', p_window_s));
  return true;
end $$;

revoke all on function public.staff_factor_settle(bigint, boolean, integer, integer) from public, anon, authenticated, sdk;
grant execute on function public.staff_factor_settle(bigint, boolean, integer, integer) to service_role;
