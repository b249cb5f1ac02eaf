-- At most 20 creatives per campaign, and 200 in an advertiser's campaigns that are not completed
-- (ADVERTISER_LIMITS in lib/ads/advertisers/schemas.ts, content/docs/advertisers.md; migration
-- 20261213000700_bounded_storage). A trigger before a creative is inserted; the same turns as
-- public.campaigns_within_limit (its file says why): the advertiser's advisory lock, then the
-- counts, as the caller (row-level security shows the advertiser their own creatives).
create or replace function public.creatives_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
declare
  v_advertiser uuid;
begin
  select c.advertiser_id into v_advertiser from public.campaigns c where c.id = new.campaign_id;
  if v_advertiser is null then
    return new;
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('advertiser limits ' || v_advertiser::text, 0));
  if (select count(*) from public.creatives cr where cr.campaign_id = new.campaign_id) >= 20 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'creatives_per_campaign',
      message = 'a campaign has at most 20 creatives';
  end if;
  if (select count(*) from public.creatives cr join public.campaigns c on c.id = cr.campaign_id
      where c.advertiser_id = v_advertiser and c.status <> 'completed') >= 200 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'creatives_per_advertiser',
      message = 'an advertiser has at most 200 creatives in campaigns that are not completed';
  end if;
  return new;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.creatives_within_limit() from public, anon, authenticated, service_role;
