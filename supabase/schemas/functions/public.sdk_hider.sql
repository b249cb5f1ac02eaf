-- Who hid an ad, as `ad_hides` keeps it: the client's hash (its network and browser, keyed:
-- lib/platform/http/client-ip.ts) hashed again with the app's id, so the same client is another
-- on every app and no list of what one person hid across apps can be made from the table
-- (migration 20261217000000_ad_hides). Null for no client.
-- A rule of the money path's shape: `language sql`, immutable, no `set` clause, so that
-- PostgreSQL inlines it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_hider(p_app uuid, p_client_hash text)
returns text
language sql immutable
as $$
  -- Both texts are of letters, digits, `-` and `_`: as bytes, they are themselves.
  select encode(sha256((p_app::text || ' ' || p_client_hash)::bytea), 'hex')
$$;

revoke all on function public.sdk_hider(uuid, text) from public, anon, authenticated;
grant execute on function public.sdk_hider(uuid, text) to sdk;
