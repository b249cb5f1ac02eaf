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
