-- The stored files of creatives that may be deleted now (migration 20261213000700_bounded_storage;
-- lib/ads/advertisers/files.ts deletes each object, then its row with public.creative_files_forget),
-- of one advertiser or of all (`p_advertiser` null), at most `p_limit`:
-- - a file no creative names any more (`released_at`) that no decision can have sent to a page
--   in the last 24 hours: never named while its creative was approved (`served_from` null: an
--   edit sends a creative to review, and only an approved one is served), or released more than
--   24 hours ago (a decision names the file its creative named when it was made, so none of the
--   last 24 hours names a file released before them);
-- - a file reserved more than an hour ago that no creative ever named (its upload failed between
--   storing and writing the creative, or its process died).
-- 24 hours, not the 15 minutes an impression may be reported in: a page may keep showing an ad
-- after its impression counted, and the files kept are few (each needs the operator's approval).
create or replace function public.creative_files_sweepable(p_advertiser uuid default null, p_limit integer default 500)
returns setof text
language sql stable security definer set search_path = ''
as $$
  select f.key from public.creative_files f
  where (p_advertiser is null or f.advertiser_id = p_advertiser)
    and ((f.released_at is not null and (f.served_from is null or f.released_at < now() - interval '24 hours'))
         or (f.creative_id is null and f.released_at is null and f.stored_at < now() - interval '1 hour'))
  order by f.stored_at
  limit greatest(p_limit, 0)
$$;

revoke all on function public.creative_files_sweepable(uuid, integer) from public, anon, authenticated, sdk;
grant execute on function public.creative_files_sweepable(uuid, integer) to service_role;
