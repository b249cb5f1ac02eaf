-- What a publisher can create is bounded (issue 27): a publisher could mint API keys without
-- limit, 25 in a second, and each key had its own SDK budget, so the budget bounded nothing. The
-- SDK budget is now the publisher's, shared by all their keys (lib/routes/credentials.ts), and the
-- database caps what is active: at most 50 apps not archived per publisher, at most 20 active
-- keys per app. Each cap is a trigger before a row becomes active, which takes the publisher's
-- advisory lock and counts, so two creations at once cannot both take the last place. A refusal
-- is a check violation naming the cap, which the console turns into a message
-- (lib/console/writes.ts).

-- At most 50 apps a publisher has not archived (MAX_APPS_PER_PUBLISHER in lib/schemas/console.ts,
-- content/docs/console.md). A trigger before a row of `apps` becomes active: inserted, or, were
-- anything ever to do it, taken out of the archive. So every way in is bounded, the console's
-- and any other, as the database's own rule.
--
-- Two creations at once must not both take the last place: the check takes the publisher's
-- advisory lock first, held to the end of the transaction, so a publisher's creations of apps
-- and keys take turns. The count runs after the lock is granted, and a PL/pgSQL statement of a
-- volatile function takes a new snapshot, so it sees what the transaction that held the lock
-- committed. It runs as its caller: the publisher sees their own apps under row-level security,
-- which are the ones it counts, and the service sees them all.
create or replace function public.apps_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
begin
  if new.archived_at is not null or (tg_op = 'UPDATE' and old.archived_at is null) then
    return new;
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('publisher limits ' || new.user_id::text, 0));
  if (select count(*) from public.apps a where a.user_id = new.user_id and a.archived_at is null) >= 50 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'apps_active_per_publisher',
      message = 'a publisher has at most 50 apps that are not archived';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.apps_within_limit() from public, anon, authenticated, service_role;

-- At most 20 active API keys per app (MAX_ACTIVE_KEYS_PER_APP in lib/schemas/console.ts,
-- content/docs/api-keys.md), so at most 50 × 20 per publisher. A trigger before a key becomes
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
  if (select count(*) from public.api_keys k where k.app_id = new.app_id and k.status = 'active') >= 20 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'api_keys_active_per_app',
      message = 'an app has at most 20 active API keys';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.api_keys_within_limit() from public, anon, authenticated, service_role;

create trigger apps_within_limit
  before insert or update of archived_at on public.apps
  for each row execute function public.apps_within_limit();

create trigger api_keys_within_limit
  before insert or update of status on public.api_keys
  for each row execute function public.api_keys_within_limit();

-- The count of an app's active keys reads only those.
create index api_keys_active_by_app on public.api_keys (app_id) where status = 'active';
