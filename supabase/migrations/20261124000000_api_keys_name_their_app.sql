-- An API key belongs to one app; the account read now says which, so a client (and the console)
-- can list each app's keys beside it. Same function, one more column.
create or replace function public.account_api_keys() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'api_keys', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                         from (select id, app_id, name, environment, status, key_prefix, key_last4, created_at, last_used_at
                               from public.api_keys) r))
          from public.users u);
end $$;
