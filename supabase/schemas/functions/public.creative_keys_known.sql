-- Which of `p_keys`, creatives' files found in the store (lib/platform/storage, `list`), the
-- database still knows (migration 20261213000700_bounded_storage): a row of public.creative_files,
-- or a creative's own URL (a file stored before that table, which its backfill could not size).
-- The orphan sweep (lib/ads/advertisers/files.ts) deletes the others once they are an hour old.
create or replace function public.creative_keys_known(p_keys text[])
returns setof text
language sql stable security definer set search_path = ''
as $$
  select k from unnest(p_keys) k
  where exists (select 1 from public.creative_files f where f.key = k)
     or exists (select 1 from public.creatives c where c.image_url = '/media/' || k or c.video_url = '/media/' || k)
$$;

revoke all on function public.creative_keys_known(text[]) from public, anon, authenticated, sdk;
grant execute on function public.creative_keys_known(text[]) to service_role;
