-- Secret server keys (issue 42): an app's server may ask for ads on behalf of its end users with
-- a key of its own, `sk_live_…` or `sk_test_…`, sent as `Authorization: Bearer` and never from
-- a web page (lib/identity/keys/directory.ts). It lives beside the publishable keys, hashed the
-- same way, revoked the same way, and told apart by `kind`:
--
-- * `api_keys.kind`: `publishable` (every key made before) or `server`.
-- * An app has at most 20 active publishable keys, as before, and at most 5 active server keys
--   (`api_keys_within_limit`, counted per kind under the publisher's lock).
-- * `sdk_key(hash)` answers the key's kind, so a key's row says where it may be sent.
-- * `account_api_keys()` lists the kind beside the environment, masked as ever.

alter table public.api_keys add column kind text not null default 'publishable';
alter table public.api_keys add constraint api_keys_kind_check check (kind in ('publishable', 'server'));
grant select (kind) on table public.api_keys to authenticated;
grant insert (kind) on table public.api_keys to authenticated;

create or replace function public.api_keys_within_limit() returns trigger
language plpgsql security invoker set search_path = ''
as $$
begin
  if new.status <> 'active' or (tg_op = 'UPDATE' and old.status = 'active') then
    return new;
  end if;
  perform pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('publisher limits ' || new.user_id::text, 0));
  if new.kind = 'server' then
    if (select count(*) from public.api_keys k where k.app_id = new.app_id and k.status = 'active' and k.kind = 'server') >= 5 then
      raise exception using
        errcode = 'check_violation',
        constraint = 'server_keys_active_per_app',
        message = 'an app has at most 5 active server keys';
    end if;
  elsif (select count(*) from public.api_keys k where k.app_id = new.app_id and k.status = 'active' and k.kind = 'publishable') >= 20 then
    raise exception using
      errcode = 'check_violation',
      constraint = 'api_keys_active_per_app',
      message = 'an app has at most 20 active API keys';
  end if;
  return new;
end $$;

revoke all on function public.api_keys_within_limit() from public, anon, authenticated, service_role;

drop function public.sdk_key(text);
create function public.sdk_key(p_key_hash text)
returns table (
  id               uuid,
  name             text,
  kind             text,
  environment      text,
  status           text,
  key_prefix       text,
  key_last4        text,
  app_id           uuid,
  app_name         text,
  app_archived     boolean,
  user_id          uuid,
  allowed_origins  text[]
)
language sql stable security definer set search_path = ''
as $$
  select k.id, k.name, k.kind, k.environment, k.status, k.key_prefix, k.key_last4,
         a.id, a.name, a.archived_at is not null, a.user_id, a.allowed_origins
  from public.api_keys k
  join public.apps a on a.id = k.app_id and a.user_id = k.user_id
  where k.key_hash = p_key_hash
$$;

revoke all on function public.sdk_key(text) from public, anon, authenticated, service_role;
grant execute on function public.sdk_key(text) to anon, authenticated;

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
