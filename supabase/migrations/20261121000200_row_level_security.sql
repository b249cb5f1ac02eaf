-- Row-level security: the database itself decides which rows a user may see or change.
-- Every table has RLS enabled and forced, so even the table owner is bound by it; only
-- `service_role` (BYPASSRLS) reaches across users, and only the service module uses it.
-- Tables with no policy for a role are invisible to that role.

alter table public.users                     enable row level security;
alter table public.users                     force row level security;
alter table public.user_credentials          enable row level security;
alter table public.user_credentials          force row level security;
alter table public.user_identities           enable row level security;
alter table public.user_identities           force row level security;
alter table public.apps                      enable row level security;
alter table public.apps                      force row level security;
alter table public.placements                enable row level security;
alter table public.placements                force row level security;
alter table public.api_keys                  enable row level security;
alter table public.api_keys                  force row level security;
alter table public.ad_events                 enable row level security;
alter table public.ad_events                 force row level security;
alter table public.daily_stats               enable row level security;
alter table public.daily_stats               force row level security;
alter table public.payouts                   enable row level security;
alter table public.payouts                   force row level security;
alter table public.pricing_settings          enable row level security;
alter table public.pricing_settings          force row level security;
alter table public.oauth_clients             enable row level security;
alter table public.oauth_clients             force row level security;
alter table public.oauth_authorization_codes enable row level security;
alter table public.oauth_authorization_codes force row level security;
alter table public.idempotency_records       enable row level security;
alter table public.idempotency_records       force row level security;
alter table public.service_secrets           enable row level security;
alter table public.service_secrets           force row level security;

-- Privileges first: no role gets anything by default (Supabase grants broadly on `public`).
revoke all on all tables in schema public from anon, authenticated;
grant all on all tables in schema public to service_role;
grant usage, select on all sequences in schema public to service_role;

-- A signed-in user reads their profile and may edit the descriptive fields of it.
grant select (id, email, name, company, role, created_at) on public.users to authenticated;
grant update (name, company, role) on public.users to authenticated;

-- Publishers manage their own apps, placements and keys from the dashboard. They never
-- write counters or key material directly: column grants keep those to the service.
grant select, delete on public.apps to authenticated;
grant insert (user_id, name, slug, description, category) on public.apps to authenticated;
grant update (name, slug, description, category) on public.apps to authenticated;

grant select, delete on public.placements to authenticated;
grant insert (app_id, user_id, name, format, status) on public.placements to authenticated;
grant update (name, status) on public.placements to authenticated;

grant select (id, app_id, user_id, name, environment, status, key_prefix, key_last4, created_at, last_used_at, revoked_at)
  on public.api_keys to authenticated;
grant update (name, status, revoked_at) on public.api_keys to authenticated;

-- Earnings data is written only by the service; a publisher reads their own.
grant select on public.payouts, public.daily_stats, public.ad_events to authenticated;

-- Pricing is public.
grant select on public.pricing_settings to anon, authenticated;

-- Policies, named as sentences. `(select auth.uid())` is evaluated once per statement.

create policy "Users can read their own profile"
  on public.users for select to authenticated
  using (id = (select auth.uid()));
create policy "Users can update their own profile"
  on public.users for update to authenticated
  using (id = (select auth.uid())) with check (id = (select auth.uid()));

create policy "Publishers can read their own apps"
  on public.apps for select to authenticated
  using (user_id = (select auth.uid()));
create policy "Publishers can create apps for themselves"
  on public.apps for insert to authenticated
  with check (user_id = (select auth.uid()));
create policy "Publishers can update their own apps"
  on public.apps for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy "Publishers can delete their own apps"
  on public.apps for delete to authenticated
  using (user_id = (select auth.uid()));

create policy "Publishers can read their own placements"
  on public.placements for select to authenticated
  using (user_id = (select auth.uid()));
create policy "Publishers can create placements for themselves"
  on public.placements for insert to authenticated
  with check (user_id = (select auth.uid()));
create policy "Publishers can update their own placements"
  on public.placements for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));
create policy "Publishers can delete their own placements"
  on public.placements for delete to authenticated
  using (user_id = (select auth.uid()));

create policy "Publishers can read their own API keys"
  on public.api_keys for select to authenticated
  using (user_id = (select auth.uid()));
create policy "Publishers can revoke or rename their own API keys"
  on public.api_keys for update to authenticated
  using (user_id = (select auth.uid())) with check (user_id = (select auth.uid()));

create policy "Publishers can read their own payouts"
  on public.payouts for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Publishers can read their own daily stats"
  on public.daily_stats for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Publishers can read their own ad events"
  on public.ad_events for select to authenticated
  using (user_id = (select auth.uid()));

create policy "Anyone can read the pricing settings"
  on public.pricing_settings for select to anon, authenticated
  using (true);

-- user_credentials, user_identities, oauth_clients, oauth_authorization_codes,
-- idempotency_records and service_secrets have no policy for anon or authenticated:
-- only the service reaches them.
