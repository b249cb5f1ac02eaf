-- Which creative names each stored file (public.creative_files, migration
-- 20261213000700_bounded_storage), kept by a trigger after every write of a creative's media, its
-- status or the creative itself, whoever writes it. A file the creative now names is attached to
-- it (and marked `served_from` the first time it is named while the creative is approved, so that
-- a decision may have sent it to a page); a file it named before and names no longer is
-- `released_at` now. The sweep (public.creative_files_sweepable) deletes what is released.
create or replace function public.creative_files_follow() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  v_old text[] := '{}';
  v_new text[] := '{}';
begin
  if tg_op <> 'INSERT' then
    v_old := array_remove(array[case when old.image_url like '/media/%' then substr(old.image_url, 8) end,
                                case when old.video_url like '/media/%' then substr(old.video_url, 8) end], null);
  end if;
  if tg_op <> 'DELETE' then
    v_new := array_remove(array[case when new.image_url like '/media/%' then substr(new.image_url, 8) end,
                                case when new.video_url like '/media/%' then substr(new.video_url, 8) end], null);
    update public.creative_files f
       set creative_id = new.id, released_at = null,
           served_from = case when new.status = 'active' then coalesce(f.served_from, now()) else f.served_from end
     where f.key = any(v_new);
  end if;
  update public.creative_files f set released_at = now()
   where f.key = any(v_old) and not (f.key = any(v_new)) and f.released_at is null;
  return null;
end $$;

-- A trigger function is called by its trigger, never by a role: nobody may execute it.
revoke all on function public.creative_files_follow() from public, anon, authenticated, service_role, sdk;
