-- Room for the files of one creative form (`p_keys`, of `p_bytes` each), asked as the advertiser
-- before anything is stored (lib/ads/advertisers/files.ts; migration 20261213000700_bounded_storage):
-- a row of public.creative_files per file, the advertiser's, named by no creative yet. Refused,
-- and nothing written, when the advertiser's stored files (all their rows: named, waiting for a
-- creative, or released and not yet swept) and these would pass 500 MB (ADVERTISER_LIMITS in
-- lib/ads/advertisers/schemas.ts): `{ok: false, error: 'storage_full', used_bytes, limit_bytes}`.
-- The advertiser's advisory lock first (as public.campaigns_within_limit), so two uploads at once
-- cannot both take the last room. A row that never reaches a creative is swept an hour later.
create or replace function public.creative_files_reserve(p_keys text[], p_bytes bigint[])
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid := auth.uid();
  v_used bigint;
  v_limit constant bigint := 524288000;
begin
  if v_user is null or not exists (select 1 from public.advertiser_profiles p where p.user_id = v_user) then
    return json_build_object('ok', false, 'error', 'not_an_advertiser');
  end if;
  if coalesce(array_length(p_keys, 1), 0) <> coalesce(array_length(p_bytes, 1), 0)
     or exists (select 1 from unnest(p_bytes) b where b is null or b < 0) then
    raise exception 'one size per key' using errcode = 'invalid_parameter_value';
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('advertiser limits ' || v_user::text, 0));
  select coalesce(sum(f.bytes), 0) into v_used from public.creative_files f where f.advertiser_id = v_user;
  if v_used + coalesce((select sum(b) from unnest(p_bytes) b), 0) > v_limit then
    return json_build_object('ok', false, 'error', 'storage_full', 'used_bytes', v_used, 'limit_bytes', v_limit);
  end if;
  insert into public.creative_files (key, advertiser_id, bytes)
  select k.key, v_user, k.bytes from unnest(p_keys, p_bytes) as k (key, bytes);
  return json_build_object('ok', true);
end $$;

revoke all on function public.creative_files_reserve(text[], bigint[]) from public, anon, sdk;
grant execute on function public.creative_files_reserve(text[], bigint[]) to authenticated;
