-- The SDK surface (`/functions/v1/*`) authenticates a request by the publishable key in
-- `x-api-key`, or a server key sent as a bearer token where one is accepted (`kind` says which
-- this key is). Nobody is signed in there, so the lookup runs as `anon`, not as the service:
-- knowing the key is the authorization. The key is never stored, only its SHA-256
-- (lib/identity/keys/api-key.ts), so the caller hashes what it was sent and asks for exactly that key.
-- The lookup also answers the app's owner and allowed origins, so that one lookup is all a
-- request needs before its own work (lib/identity/keys/directory.ts).
--
-- `anon` still cannot read `api_keys` or `apps`: this function is its one way in, and it answers
-- at most one row (`key_hash` is unique), the row of the key whose hash was given, or nothing.
-- It is security definer so that it reads past row-level security as its owner, the role that
-- runs the migrations; `search_path` is empty so that nothing the caller puts on its path is used.
-- (Its result columns changed once: that needed `drop function` in the migration, not here.)
create or replace function public.sdk_key(p_key_hash text)
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

-- PostgreSQL grants execute on a new function to PUBLIC, and Supabase's default privileges to
-- its API roles: take all of that back, then let exactly the two request roles call it.
revoke all on function public.sdk_key(text) from public, anon, authenticated, service_role;
grant execute on function public.sdk_key(text) to anon, authenticated;
