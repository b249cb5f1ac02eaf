-- What strangers can register, bounded by what they leave pending rather than by how often they
-- register (SECURITY.md): each client remembers the address it was registered from (a keyed hash,
-- never the address), so registration can refuse an address that already has as many clients
-- nobody approved within the last day as lib/oauth/clients.ts allows. Approved clients, and
-- pending ones older than a day (which retention deletes), do not count.
alter table public.oauth_clients add column registered_from text;
create index oauth_clients_pending_by_address on public.oauth_clients (registered_from, created_at) where last_used_at is null;
