-- At most 20 active publishable keys and 5 active server keys per app (MAX_ACTIVE_KEYS_PER_APP
-- and MAX_ACTIVE_SERVER_KEYS_PER_APP in lib/schemas/console.ts, content/docs/api-keys.md), so at
-- most 50 × 25 per publisher. A trigger before a key becomes
-- active: inserted, or, were anything ever to do it, revoked and made active again. The same
-- turns as `apps_within_limit` (its file says why): the publisher's advisory lock, then the
-- count, as the caller.
create or replace function public.api_keys_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
begin
  if new.status <> 'active' or (tg_op = 'UPDATE' and old.status = 'active') then
    return new;
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('publisher limits ' || new.user_id::text, 0));
  if new.kind = 'server' then
    if (select count(*) from public.api_keys k where k.app_id = new.app_id and k.status = 'active' and k.kind = 'server') >= 5 then
      raise exception using
        errcode = 'check_violation',
        constraint = 'server_keys_active_per_app',
        message = 'an app has at most 5 active server keys';
    end if;
  elsif (select count(*) from public.api_keys k where k.app_id = new.app_id and k.status = 'active' and k.kind = 'publishable') >= 20 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'api_keys_active_per_app',
      message = 'an app has at most 20 active API keys';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.api_keys_within_limit() from public, anon, authenticated, service_role;
