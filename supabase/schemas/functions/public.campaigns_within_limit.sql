-- At most 100 campaigns an advertiser has not completed (ADVERTISER_LIMITS in
-- lib/ads/advertisers/schemas.ts, content/docs/advertisers.md; migration 20261213000700_bounded_storage):
-- a free account made 374 in ten seconds. A trigger before a campaign is inserted, by the console
-- or any other writer. A completed campaign went through review, so the ones left out of the
-- count are bounded by the operator; a draft can be deleted to make room.
--
-- Two creations at once must not both take the last place: the advertiser's advisory lock first,
-- held to the end of the transaction (creatives and stored files take the same one), then the
-- count, which a PL/pgSQL statement of a volatile function runs on a new snapshot. It runs as its
-- caller: the advertiser sees their own campaigns under row-level security, the service all.
create or replace function public.campaigns_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('advertiser limits ' || new.advertiser_id::text, 0));
  if (select count(*) from public.campaigns c where c.advertiser_id = new.advertiser_id and c.status <> 'completed') >= 100 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'campaigns_open_per_advertiser',
      message = 'an advertiser has at most 100 campaigns that are not completed';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.campaigns_within_limit() from public, anon, authenticated, service_role;
