-- GET /api/v1/me/api-keys: the caller's keys, each with the app it belongs to, never the key
-- itself nor its hash. Runs as its caller, like every account read.
create or replace function public.account_api_keys() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'api_keys', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                         from (select id, app_id, name, kind, environment, status, key_prefix, key_last4, created_at, last_used_at
                               from public.api_keys) r))
          from public.users u);
end $$;

revoke execute on function public.account_api_keys() from public, anon;
grant execute on function public.account_api_keys() to authenticated;
