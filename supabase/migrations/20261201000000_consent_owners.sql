-- Consent that only its owner changes (issue 27; content/docs/data-and-consent.md, SECURITY.md).
--
-- 1. Subject ids keyed per app. An app still sends the SHA-256 of its own user id, but what the
--    tables keep (`subject_hash`) is now HMAC-SHA256, under a key of the service's, of the app
--    and that id (lib/sdk/subjects.ts): linkable neither across apps nor by a dictionary of user
--    ids. The key is not in the database, so the rows written before cannot be rekeyed here.
--    They are deleted, with the data stored under them (the foreign key cascades): their plain
--    SHA-256 ids are exactly what must not be kept, no owner holds a proof for them, and no
--    record was ever sold (sales are not open). A development database loses the demo
--    publisher's one seeded consent and its two rows; `npm run db:reset` makes the demo data
--    again.
-- 2. A consent proof per app and subject: a random secret answered with the subject's first
--    consent, kept only as its SHA-256 (`data_subjects`). Reading, withdrawing, changing a consent
--    and submitting data need it.
-- 3. The consent history is append-only: a new consent is a new row, a withdrawal is a new row
--    (the consent it ends, with `withdrawn_at`), and the current consent is the subject's latest
--    row when that row is not a withdrawal. The SDK role may no longer update or delete a consent.
-- 4. Quotas: what each app and subject stored per UTC day (`data_daily_usage`), and when each
--    new subject came from which client address (`data_subject_arrivals`, kept an hour).

delete from public.data_consents;

-- ── The history ──────────────────────────────────────────────────────────────────────────────
drop index public.data_consents_current;
drop policy "Apps withdraw their own consents through the SDK" on public.data_consents;
revoke update, delete on public.data_consents from sdk;
-- The order rows were recorded in: the latest of a subject is its current state.
alter table public.data_consents add column seq bigint generated always as identity;
create unique index data_consents_history on public.data_consents (app_id, subject_hash, seq);
-- A consent is not given in the future. The service refuses one more than 5 minutes ahead of its
-- clock, or more than 30 days back (lib/sdk/data.ts); this backstop allows a day, so that the
-- clocks of the service and of the database need not agree to the minute.
alter table public.data_consents add constraint data_consents_not_in_future check (consented_at <= recorded_at + interval '1 day');
comment on column public.data_consents.subject_hash is
  'HMAC-SHA256, under a key of the service, of the app and the subject id the app sent (the SHA-256 of its user id): never that id';
comment on column public.data_consents.withdrawn_at is
  'Set on a withdrawal row only: the consent it ends, as recorded, withdrawn at this time. Rows are never updated';
comment on column public.data_records.subject_hash is 'The keyed subject id, as in data_consents';

-- ── Subjects and their proofs ────────────────────────────────────────────────────────────────
create table public.data_subjects (
  app_id        uuid not null references public.apps (id) on delete cascade,
  subject_hash  text not null check (subject_hash ~ '^[0-9a-f]{64}$'),
  -- SHA-256 of the consent proof, as 64 hex digits: the proof itself is never stored.
  proof_hash    text not null check (proof_hash ~ '^[0-9a-f]{64}$'),
  created_at    timestamptz not null default now(),
  primary key (app_id, subject_hash)
);

-- ── Quotas ───────────────────────────────────────────────────────────────────────────────────
-- Records and bytes stored per app ('' as the subject) and per subject, per UTC day. Rows of
-- earlier days are deleted as new ones are counted (lib/sdk/data.ts).
create table public.data_daily_usage (
  app_id        uuid not null references public.apps (id) on delete cascade,
  day           date not null,
  subject_hash  text not null check (subject_hash = '' or subject_hash ~ '^[0-9a-f]{64}$'),
  records       integer not null default 0 check (records >= 0),
  bytes         bigint not null default 0 check (bytes >= 0),
  primary key (app_id, day, subject_hash)
);

-- One row per new subject: the keyed hash of the client address it came from, for an hour.
-- Not tied to the subject, so no table says which address a subject came from.
create table public.data_subject_arrivals (
  id            uuid primary key default gen_random_uuid(),
  app_id        uuid not null references public.apps (id) on delete cascade,
  address_hash  text not null check (length(address_hash) between 1 and 64),
  arrived_at    timestamptz not null default now()
);
create index data_subject_arrivals_recent on public.data_subject_arrivals (app_id, arrived_at);

alter table public.data_subjects         enable row level security;
alter table public.data_subjects         force row level security;
alter table public.data_daily_usage      enable row level security;
alter table public.data_daily_usage      force row level security;
alter table public.data_subject_arrivals enable row level security;
alter table public.data_subject_arrivals force row level security;

-- A subject, once made, keeps its proof: no update, no delete (the app's deletion cascades).
grant select, insert on public.data_subjects to sdk;
grant select, insert, update (records, bytes), delete on public.data_daily_usage to sdk;
grant select, insert, delete on public.data_subject_arrivals to sdk;
grant select, insert, update, delete on public.data_subjects, public.data_daily_usage, public.data_subject_arrivals to service_role;

create policy "Apps read their own subjects through the SDK"
  on public.data_subjects for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps record their own subjects through the SDK"
  on public.data_subjects for insert to sdk
  with check (app_id = (select public.sdk_app_id()));
create policy "Apps read their own data usage through the SDK"
  on public.data_daily_usage for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps count their own data usage through the SDK"
  on public.data_daily_usage for insert to sdk
  with check (app_id = (select public.sdk_app_id()));
create policy "Apps add to their own data usage through the SDK"
  on public.data_daily_usage for update to sdk
  using (app_id = (select public.sdk_app_id())) with check (app_id = (select public.sdk_app_id()));
create policy "Apps forget their own past data usage through the SDK"
  on public.data_daily_usage for delete to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps read their own subject arrivals through the SDK"
  on public.data_subject_arrivals for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps record their own subject arrivals through the SDK"
  on public.data_subject_arrivals for insert to sdk
  with check (app_id = (select public.sdk_app_id()));
create policy "Apps forget their own old subject arrivals through the SDK"
  on public.data_subject_arrivals for delete to sdk
  using (app_id = (select public.sdk_app_id()));
