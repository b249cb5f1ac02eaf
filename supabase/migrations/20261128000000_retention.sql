-- Retention of what strangers can create without an account (SECURITY.md): a self-registered
-- OAuth client that nobody ever authorized is deleted a day after it registered, and one nobody
-- has authorized for 180 days is deleted too. `last_used_at` is when a publisher last approved
-- it (null: never). The deletions run as part of new registrations (lib/oauth/clients.ts), so no
-- scheduler is needed, on the embedded database or anywhere else.
alter table public.oauth_clients add column last_used_at timestamptz;
create index oauth_clients_unused on public.oauth_clients (created_at) where last_used_at is null;
create index oauth_clients_last_used_at on public.oauth_clients (last_used_at) where last_used_at is not null;
