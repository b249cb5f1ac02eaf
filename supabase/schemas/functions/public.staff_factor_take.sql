-- Staff sign-in's second factor has a hard budget (migration 20261213000000_staff_factor_budget):
-- takes one of the `p_budget` codes staff member `p_user` may get wrong in `p_window_s` seconds,
-- from anywhere, before the code is checked, so that parallel guesses cannot all pass a count made
-- before any of them failed; public.staff_factor_settle gives it back when the code was right, or
-- locks the factor when it was the last. Answers the attempt's id, or null (check no code) when the
-- factor is locked, the budget is taken by attempts still being checked, or `p_user` is no staff.
-- The member's row is locked for the count, so concurrent attempts count one after another.
-- Executable by the service role, which signs staff in (lib/identity/auth/staff.ts).
create or replace function public.staff_factor_take(p_user uuid, p_budget integer, p_window_s integer)
returns bigint
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_locked_at timestamptz;
  v_count integer;
  v_id bigint;
begin
  select s.factor_locked_at into v_locked_at from public.staff_members s where s.user_id = p_user for update;
  if not found or v_locked_at is not null then
    return null;
  end if;
  delete from public.staff_factor_attempts a where a.user_id = p_user and a.at <= now() - make_interval(secs => p_window_s);
  select count(*) into v_count from public.staff_factor_attempts a where a.user_id = p_user;
  if v_count >= p_budget then
    return null;
  end if;
  insert into public.staff_factor_attempts (user_id) values (p_user) returning id into v_id;
  return v_id;
end $$;

revoke all on function public.staff_factor_take(uuid, integer, integer) from public, anon, authenticated, sdk;
grant execute on function public.staff_factor_take(uuid, integer, integer) to service_role;
