-- The data model of the whole product. Money is numeric (never float); counters are bigint.
-- Every table that holds a publisher's data carries `user_id`, so one RLS rule fits all of them.

create table public.users (
  id           uuid primary key default gen_random_uuid(),
  email        text not null,
  name         text,
  company      text,
  role         text,
  created_at   timestamptz not null default now(),
  constraint users_email_is_lowercase check (email = lower(email)),
  constraint users_email_unique unique (email)
);

-- Credentials live apart from the profile so that no role that can read a profile can read a hash.
create table public.user_credentials (
  user_id        uuid primary key references public.users (id) on delete cascade,
  password_hash  text not null,
  updated_at     timestamptz not null default now()
);

-- Sign-in through an external identity provider (GitHub, Google).
create table public.user_identities (
  provider          text not null check (provider in ('github', 'google')),
  provider_user_id  text not null,
  user_id           uuid not null references public.users (id) on delete cascade,
  created_at        timestamptz not null default now(),
  primary key (provider, provider_user_id)
);
create index user_identities_user_id on public.user_identities (user_id);

create table public.apps (
  id           uuid primary key default gen_random_uuid(),
  user_id      uuid not null references public.users (id) on delete cascade,
  name         text not null check (length(name) between 1 and 100),
  slug         text not null check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  description  text not null default '',
  category     text[] not null default '{}',
  created_at   timestamptz not null default now(),
  constraint apps_slug_unique_per_user unique (user_id, slug),
  -- Lets children reference (id, user_id) so their owner can never differ from the app's.
  constraint apps_id_user_unique unique (id, user_id)
);

create table public.placements (
  id           uuid primary key default gen_random_uuid(),
  app_id       uuid not null,
  user_id      uuid not null,
  name         text not null check (length(name) between 1 and 100),
  format       text not null check (format in ('floating_video', 'tooltip', 'sponsored_card', 'inline_text')),
  status       text not null default 'active' check (status in ('active', 'paused', 'archived')),
  impressions  bigint not null default 0 check (impressions >= 0),
  clicks       bigint not null default 0 check (clicks >= 0),
  revenue_usd  numeric(14, 6) not null default 0 check (revenue_usd >= 0),
  created_at   timestamptz not null default now(),
  constraint placements_id_user_unique unique (id, user_id),
  foreign key (app_id, user_id) references public.apps (id, user_id) on delete cascade
);
create index placements_user_id on public.placements (user_id);
create index placements_app_id on public.placements (app_id);

create table public.api_keys (
  id            uuid primary key default gen_random_uuid(),
  app_id        uuid not null,
  user_id       uuid not null,
  name          text not null check (length(name) between 1 and 100),
  environment   text not null check (environment in ('development', 'production')),
  status        text not null default 'active' check (status in ('active', 'revoked')),
  -- The key is shown once at creation. We keep a lookup prefix, the last 4 characters for
  -- masking, and a SHA-256 of the whole key (keys are 192-bit random, so a fast hash suffices).
  key_prefix    text not null,
  key_last4     text not null check (length(key_last4) = 4),
  key_hash      text not null,
  created_at    timestamptz not null default now(),
  last_used_at  timestamptz,
  revoked_at    timestamptz,
  constraint api_keys_prefix_unique unique (key_prefix),
  constraint api_keys_hash_unique unique (key_hash),
  constraint api_keys_revoked_at_matches_status check ((status = 'revoked') = (revoked_at is not null)),
  foreign key (app_id, user_id) references public.apps (id, user_id) on delete cascade
);
create index api_keys_user_id on public.api_keys (user_id);

-- Raw SDK events. `event_id` is the client's id, so a retried beacon is recorded once.
create table public.ad_events (
  id            bigint generated always as identity primary key,
  event_id      text not null,
  placement_id  uuid not null,
  user_id       uuid not null,
  api_key_id    uuid references public.api_keys (id) on delete set null,
  kind          text not null check (kind in ('impression', 'click')),
  revenue_usd   numeric(14, 6) not null default 0 check (revenue_usd >= 0),
  occurred_at   timestamptz not null default now(),
  constraint ad_events_event_id_unique unique (placement_id, event_id),
  foreign key (placement_id, user_id) references public.placements (id, user_id) on delete cascade
);
create index ad_events_user_id on public.ad_events (user_id, occurred_at desc);

create table public.daily_stats (
  placement_id  uuid not null,
  user_id       uuid not null,
  day           date not null,
  impressions   bigint not null default 0 check (impressions >= 0),
  clicks        bigint not null default 0 check (clicks >= 0),
  revenue_usd   numeric(14, 6) not null default 0 check (revenue_usd >= 0),
  primary key (placement_id, day),
  foreign key (placement_id, user_id) references public.placements (id, user_id) on delete cascade
);
create index daily_stats_user_id on public.daily_stats (user_id, day desc);

create table public.payouts (
  id            uuid primary key default gen_random_uuid(),
  user_id       uuid not null references public.users (id) on delete cascade,
  period        text not null check (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
  amount_usd    numeric(14, 2) not null check (amount_usd >= 0),
  status        text not null check (status in ('pending', 'processing', 'paid', 'failed')),
  requested_at  timestamptz not null default now(),
  paid_at       timestamptz,
  constraint payouts_paid_at_only_when_paid check ((status = 'paid') = (paid_at is not null)),
  constraint payouts_one_per_period unique (user_id, period)
);
create index payouts_user_id on public.payouts (user_id, requested_at desc);

-- The live pricing values: exactly one row.
create table public.pricing_settings (
  id                              boolean primary key default true check (id),
  publisher_ad_revenue_share      numeric(6, 4) not null check (publisher_ad_revenue_share between 0 and 1),
  platform_ad_fee                 numeric(6, 4) not null check (platform_ad_fee between 0 and 1),
  publisher_data_revenue_share    numeric(6, 4) not null check (publisher_data_revenue_share between 0 and 1),
  cpm_floating_video_usd          numeric(10, 4) not null check (cpm_floating_video_usd >= 0),
  cpm_tooltip_usd                 numeric(10, 4) not null check (cpm_tooltip_usd >= 0),
  cpm_sponsored_card_usd          numeric(10, 4) not null check (cpm_sponsored_card_usd >= 0),
  cpm_inline_text_usd             numeric(10, 4) not null check (cpm_inline_text_usd >= 0),
  price_per_ai_interaction_row_usd    numeric(10, 4) not null check (price_per_ai_interaction_row_usd >= 0),
  price_per_ux_session_recording_usd  numeric(10, 4) not null check (price_per_ux_session_recording_usd >= 0),
  price_per_gb_bundle_usd         numeric(10, 4) not null check (price_per_gb_bundle_usd >= 0),
  exclusive_license_multiplier    numeric(6, 2) not null check (exclusive_license_multiplier >= 1),
  min_payout_usd                  numeric(10, 2) not null check (min_payout_usd >= 0),
  updated_at                      timestamptz not null default now(),
  constraint pricing_shares_add_up check (publisher_ad_revenue_share + platform_ad_fee = 1)
);

create table public.oauth_clients (
  client_id                   text primary key,
  client_name                 text not null,
  redirect_uris               text[] not null check (cardinality(redirect_uris) > 0),
  token_endpoint_auth_method  text not null check (token_endpoint_auth_method in ('none', 'client_secret_post', 'client_secret_basic')),
  client_secret_hash          text,
  created_at                  timestamptz not null default now(),
  constraint oauth_clients_secret_matches_method
    check ((token_endpoint_auth_method = 'none') = (client_secret_hash is null))
);

create table public.oauth_authorization_codes (
  code_hash       text primary key,
  client_id       text not null,
  user_id         uuid not null references public.users (id) on delete cascade,
  redirect_uri    text not null,
  code_challenge  text not null,
  scopes          text[] not null,
  resources       text[] not null,
  expires_at      timestamptz not null,
  used_at         timestamptz,
  created_at      timestamptz not null default now()
);
create index oauth_authorization_codes_expires_at on public.oauth_authorization_codes (expires_at);

-- Idempotency-Key records (batch, client registration): the key, a hash of the request body,
-- and the stored answer, kept at least 24 h (ARCHITECTURE.md, Idempotency records).
create table public.idempotency_records (
  scope            text not null,
  principal        text not null,
  idempotency_key  text not null,
  request_hash     text not null,
  state            text not null default 'running' check (state in ('running', 'done')),
  response_status  integer,
  response_body    text,
  created_at       timestamptz not null default now(),
  expires_at       timestamptz not null default now() + interval '24 hours',
  primary key (scope, principal, idempotency_key)
);
create index idempotency_records_expires_at on public.idempotency_records (expires_at);

-- Secrets the development server generates for itself (signing key, session secret).
-- Production takes them from configuration instead.
create table public.service_secrets (
  name        text primary key,
  value       text not null,
  created_at  timestamptz not null default now()
);
