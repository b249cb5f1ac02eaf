-- Staff sign-in, hardened (issue 39): a hard budget of wrong second-factor codes, and staff
-- sessions that end on sign-out.
--
-- * The second factor had only the sign-in throttle (lib/auth/throttle.ts), whose account ceiling
--   slows guessing but lets every new address try once a minute: 300 addresses guessed 300 codes
--   in 10 seconds. Now each staff member may get `p_budget` codes wrong in a rolling window, from
--   anywhere, counted here (not in one process's memory, so it holds across instances): the service
--   passes the budget, 20 in 24 hours (lib/auth/staff.ts). When it is spent the factor locks, the
--   audit log says so, and no code is checked until it is unlocked out of band
--   (`npm run staff:unlock -- <email>`, public.staff_factor_unlock), which is audited too. Only a
--   wrong code after the right password counts: strangers without the password cannot lock staff out.
-- * Staff sessions (the `monetize-ops` cookie) were a JWT alone, which sign-out could only ask the
--   browser to forget: a copy kept working for its hour. Each sign-in now starts a row of
--   `staff_sessions` whose id the cookie carries; the cookie works while the row is open, and
--   sign-out closes it.

alter table public.staff_members add column factor_locked_at timestamptz;

-- One row per code checked and not (yet) known right: the budget's count. A right code's row is
-- removed; rows older than the window are removed by the next attempt; an unlock removes them all.
create table public.staff_factor_attempts (
  id       bigint generated always as identity primary key,
  user_id  uuid not null references public.staff_members (user_id) on delete cascade,
  at       timestamptz not null default now()
);
create index staff_factor_attempts_user_at on public.staff_factor_attempts (user_id, at);
-- Only the functions below (security definer) write it; the service may read it (what the
-- database holds is counted by tests/integration/storage-bound.test.ts as the service).
revoke all on public.staff_factor_attempts from public, anon, authenticated, sdk, service_role;
grant select on public.staff_factor_attempts to service_role;
alter table public.staff_factor_attempts enable row level security;
alter table public.staff_factor_attempts force row level security;

create table public.staff_sessions (
  id          uuid primary key default gen_random_uuid(),
  user_id     uuid not null references public.staff_members (user_id) on delete cascade,
  started_at  timestamptz not null default now(),
  expires_at  timestamptz not null,
  -- Set by sign-out: the cookie's copies sign in nobody from then on.
  ended_at    timestamptz
);
create index staff_sessions_user on public.staff_sessions (user_id);
-- Only the functions below (security definer) write it; the service may read it (what the
-- database holds is counted by tests/integration/storage-bound.test.ts as the service).
revoke all on public.staff_sessions from public, anon, authenticated, sdk, service_role;
grant select on public.staff_sessions to service_role;
alter table public.staff_sessions enable row level security;
alter table public.staff_sessions force row level security;

-- Staff sign-in's second factor has a hard budget (migration 20261213000000_staff_factor_budget):
-- takes one of the `p_budget` codes staff member `p_user` may get wrong in `p_window_s` seconds,
-- from anywhere, before the code is checked, so that parallel guesses cannot all pass a count made
-- before any of them failed; public.staff_factor_settle gives it back when the code was right, or
-- locks the factor when it was the last. Answers the attempt's id, or null (check no code) when the
-- factor is locked, the budget is taken by attempts still being checked, or `p_user` is no staff.
-- The member's row is locked for the count, so concurrent attempts count one after another.
-- Executable by the service role, which signs staff in (lib/auth/staff.ts).
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

-- The outcome of a code checked under the budget (migration 20261213000000_staff_factor_budget):
-- a right code gives its unit back; a wrong one keeps it, and when the wrong codes of the window
-- reach `p_budget` the factor locks, with a line in the audit log. Answers whether the factor is
-- locked now. Executable by the service role, which signs staff in (lib/auth/staff.ts).
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

-- A staff session starts (migration 20261213000000_staff_factor_budget): its id goes into the
-- `monetize-ops` cookie, which works while the session is open (public.staff_session_active).
-- Forgets this member's sessions that ended or expired more than a day ago. Executable by the
-- service role, which signs staff in (lib/auth/staff.ts).
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

-- Whether staff session `p_session` of `p_user` is open (migration
-- 20261213000000_staff_factor_budget): started, not signed out, not expired, and its member still
-- staff. Executable by the service role, which reads the ops cookie (lib/auth/staff.ts).
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

-- Sign-out of staff session `p_session` of `p_user` (migration 20261213000000_staff_factor_budget):
-- from now on its cookie, and every copy of it, signs in nobody. Answers whether it was open.
-- Executable by the service role (lib/auth/staff.ts).
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
