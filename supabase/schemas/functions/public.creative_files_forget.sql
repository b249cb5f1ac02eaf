-- Forgets the rows of stored files whose objects were deleted (lib/ads/advertisers/files.ts; migration
-- 20261213000700_bounded_storage): a swept file, or one stored for a creative write that was
-- refused. Never a file a creative names now: such a row stays, whatever the caller asked.
-- Answers how many rows went.
create or replace function public.creative_files_forget(p_keys text[])
returns integer
language sql volatile security definer set search_path = ''
as $$
  with gone as (
    delete from public.creative_files f
    where f.key = any(p_keys) and (f.creative_id is null or f.released_at is not null)
    returning 1
  )
  select count(*)::integer from gone
$$;

revoke all on function public.creative_files_forget(text[]) from public, anon, authenticated, sdk;
grant execute on function public.creative_files_forget(text[]) to service_role;
