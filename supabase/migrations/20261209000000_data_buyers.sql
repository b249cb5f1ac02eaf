-- Data buyers license consented data, and publishers earn from it.
--
-- * Accounts: a user may also be a data buyer (`buyer_profiles`: company, intended use, billing
--   contact, the version of the data license terms they accepted).
-- * Funds: a buyer's prepaid balance is their `buyer` ledger account, topped up as advertisers'
--   are (the same `top_ups`, now naming the account they fund: public.top_up_request,
--   public.top_up_open_checkout and public.top_up_credit take it; advertiser stays the default).
-- * Catalog: three listings, one per unit the pricing sells: AI-interaction rows, UX-session
--   recordings, GB bundles (records of both kinds, sold by size). What is available is counted
--   from `data_catalog_counts` (per kind, app, day and model; kept by triggers on
--   `data_records`), never by scanning records, so a count stays fast with millions of them.
-- * Licenses: a buyer buys the newest available records matching a filter (app categories, a
--   date range, models), at units × the dataset price (× `exclusive_license_multiplier` when
--   exclusive), from their balance, in one balanced `data_sale` transaction that credits each
--   publisher whose records it holds `publisher_data_revenue_share` of the price in proportion to
--   what they contributed (by records, or by bytes for GB bundles), the rest the platform's. A
--   standard license is granted at once; an exclusive one is held for the operator's review (its
--   price reserved from the balance, its records withheld from everyone else) and charged when
--   approved. Each license records the records it covers (`data_license_records`).
-- * Consent after the sale: erasing a subject's records (withdrawal, or purposes narrowed)
--   deletes them all, sold or not, and gives each buyer that licensed any of them one deletion
--   notice listing the record ids (`data_deletion_notices`), which the buyer acknowledges. What
--   publishers earned stays theirs.

-- ── Buyers ──────────────────────────────────────────────────────────────────────────────────
create table public.buyer_profiles (
  user_id            uuid primary key references public.users (id) on delete cascade,
  company            text not null check (length(btrim(company)) between 1 and 100),
  intended_use       text not null check (length(btrim(intended_use)) between 10 and 1000),
  billing_email      text not null check (billing_email ~ '^[^@\s]+@[^@\s]+$' and length(billing_email) <= 254),
  country            text not null check (country ~ '^[A-Z]{2}$'),
  terms_version      text not null check (length(terms_version) between 1 and 40),
  terms_accepted_at  timestamptz not null default now(),
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now()
);
alter table public.buyer_profiles enable row level security;
alter table public.buyer_profiles force row level security;
revoke all on public.buyer_profiles from public, anon, authenticated, sdk, service_role;
grant select, insert, update on public.buyer_profiles to authenticated, service_role;
create policy "Buyers read their own profile"
  on public.buyer_profiles for select to authenticated using (user_id = auth.uid());
create policy "People become buyers themselves"
  on public.buyer_profiles for insert to authenticated with check (user_id = auth.uid());
create policy "Buyers keep their own profile"
  on public.buyer_profiles for update to authenticated using (user_id = auth.uid()) with check (user_id = auth.uid());
create policy "The service reads and keeps buyer profiles"
  on public.buyer_profiles for all to service_role using (true) with check (true);

-- ── Funds ───────────────────────────────────────────────────────────────────────────────────
alter table public.top_ups add column account_kind text not null default 'advertiser' check (account_kind in ('advertiser', 'buyer'));
grant insert (account_kind) on public.top_ups to service_role;
drop function public.top_up_request(bigint);
drop function public.top_up_open_checkout(uuid, bigint, text);
drop function public.top_up_refusal(uuid, bigint);

-- ── Records: what the catalog filters on, and what holds them ──────────────────────────────
alter table public.data_records
  add column model                 text generated always as (case when kind = 'ai_interaction' then left(payload ->> 'model', 100) end) stored,
  add column exclusive_license_id  uuid,
  add column exclusive_until       timestamptz;
-- A license takes the newest records first.
create index data_records_newest on public.data_records (kind, received_at desc, id);
-- A GB bundle takes the newest of every kind.
create index data_records_newest_any on public.data_records (received_at desc, id);
-- Holds that ran out are released by public.data_holds_release.
create index data_records_held on public.data_records (exclusive_until) where exclusive_license_id is not null;

-- What the catalog counts: per kind, app, UTC day received and model ('' when none), the
-- records and bytes stored, those held under an exclusive license (pending or granted), and those
-- never licensed and not held (what an exclusive license may take).
create table public.data_catalog_counts (
  kind           text not null,
  app_id         uuid not null references public.apps (id) on delete cascade,
  day            date not null,
  model          text not null default '',
  records        bigint not null default 0 check (records >= 0),
  bytes          bigint not null default 0 check (bytes >= 0),
  held_records   bigint not null default 0 check (held_records >= 0),
  held_bytes     bigint not null default 0 check (held_bytes >= 0),
  fresh_records  bigint not null default 0 check (fresh_records >= 0),
  fresh_bytes    bigint not null default 0 check (fresh_bytes >= 0),
  primary key (kind, app_id, day, model)
);
create index data_catalog_counts_day on public.data_catalog_counts (kind, day);
alter table public.data_catalog_counts enable row level security;
alter table public.data_catalog_counts force row level security;
revoke all on public.data_catalog_counts from public, anon, authenticated, sdk, service_role;
grant select on public.data_catalog_counts to service_role;
create policy "The service reads the catalog counts"
  on public.data_catalog_counts for select to service_role using (true);

insert into public.data_catalog_counts (kind, app_id, day, model, records, bytes, held_records, held_bytes, fresh_records, fresh_bytes)
select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date, coalesce(r.model, ''), count(*), sum(r.bytes), 0, 0,
       count(*) filter (where r.status = 'unsold'), coalesce(sum(r.bytes) filter (where r.status = 'unsold'), 0)
from public.data_records r
group by 1, 2, 3, 4;

-- ── Licenses ────────────────────────────────────────────────────────────────────────────────
create table public.data_licenses (
  id                uuid primary key default gen_random_uuid(),
  buyer_id          uuid not null references public.users (id) on delete restrict,
  listing           text not null check (listing in ('ai_interactions', 'ux_sessions', 'gb_bundles')),
  exclusive         boolean not null,
  -- What the buyer asked for: the filter (categories, from, to, models) and the quantity.
  filter            jsonb not null,
  quantity          numeric(16, 3) not null check (quantity > 0),
  -- What it covers: its records, their bytes, and the units priced (rows, recordings or GB).
  records           integer not null check (records > 0),
  bytes             bigint not null check (bytes > 0),
  units             numeric(20, 9) not null check (units > 0),
  unit_price_micro  bigint not null check (unit_price_micro > 0),
  multiplier        numeric(6, 2) not null check (multiplier >= 1),
  price_micro       bigint not null check (price_micro > 0),
  terms_version     text not null check (length(terms_version) between 1 and 40),
  term_days         integer not null check (term_days between 1 and 3660),
  status            text not null check (status in ('pending_review', 'active', 'rejected', 'expired')),
  requested_at      timestamptz not null default now(),
  starts_at         timestamptz,
  expires_at        timestamptz,
  rejection_reason  text check (length(rejection_reason) between 1 and 500),
  reviewed_at       timestamptz,
  reviewed_by       uuid references public.users (id) on delete set null,
  transaction_id    uuid,
  constraint data_licenses_paid check ((status in ('active', 'expired')) = (transaction_id is not null and starts_at is not null and expires_at is not null)),
  constraint data_licenses_rejected_says_why check ((status = 'rejected') = (rejection_reason is not null)),
  constraint data_licenses_review_is_exclusive check (status <> 'pending_review' or exclusive)
);
create index data_licenses_buyer on public.data_licenses (buyer_id, requested_at desc);
create index data_licenses_in_review on public.data_licenses (requested_at) where status = 'pending_review';
create index data_licenses_running on public.data_licenses (expires_at) where status = 'active';
alter table public.data_licenses enable row level security;
alter table public.data_licenses force row level security;
revoke all on public.data_licenses from public, anon, authenticated, sdk, service_role;
grant select on public.data_licenses to authenticated, service_role;
create policy "Buyers read their own licenses"
  on public.data_licenses for select to authenticated using (buyer_id = auth.uid());
create policy "The service reads every license"
  on public.data_licenses for select to service_role using (true);

-- The records a license covers, as they were when it was bought: a record erased since is still
-- named here (no foreign key), so that its deletion notice can say which.
create table public.data_license_records (
  -- Deferred: a purchase takes its records before it knows what they cost, then writes the license.
  license_id    uuid not null references public.data_licenses (id) on delete restrict deferrable initially deferred,
  -- The record's place in the license, 1 to its count, newest first: the export reads it in
  -- ranges of positions, which cost the same for the millionth record as for the first.
  position      integer not null check (position > 0),
  record_id     uuid not null,
  app_id        uuid not null,
  publisher_id  uuid not null,
  bytes         integer not null check (bytes > 0),
  primary key (license_id, record_id)
);
create index data_license_records_record on public.data_license_records (record_id);
create unique index data_license_records_position on public.data_license_records (license_id, position);
alter table public.data_license_records enable row level security;
alter table public.data_license_records force row level security;
revoke all on public.data_license_records from public, anon, authenticated, sdk, service_role;
grant select on public.data_license_records to service_role;
create policy "The service reads what licenses cover"
  on public.data_license_records for select to service_role using (true);

-- ── Deletion notices ────────────────────────────────────────────────────────────────────────
create table public.data_deletion_notices (
  id               uuid primary key default gen_random_uuid(),
  buyer_id         uuid not null references public.users (id) on delete restrict,
  reason           text not null check (reason in ('consent_withdrawn', 'purpose_withdrawn')),
  record_ids       uuid[] not null check (cardinality(record_ids) > 0),
  license_ids      uuid[] not null check (cardinality(license_ids) > 0),
  created_at       timestamptz not null default now(),
  acknowledged_at  timestamptz
);
create index data_deletion_notices_buyer on public.data_deletion_notices (buyer_id, created_at desc);
alter table public.data_deletion_notices enable row level security;
alter table public.data_deletion_notices force row level security;
revoke all on public.data_deletion_notices from public, anon, authenticated, sdk, service_role;
grant select on public.data_deletion_notices to authenticated, service_role;
create policy "Buyers read their own deletion notices"
  on public.data_deletion_notices for select to authenticated using (buyer_id = auth.uid());
create policy "The service reads every deletion notice"
  on public.data_deletion_notices for select to service_role using (true);

-- ── Exports ─────────────────────────────────────────────────────────────────────────────────
-- A granted license's records as files (JSONL and Parquet) in object storage, written by the
-- export job (lib/data-buyers/exports.ts), which claims a queued export with a lease, reports its
-- progress and its end. One current export per license: when a withdrawal erases records a
-- license covers, its export is superseded by a new one without them, and the files of the old
-- one are deleted by the job.
create table public.data_exports (
  id             uuid primary key default gen_random_uuid(),
  license_id     uuid not null references public.data_licenses (id) on delete restrict,
  status         text not null default 'queued' check (status in ('queued', 'running', 'done', 'failed', 'superseded')),
  rows_total     integer check (rows_total >= 0),
  rows_done      integer not null default 0 check (rows_done >= 0),
  jsonl_key      text check (length(jsonl_key) between 1 and 200),
  parquet_key    text check (length(parquet_key) between 1 and 200),
  jsonl_bytes    bigint check (jsonl_bytes >= 0),
  parquet_bytes  bigint check (parquet_bytes >= 0),
  attempts       integer not null default 0 check (attempts >= 0),
  error          text check (length(error) between 1 and 500),
  queued_at      timestamptz not null default now(),
  started_at     timestamptz,
  finished_at    timestamptz,
  lease_until    timestamptz,
  files_deleted  boolean not null default false,
  constraint data_exports_done_has_files check (status <> 'done' or (jsonl_key is not null and parquet_key is not null))
);
create unique index data_exports_current on public.data_exports (license_id) where status <> 'superseded';
create index data_exports_waiting on public.data_exports (queued_at) where status in ('queued', 'running');
create index data_exports_stale on public.data_exports (queued_at) where status in ('superseded', 'failed') and not files_deleted;
alter table public.data_exports enable row level security;
alter table public.data_exports force row level security;
revoke all on public.data_exports from public, anon, authenticated, sdk, service_role;
grant select on public.data_exports to authenticated;
grant select, insert, update on public.data_exports to service_role;
create policy "Buyers read the exports of their own licenses"
  on public.data_exports for select to authenticated
  using (exists (select 1 from public.data_licenses l where l.id = license_id and l.buyer_id = auth.uid()));
create policy "The service runs the exports"
  on public.data_exports for all to service_role using (true) with check (true);


-- ── The catalog's counts, kept as records change ──────────────────────────────────────────
-- The kinds of record a listing sells (migration 20261209000000_data_buyers): AI-interaction rows,
-- UX-session recordings, or GB bundles of both; null for an unknown listing.
create or replace function public.data_listing_kinds(p_listing text)
returns text[]
language sql immutable
as $$
  select case p_listing
    when 'ai_interactions' then array['ai_interaction']
    when 'ux_sessions' then array['ux_session']
    when 'gb_bundles' then array['ai_interaction', 'ux_session']
  end
$$;

revoke all on function public.data_listing_kinds(text) from public, anon, sdk;
grant execute on function public.data_listing_kinds(text) to authenticated, service_role;

-- Keeps `data_catalog_counts` as records are stored, held, released, licensed and erased
-- (migration 20261209000000_data_buyers): statement-level, from the statement's rows, each row
-- counted in its kind, app, UTC day received and model, as stored, as held (under an exclusive
-- license) and as fresh (never licensed, not held). An update counts the rows as they are now
-- and takes back what they counted before.
create or replace function public.data_catalog_count()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    insert into public.data_catalog_counts as c (kind, app_id, day, model, records, bytes, held_records, held_bytes, fresh_records, fresh_bytes)
    select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date, coalesce(r.model, ''), count(*), sum(r.bytes),
           count(*) filter (where r.exclusive_license_id is not null), coalesce(sum(r.bytes) filter (where r.exclusive_license_id is not null), 0),
           count(*) filter (where r.exclusive_license_id is null and r.status = 'unsold'),
           coalesce(sum(r.bytes) filter (where r.exclusive_license_id is null and r.status = 'unsold'), 0)
    from added r group by 1, 2, 3, 4
    on conflict (kind, app_id, day, model) do update set
      records = c.records + excluded.records, bytes = c.bytes + excluded.bytes,
      held_records = c.held_records + excluded.held_records, held_bytes = c.held_bytes + excluded.held_bytes,
      fresh_records = c.fresh_records + excluded.fresh_records, fresh_bytes = c.fresh_bytes + excluded.fresh_bytes;
  elsif tg_op = 'DELETE' then
    update public.data_catalog_counts c set
      records = c.records - d.records, bytes = c.bytes - d.bytes, held_records = c.held_records - d.held_records,
      held_bytes = c.held_bytes - d.held_bytes, fresh_records = c.fresh_records - d.fresh_records, fresh_bytes = c.fresh_bytes - d.fresh_bytes
    from (
      select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date as day, coalesce(r.model, '') as model, count(*) as records, sum(r.bytes) as bytes,
             count(*) filter (where r.exclusive_license_id is not null) as held_records,
             coalesce(sum(r.bytes) filter (where r.exclusive_license_id is not null), 0) as held_bytes,
             count(*) filter (where r.exclusive_license_id is null and r.status = 'unsold') as fresh_records,
             coalesce(sum(r.bytes) filter (where r.exclusive_license_id is null and r.status = 'unsold'), 0) as fresh_bytes
      from removed r group by 1, 2, 3, 4
    ) d
    where c.kind = d.kind and c.app_id = d.app_id and c.day = d.day and c.model = d.model;
  else
    update public.data_catalog_counts c set
      held_records = c.held_records + d.held_records, held_bytes = c.held_bytes + d.held_bytes,
      fresh_records = c.fresh_records + d.fresh_records, fresh_bytes = c.fresh_bytes + d.fresh_bytes
    from (
      select x.kind, x.app_id, x.day, x.model, sum(x.held) as held_records, sum(x.held * x.bytes) as held_bytes,
             sum(x.fresh) as fresh_records, sum(x.fresh * x.bytes) as fresh_bytes
      from (
        select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date as day, coalesce(r.model, '') as model, r.bytes::bigint as bytes,
               (r.exclusive_license_id is not null)::int as held, (r.exclusive_license_id is null and r.status = 'unsold')::int as fresh
        from added r
        union all
        select r.kind, r.app_id, (r.received_at at time zone 'UTC')::date, coalesce(r.model, ''), r.bytes::bigint,
               -(r.exclusive_license_id is not null)::int, -(r.exclusive_license_id is null and r.status = 'unsold')::int
        from removed r
      ) x
      group by 1, 2, 3, 4
    ) d
    where c.kind = d.kind and c.app_id = d.app_id and c.day = d.day and c.model = d.model
      and (d.held_records <> 0 or d.fresh_records <> 0);
  end if;
  return null;
end $$;

revoke all on function public.data_catalog_count() from public, anon, authenticated, sdk, service_role;

create trigger data_records_counted_in after insert on public.data_records
  referencing new table as added for each statement execute function public.data_catalog_count();
create trigger data_records_counted_again after update on public.data_records
  referencing old table as removed new table as added for each statement execute function public.data_catalog_count();
create trigger data_records_counted_out after delete on public.data_records
  referencing old table as removed for each statement execute function public.data_catalog_count();


-- ── The catalog ─────────────────────────────────────────────────────────────────────────────
-- What a listing has available for a filter (migration 20261209000000_data_buyers), from the
-- catalog's counts: records and bytes a standard license may take (stored, not held under an
-- exclusive license), those an exclusive one may take (never licensed, not held), and the first
-- and last day they were received. The filter: apps in any of `p_categories` (none: every app),
-- received from `p_from` to `p_to` (UTC days, both included; null: open), models in `p_models`
-- (none: any). Answers json; null for an unknown listing. For anyone signed in: counts say
-- nothing of anyone.
create or replace function public.data_catalog_available(p_listing text, p_categories text[], p_from date, p_to date, p_models text[])
returns json
language sql stable security definer set search_path = ''
as $$
  select case when public.data_listing_kinds(p_listing) is null then null else json_build_object(
    'records', coalesce(sum(c.records - c.held_records), 0),
    'bytes', coalesce(sum(c.bytes - c.held_bytes), 0),
    'exclusive_records', coalesce(sum(c.fresh_records), 0),
    'exclusive_bytes', coalesce(sum(c.fresh_bytes), 0),
    'first_day', min(c.day) filter (where c.records > c.held_records),
    'last_day', max(c.day) filter (where c.records > c.held_records)) end
  from public.data_catalog_counts c
  where c.kind = any(public.data_listing_kinds(p_listing))
    and (cardinality(coalesce(p_categories, '{}')) = 0 or exists (select 1 from public.apps a where a.id = c.app_id and a.category && p_categories))
    and (p_from is null or c.day >= p_from)
    and (p_to is null or c.day <= p_to)
    and (cardinality(coalesce(p_models, '{}')) = 0 or c.model = any(p_models))
$$;

revoke all on function public.data_catalog_available(text, text[], date, date, text[]) from public, anon, sdk;
grant execute on function public.data_catalog_available(text, text[], date, date, text[]) to authenticated, service_role;

-- What a listing's filters can choose from (migration 20261209000000_data_buyers): the app
-- categories and models its available records have, each with how many, from the catalog's
-- counts. Answers json `{categories: [{value, records}], models: [{value, records}]}`.
create or replace function public.data_catalog_facets(p_listing text)
returns json
language sql stable security definer set search_path = ''
as $$
  with available as (
    select c.app_id, c.model, c.records - c.held_records as records
    from public.data_catalog_counts c
    where c.kind = any(public.data_listing_kinds(p_listing)) and c.records > c.held_records
  )
  select json_build_object(
    'categories', coalesce((select json_agg(json_build_object('value', x.value, 'records', x.records) order by x.records desc, x.value)
                            from (select cat as value, sum(v.records) as records
                                  from available v join public.apps a on a.id = v.app_id cross join unnest(a.category) as cat
                                  group by cat) x), '[]'::json),
    'models', coalesce((select json_agg(json_build_object('value', x.value, 'records', x.records) order by x.records desc, x.value)
                        from (select v.model as value, sum(v.records) as records from available v where v.model <> '' group by v.model) x), '[]'::json))
$$;

revoke all on function public.data_catalog_facets(text) from public, anon, sdk;
grant execute on function public.data_catalog_facets(text) to authenticated, service_role;

-- A free sample of a listing for a filter (migration 20261209000000_data_buyers): at most
-- `p_limit` (at most 100) of its newest available records, each with only what is not an
-- identifier: its kind, its app's categories, the day it was received, its model and its content.
-- No record id, subject or app: the service also masks addresses and numbers in the text
-- (lib/data-buyers/catalog.ts). Only for a data buyer who accepted the terms.
create or replace function public.data_catalog_sample(p_listing text, p_categories text[], p_from date, p_to date, p_models text[], p_limit integer)
returns table (kind text, categories text[], received_on date, model text, payload jsonb)
language plpgsql stable security definer set search_path = ''
as $$
declare
  -- A listing of one kind reads that kind's newest records by index (kind, received_at); the
  -- bundles, of every kind, read the newest of all (received_at).
  v_kind text := case p_listing when 'ai_interactions' then 'ai_interaction' when 'ux_sessions' then 'ux_session' end;
  v_limit integer := least(greatest(coalesce(p_limit, 0), 0), 100);
begin
  if not exists (select 1 from public.buyer_profiles b where b.user_id = auth.uid()) then
    raise exception 'data buyers only' using errcode = 'insufficient_privilege';
  end if;
  if public.data_listing_kinds(p_listing) is null then
    return;
  end if;
  if v_kind is not null then
    return query
      select r.kind, a.category, (r.received_at at time zone 'UTC')::date, r.model, r.payload
      from public.data_records r
      join public.apps a on a.id = r.app_id
      where r.kind = v_kind
        and r.exclusive_license_id is null
        and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
        and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
        and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
      order by r.received_at desc, r.id
      limit v_limit;
  else
    return query
      select r.kind, a.category, (r.received_at at time zone 'UTC')::date, r.model, r.payload
      from public.data_records r
      join public.apps a on a.id = r.app_id
      where r.exclusive_license_id is null
        and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
        and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
        and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
      order by r.received_at desc, r.id
      limit v_limit;
  end if;
end $$;

revoke all on function public.data_catalog_sample(text, text[], date, date, text[], integer) from public, anon, sdk;
grant execute on function public.data_catalog_sample(text, text[], date, date, text[], integer) to authenticated;


-- ── Licenses ────────────────────────────────────────────────────────────────────────────────
-- What a license would cost (migration 20261209000000_data_buyers): `p_quantity` units of a
-- listing for a filter (public.data_catalog_available), standard or exclusive, at the pricing
-- settings in force: units × the listing's price, × `exclusive_license_multiplier` when
-- exclusive, rounded once to the micro-dollar. Units are rows or recordings (a whole number, at
-- most 5,000,000), or GB for a bundle (0.001 to 1,000, to the MB): a bundle takes the newest
-- records up to that size and is charged for the bytes it takes, so its price here is the most
-- it costs. Answers `{ok: true, units, unit_price_micro, multiplier, price_micro, available_records,
-- available_bytes}` or `{ok: false, error}`: `unknown_listing`, `quantity_out_of_range`,
-- `nothing_matches`, `quantity_above_available` (with what is available), `not_for_sale` (a price of 0).
create or replace function public.data_license_quote(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                     p_quantity numeric, p_exclusive boolean)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_available json := public.data_catalog_available(p_listing, p_categories, p_from, p_to, p_models);
  v_records bigint;
  v_bytes bigint;
  v_unit_usd numeric;
  v_multiplier numeric;
begin
  if v_available is null then
    return json_build_object('ok', false, 'error', 'unknown_listing');
  end if;
  if p_quantity is null or p_quantity <= 0
     or (p_listing <> 'gb_bundles' and (p_quantity <> trunc(p_quantity) or p_quantity > 5000000))
     or (p_listing = 'gb_bundles' and (p_quantity < 0.001 or p_quantity > 1000 or p_quantity <> round(p_quantity, 3))) then
    return json_build_object('ok', false, 'error', 'quantity_out_of_range');
  end if;
  v_records := case when coalesce(p_exclusive, false) then (v_available ->> 'exclusive_records')::bigint else (v_available ->> 'records')::bigint end;
  v_bytes := case when coalesce(p_exclusive, false) then (v_available ->> 'exclusive_bytes')::bigint else (v_available ->> 'bytes')::bigint end;
  if v_records = 0 then
    return json_build_object('ok', false, 'error', 'nothing_matches', 'available_records', 0, 'available_bytes', 0);
  end if;
  if (p_listing = 'gb_bundles' and p_quantity * 1000000000 > v_bytes) or (p_listing <> 'gb_bundles' and p_quantity > v_records) then
    return json_build_object('ok', false, 'error', 'quantity_above_available', 'available_records', v_records, 'available_bytes', v_bytes);
  end if;
  select case p_listing when 'ai_interactions' then s.price_per_ai_interaction_row_usd
                        when 'ux_sessions' then s.price_per_ux_session_recording_usd
                        else s.price_per_gb_bundle_usd end,
         case when coalesce(p_exclusive, false) then s.exclusive_license_multiplier else 1 end
  into v_unit_usd, v_multiplier
  from public.pricing_settings s;
  if coalesce(v_unit_usd, 0) = 0 then
    return json_build_object('ok', false, 'error', 'not_for_sale');
  end if;
  return json_build_object('ok', true, 'units', p_quantity, 'unit_price_micro', round(v_unit_usd * 1000000)::bigint,
                           'multiplier', v_multiplier, 'price_micro', round(round(v_unit_usd * 1000000) * p_quantity * v_multiplier)::bigint,
                           'available_records', v_records, 'available_bytes', v_bytes);
end $$;

revoke all on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean) from public, anon, sdk;
grant execute on function public.data_license_quote(text, text[], date, date, text[], numeric, boolean) to authenticated, service_role;

-- A data buyer's funds (migration 20261209000000_data_buyers): the balance of their `buyer`
-- ledger account, what their exclusive licenses awaiting review reserve of it, and what is left
-- to spend. Micro-dollars; for the buyer signed in (`p_user` is theirs, or the service's choice).
create or replace function public.buyer_funds(p_user uuid)
returns json
language sql stable security definer set search_path = ''
as $$
  select json_build_object('balance_micro', b.balance, 'reserved_micro', r.reserved, 'available_micro', b.balance - r.reserved)
  from (select public.ledger_balance_micro('buyer', p_user) as balance) b,
       (select coalesce(sum(l.price_micro), 0)::bigint as reserved from public.data_licenses l
        where l.buyer_id = p_user and l.status = 'pending_review') r
  where p_user = auth.uid() or auth.uid() is null
$$;

revoke all on function public.buyer_funds(uuid) from public, anon, sdk;
grant execute on function public.buyer_funds(uuid) to authenticated, service_role;

-- The money of a data sale (migration 20261209000000_data_buyers): one `data_sale` transaction,
-- referenced by the license, of `p_price_micro` from buyer `p_buyer` to the publishers whose
-- records the license holds and to the platform. The publishers' part, `publisher_data_revenue_share`
-- of the price rounded once, is split per publisher and app in proportion to the records each
-- contributed (bytes, for a GB bundle), floored, and the micro-dollars left over go one each to
-- the largest remainders; the platform's part is the rest, so the postings sum to zero exactly.
-- Called by public.data_license_buy and public.staff_data_license_review; nobody else.
create or replace function public.data_license_grant(p_license uuid, p_buyer uuid, p_listing text, p_price_micro bigint)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_share numeric;
  v_publishers bigint;
  v_postings jsonb;
begin
  select s.publisher_data_revenue_share into v_share from public.pricing_settings s;
  v_publishers := round(p_price_micro * v_share)::bigint;
  with parts as (
    select lr.publisher_id, lr.app_id, sum(case when p_listing = 'gb_bundles' then lr.bytes else 1 end)::numeric as weight
    from public.data_license_records lr where lr.license_id = p_license
    group by lr.publisher_id, lr.app_id
  ),
  exact as (
    select p.*, v_publishers * p.weight / sum(p.weight) over () as owed from parts p
  ),
  floored as (
    select e.*, floor(e.owed)::bigint as base,
           row_number() over (order by e.owed - floor(e.owed) desc, e.app_id, e.publisher_id) as rank
    from exact e
  ),
  paid as (
    select f.publisher_id, f.app_id,
           f.base + case when f.rank <= v_publishers - sum(f.base) over () then 1 else 0 end as micro
    from floored f
  )
  select jsonb_agg(jsonb_build_object('account_id', public.ledger_account('publisher', p.publisher_id), 'amount_micro', p.micro, 'app_id', p.app_id))
  into v_postings
  from paid p;
  v_postings := v_postings
    || jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('buyer', p_buyer), 'amount_micro', -p_price_micro),
                         jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', p_price_micro - v_publishers));
  return public.ledger_post('data_sale', p_license::text, now(), null, v_postings);
end $$;

revoke all on function public.data_license_grant(uuid, uuid, text, bigint) from public, anon, authenticated, sdk, service_role;

-- A data buyer buys a license (migration 20261209000000_data_buyers), as themselves: the newest
-- available records of a listing for a filter, `p_quantity` units (public.data_license_quote),
-- standard or exclusive, paid from their balance, for no more than `p_max_price_micro` (the
-- price they were shown: if the pricing changed since, nothing is bought).
--
-- Standard: granted at once for a year, its export queued. One `data_sale` transaction (reference: the license)
-- debits the buyer the price and credits each publisher whose records it holds, per app, their
-- part of `publisher_data_revenue_share` of it, in proportion to the records (by bytes for a GB
-- bundle) they contributed, to the micro-dollar (largest remainders); the rest is the
-- platform's. Its records may be licensed to others too.
-- Exclusive: records never licensed before, held from that moment for this license alone (no
-- other listing, sample or license sees them), its price reserved from the balance
-- (public.buyer_funds); the operator approves it (charged then, as above, and held for its
-- year) or rejects it (released, nothing charged) in public.staff_data_license_review.
--
-- The records are locked as they are taken, so a withdrawal at the same moment either erases
-- them first or finds them licensed (and sends its notice). Answers `{ok: true, license_id,
-- status, records, bytes, price_micro}` or `{ok: false, error}`: `not_a_buyer`, the quote's
-- refusals, `price_changed` (with the price now), `insufficient_funds` (with what is available).
create or replace function public.data_license_buy(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                   p_quantity numeric, p_exclusive boolean, p_max_price_micro bigint)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_buyer uuid := auth.uid();
  v_profile record;
  v_quote json;
  v_exclusive boolean := coalesce(p_exclusive, false);
  v_license uuid := gen_random_uuid();
  v_taken integer := 0;
  v_bytes bigint := 0;
  v_limit_bytes bigint;
  -- The one kind of a listing of rows or recordings (read by index in the newest first); bundles take every kind.
  v_kind text := case p_listing when 'ai_interactions' then 'ai_interaction' when 'ux_sessions' then 'ux_session' end;
  v_record record;
  v_units numeric;
  v_price bigint;
  v_funds json;
  v_tx uuid;
begin
  select * into v_profile from public.buyer_profiles b where b.user_id = v_buyer;
  if not found then
    return json_build_object('ok', false, 'error', 'not_a_buyer');
  end if;
  -- One purchase at a time per buyer: two at once cannot both spend the same balance.
  perform pg_advisory_xact_lock(hashtextextended('data_license_buy:' || v_buyer, 0));
  v_quote := public.data_license_quote(p_listing, p_categories, p_from, p_to, p_models, p_quantity, v_exclusive);
  if not (v_quote ->> 'ok')::boolean then
    return v_quote;
  end if;
  if (v_quote ->> 'price_micro')::bigint > coalesce(p_max_price_micro, 0) then
    return json_build_object('ok', false, 'error', 'price_changed', 'price_micro', (v_quote ->> 'price_micro')::bigint);
  end if;
  v_funds := public.buyer_funds(v_buyer);
  if (v_funds ->> 'available_micro')::bigint < (v_quote ->> 'price_micro')::bigint then
    return json_build_object('ok', false, 'error', 'insufficient_funds', 'available_micro', (v_funds ->> 'available_micro')::bigint,
                             'price_micro', (v_quote ->> 'price_micro')::bigint);
  end if;
  v_limit_bytes := case when p_listing = 'gb_bundles' then (p_quantity * 1000000000)::bigint end;
  -- The records, newest first: so many rows or recordings, or as many as fit the bundle's size.
  if v_limit_bytes is null then
    with picked as (
      select r.id, r.app_id, r.user_id, r.bytes, r.received_at
      from public.data_records r
      join public.apps a on a.id = r.app_id
      where r.kind = v_kind
        and r.exclusive_license_id is null
        and (not v_exclusive or r.status = 'unsold')
        and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
        and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
        and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
      order by r.received_at desc, r.id
      limit p_quantity
      for update of r skip locked
    )
    insert into public.data_license_records (license_id, position, record_id, app_id, publisher_id, bytes)
    select v_license, row_number() over (order by p.received_at desc, p.id), p.id, p.app_id, p.user_id, p.bytes from picked p;
    get diagnostics v_taken = row_count;
    select coalesce(sum(lr.bytes), 0) into v_bytes from public.data_license_records lr where lr.license_id = v_license;
  else
    for v_record in
      select r.id, r.app_id, r.user_id, r.bytes
      from public.data_records r
      join public.apps a on a.id = r.app_id
      where r.exclusive_license_id is null
        and (not v_exclusive or r.status = 'unsold')
        and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
        and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
        and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
      order by r.received_at desc, r.id
      for update of r skip locked
    loop
      continue when v_bytes + v_record.bytes > v_limit_bytes;
      insert into public.data_license_records (license_id, position, record_id, app_id, publisher_id, bytes)
      values (v_license, v_taken + 1, v_record.id, v_record.app_id, v_record.user_id, v_record.bytes);
      v_taken := v_taken + 1;
      v_bytes := v_bytes + v_record.bytes;
      exit when v_limit_bytes - v_bytes < 1024;
    end loop;
  end if;
  if v_taken = 0 or (v_limit_bytes is null and v_taken < p_quantity) then
    -- Others took some of them a moment ago (locked, or held exclusively): nothing is bought.
    delete from public.data_license_records lr where lr.license_id = v_license;
    return json_build_object('ok', false, 'error', 'quantity_above_available', 'available_records', v_taken, 'available_bytes', v_bytes);
  end if;
  v_units := case when v_limit_bytes is null then v_taken else v_bytes / 1000000000.0 end;
  v_price := round((v_quote ->> 'unit_price_micro')::bigint * v_units * (v_quote ->> 'multiplier')::numeric)::bigint;
  if v_price <= 0 then
    delete from public.data_license_records lr where lr.license_id = v_license;
    return json_build_object('ok', false, 'error', 'not_for_sale');
  end if;
  if not v_exclusive then
    v_tx := public.data_license_grant(v_license, v_buyer, p_listing, v_price);
  end if;
  insert into public.data_licenses (id, buyer_id, listing, exclusive, filter, quantity, records, bytes, units, unit_price_micro, multiplier,
                                    price_micro, terms_version, term_days, status, starts_at, expires_at, transaction_id)
  values (v_license, v_buyer, p_listing, v_exclusive,
          jsonb_build_object('categories', coalesce(p_categories, '{}'), 'from', p_from, 'to', p_to, 'models', coalesce(p_models, '{}')),
          p_quantity, v_taken, v_bytes, v_units, (v_quote ->> 'unit_price_micro')::bigint, (v_quote ->> 'multiplier')::numeric, v_price,
          v_profile.terms_version, 365, case when v_exclusive then 'pending_review' else 'active' end,
          case when v_exclusive then null else now() end, case when v_exclusive then null else now() + interval '365 days' end, v_tx);
  if v_exclusive then
    -- Held while the operator reviews it; a rejection releases them, an approval holds them for its term.
    update public.data_records r set exclusive_license_id = v_license, exclusive_until = now() + interval '30 days'
    from public.data_license_records lr where lr.license_id = v_license and r.id = lr.record_id;
  else
    update public.data_records r set status = 'sold'
    from public.data_license_records lr where lr.license_id = v_license and r.id = lr.record_id and r.status = 'unsold';
    -- Its files, written by the export job.
    insert into public.data_exports (license_id) values (v_license);
  end if;
  return json_build_object('ok', true, 'license_id', v_license, 'status', case when v_exclusive then 'pending_review' else 'active' end,
                           'records', v_taken, 'bytes', v_bytes, 'price_micro', v_price);
end $$;

revoke all on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint) from public, anon, sdk, service_role;
grant execute on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint) to authenticated;

-- Staff review an exclusive license awaiting it (migration 20261209000000_data_buyers). Approved:
-- charged as a standard sale is (public.data_license_grant), active for its term from now, its
-- records held for that term and marked sold, its export queued. Refused when the buyer's balance no longer covers
-- it (`insufficient_funds`: the reservation should make that impossible; the check stays).
-- Rejected: `rejected` with the reason the buyer reads, its records released, nothing charged.
-- Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_data_license_review(p_license uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_license record;
  v_tx uuid;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select * into v_license from public.data_licenses l where l.id = p_license for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_license.status <> 'pending_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_license.status);
  end if;
  if p_approve then
    if public.ledger_balance_micro('buyer', v_license.buyer_id) < v_license.price_micro then
      return json_build_object('ok', false, 'error', 'insufficient_funds');
    end if;
    v_tx := public.data_license_grant(v_license.id, v_license.buyer_id, v_license.listing, v_license.price_micro);
    update public.data_licenses l set status = 'active', starts_at = now(), expires_at = now() + make_interval(days => l.term_days),
      transaction_id = v_tx, reviewed_at = now(), reviewed_by = auth.uid()
    where l.id = v_license.id;
    update public.data_records r set exclusive_until = now() + make_interval(days => v_license.term_days), status = 'sold'
    where r.exclusive_license_id = v_license.id;
    insert into public.data_exports (license_id) values (v_license.id);
  else
    update public.data_licenses l set status = 'rejected', rejection_reason = btrim(p_reason), reviewed_at = now(), reviewed_by = auth.uid()
    where l.id = v_license.id;
    update public.data_records r set exclusive_license_id = null, exclusive_until = null where r.exclusive_license_id = v_license.id;
  end if;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'data_license.approved' else 'data_license.rejected' end, v_license.id::text,
          nullif(btrim(p_reason), ''), jsonb_build_object('buyer_id', v_license.buyer_id, 'price_micro', v_license.price_micro));
  return json_build_object('ok', true, 'status', case when p_approve then 'active' else 'rejected' end);
end $$;

revoke all on function public.staff_data_license_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_data_license_review(uuid, boolean, text) to authenticated;

-- Licenses and holds as time passes (migration 20261209000000_data_buyers), run with the traffic
-- roll-up: a license past its expiry is `expired` (its downloads end); an exclusive license whose
-- review waited 30 days is rejected (nothing was charged; its reservation ends); and the records an
-- exclusive license held are released when its term ends or its review ended so. Answers how many
-- licenses and records changed.
create or replace function public.data_licenses_advance(p_now timestamptz)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_expired integer;
  v_unreviewed integer;
  v_released integer;
begin
  update public.data_licenses l set status = 'expired' where l.status = 'active' and l.expires_at <= p_now;
  get diagnostics v_expired = row_count;
  update public.data_licenses l set status = 'rejected', reviewed_at = p_now,
    rejection_reason = 'No operator reviewed it within 30 days: nothing was charged, and its records were released.'
  where l.status = 'pending_review' and l.requested_at <= p_now - interval '30 days';
  get diagnostics v_unreviewed = row_count;
  update public.data_records r set exclusive_license_id = null, exclusive_until = null
  where r.exclusive_license_id is not null and r.exclusive_until <= p_now;
  get diagnostics v_released = row_count;
  return json_build_object('expired_licenses', v_expired, 'unreviewed_licenses', v_unreviewed, 'released_records', v_released);
end $$;

revoke all on function public.data_licenses_advance(timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.data_licenses_advance(timestamptz) to service_role;

-- What awaits the operator on the data side (migration 20261209000000_data_buyers): exclusive
-- licenses awaiting review, oldest first, each with its buyer, what it covers and its price.
-- Refused to anyone but staff (public.is_staff).
create or replace function public.staff_data_queue(p_limit integer)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'licenses', (select coalesce(json_agg(r order by r.requested_at), '[]')
                 from (select l.id, l.listing, l.filter, l.records, l.bytes, l.price_micro, l.requested_at, u.email, b.company, b.intended_use
                       from public.data_licenses l join public.users u on u.id = l.buyer_id
                       left join public.buyer_profiles b on b.user_id = l.buyer_id
                       where l.status = 'pending_review'
                       order by l.requested_at limit least(greatest(coalesce(p_limit, 50), 1), 200)) r));
end $$;

revoke all on function public.staff_data_queue(integer) from public, anon, sdk;
grant execute on function public.staff_data_queue(integer) to authenticated;


-- ── Consent after the sale ──────────────────────────────────────────────────────────────────
-- Erases a subject's records of an app (migration 20261209000000_data_buyers): every record of
-- theirs of `p_kinds` (all kinds: null), sold or not, deleted at once, so no listing, sample,
-- license or export has them from now on; and each buyer whose licenses (granted, or awaiting
-- review) covered any of them gets one deletion notice naming those records and licenses
-- (GDPR Art. 17 and 19); the files of the licenses' exports, which still hold them, are written
-- again without them. What the sale earned its publisher stays theirs. Called in the
-- withdrawal's transaction (lib/sdk/data.ts), by the app's SDK role for its own app only.
-- Answers how many records were deleted.
create or replace function public.data_records_erase(p_subject text, p_kinds text[], p_reason text)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_deleted uuid[];
  v_licenses uuid[];
begin
  if v_app is null then
    raise exception 'the SDK role of an app only' using errcode = 'insufficient_privilege';
  end if;
  with gone as (
    delete from public.data_records r
    where r.app_id = v_app and r.subject_hash = p_subject and (p_kinds is null or r.kind = any(p_kinds))
    returning r.id
  )
  select coalesce(array_agg(g.id), '{}') into v_deleted from gone g;
  insert into public.data_deletion_notices (buyer_id, reason, record_ids, license_ids)
  select l.buyer_id, p_reason, array_agg(distinct lr.record_id order by lr.record_id), array_agg(distinct l.id order by l.id)
  from public.data_license_records lr
  join public.data_licenses l on l.id = lr.license_id
  where lr.record_id = any(v_deleted) and l.status in ('active', 'expired', 'pending_review')
  group by l.buyer_id;
  -- Files already written still hold them: each active license's export is superseded by a new one.
  select coalesce(array_agg(distinct lr.license_id), '{}') into v_licenses
  from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
  where lr.record_id = any(v_deleted) and l.status = 'active';
  update public.data_exports e set status = 'superseded', lease_until = null
  where e.license_id = any(v_licenses) and e.status <> 'superseded';
  insert into public.data_exports (license_id) select unnest(v_licenses);
  return cardinality(v_deleted);
end $$;

revoke all on function public.data_records_erase(text, text[], text) from public, anon, authenticated, service_role;
grant execute on function public.data_records_erase(text, text[], text) to sdk;

-- A buyer acknowledges a deletion notice of theirs (migration 20261209000000_data_buyers): they
-- deleted the records it names. Recorded once, with when; asked again, it changes nothing.
-- Answers `{ok, acknowledged_at}` or `{ok: false, error: 'not_found'}` (not theirs, or none).
create or replace function public.data_deletion_notice_acknowledge(p_notice uuid)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_at timestamptz;
begin
  update public.data_deletion_notices n set acknowledged_at = coalesce(n.acknowledged_at, now())
  where n.id = p_notice and n.buyer_id = auth.uid()
  returning n.acknowledged_at into v_at;
  if v_at is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  return json_build_object('ok', true, 'acknowledged_at', v_at);
end $$;

revoke all on function public.data_deletion_notice_acknowledge(uuid) from public, anon, sdk, service_role;
grant execute on function public.data_deletion_notice_acknowledge(uuid) to authenticated;


-- ── Licenses expire with the roll-up ─────────────────────────────────────────────────────────
-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats (with what the ads cost), the campaigns' daily spend and
-- daily stats per creative and app (what advertisers' reports read), and the keys' last use, in
-- one transaction: every count is added exactly once. What the counts billed
-- goes into the ledger in the same transaction: one `ad_spend` transaction per run and day
-- (public.ledger_post_ad_spend, through `ad_spend_pending`), which debits each campaign's
-- advertiser and credits each app's publisher and the platform. Then campaigns move on by the
-- clock and by their budgets (public.campaigns_advance), the days counted before advertisers had
-- accounts are posted as they were (public.ledger_post_ad_revenue), the months whose
-- earnings are final are closed (public.ledger_close_months), and data licenses past their
-- term expire and release what they held (public.data_licenses_advance, migration
-- 20261209000000_data_buyers). Rows of transactions still open are
-- invisible here and wait for the next run; `skip locked` lets two runs share the work without waiting.
-- The server runs it every few seconds (lib/sdk/rollup.ts); on Supabase pg_cron can instead.
-- It also adds what serving promised and what billing took, per campaign and five minutes, to the
-- `served:` and `billed:` counters that pacing reads (public.sdk_serve_ad): serving writes no row
-- another request writes too, and counts its promises from the next run. Each run also sweeps,
-- a bounded batch at a time, what is kept only for a while (SECURITY.md,
-- What strangers can store): decisions and invalid traffic after 35 days (past their token's hour,
-- the frequency cap's day and a month's close), and counters and budget leases two days after
-- their period.
create or replace function public.roll_up_ad_traffic(p_limit integer default 200000)
returns table (decisions bigint, events bigint)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_retained_since timestamptz := now() - interval '35 days';
begin
  -- Decision ids are time-ordered (public.time_ordered_uuid): the oldest are the lowest.
  delete from public.ad_decisions d
  where d.id in (select x.id from public.ad_decisions x
                 where x.id < (lpad(to_hex(floor(extract(epoch from v_retained_since) * 1000)::bigint), 12, '0')
                               || '00000000000000000000')::uuid
                 order by x.id limit 10000)
    and d.created_at < v_retained_since;
  delete from public.ad_events e
  where e.id in (select x.id from public.ad_events x where x.occurred_at < v_retained_since and not x.billable limit 10000);
  delete from public.sdk_counters k
  where (k.name, k.period) in (select x.name, x.period from public.sdk_counters x where x.period < now() - interval '2 days' limit 10000);
  delete from public.sdk_budget_leases l
  where (l.campaign_id, l.period, l.shard) in (select x.campaign_id, x.period, x.shard from public.sdk_budget_leases x
                                               where x.period < now() - interval '2 days' limit 10000);

  return query
  with taken as (
    delete from public.ad_traffic_counts c
    where c.id in (select x.id from public.ad_traffic_counts x order by x.id limit p_limit for update skip locked)
    returning c.*
  ), by_day as (
    select t.placement_id, t.day, sum(t.requests) as requests, sum(t.fills) as fills, sum(t.impressions) as impressions,
           sum(t.clicks) as clicks, sum(t.invalid) as invalid, sum(t.revenue_usd) as revenue, sum(t.cost_usd) as cost
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_usd, cost_usd,
                                         posted_usd, posted_cost_usd)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost, b.revenue, b.cost
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      invalid_events = s.invalid_events + excluded.invalid_events,
      revenue_usd = s.revenue_usd + excluded.revenue_usd,
      cost_usd    = s.cost_usd + excluded.cost_usd,
      posted_usd  = s.posted_usd + excluded.posted_usd,
      posted_cost_usd = s.posted_cost_usd + excluded.posted_cost_usd
  ), billed as (
    -- What this run's counts billed, for the ledger (public.ledger_post_ad_spend, below).
    insert into public.ad_spend_pending (day, campaign_id, app_id, cost_micro, revenue_micro)
    select t.day, t.campaign_id, t.app_id, sum((t.cost_usd * 1000000)::bigint), sum((t.revenue_usd * 1000000)::bigint)
    from taken t where t.cost_usd > 0 or t.revenue_usd > 0
    group by t.day, t.campaign_id, t.app_id
  ), totals as (
    update public.placements p set
      ad_requests = p.ad_requests + c.requests,
      fills       = p.fills + c.fills,
      impressions = p.impressions + c.impressions,
      clicks      = p.clicks + c.clicks,
      invalid_events = p.invalid_events + c.invalid,
      revenue_usd = p.revenue_usd + c.revenue
    from (select b.placement_id, sum(b.requests) requests, sum(b.fills) fills, sum(b.impressions) impressions,
                 sum(b.clicks) clicks, sum(b.invalid) invalid, sum(b.revenue) revenue
          from by_day b group by b.placement_id) c
    where p.id = c.placement_id
  ), spend as (
    insert into public.campaign_daily_spend as s (campaign_id, day, impressions, clicks, spent_usd)
    select t.campaign_id, t.day, sum(t.impressions), sum(t.clicks), sum(t.cost_usd)
    -- A campaign deleted since its ad was served has no spend to keep (and must not stop the run).
    from taken t where (t.impressions > 0 or t.clicks > 0) and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.day
    on conflict (campaign_id, day) do update set
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_usd   = s.spent_usd + excluded.spent_usd
  ), report as (
    insert into public.campaign_daily_stats as s (campaign_id, creative_id, app_id, day, fills, impressions, clicks, spent_usd)
    select t.campaign_id, t.creative_id, t.app_id, t.day, sum(t.fills), sum(t.impressions), sum(t.clicks), sum(t.cost_usd)
    from taken t
    where t.creative_id is not null and (t.fills > 0 or t.impressions > 0 or t.clicks > 0)
      and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.creative_id, t.app_id, t.day
    on conflict (campaign_id, day, creative_id, app_id) do update set
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_usd   = s.spent_usd + excluded.spent_usd
  ), promised as (
    insert into public.sdk_counters as k (name, period, used)
    select x.name, x.slot, x.micro
    from (select 'served:' || t.campaign_id as name, date_bin(interval '5 minutes', t.at, timestamptz '2000-01-01 00:00:00+00') as slot,
                 sum((t.promised_usd * 1000000)::bigint) as micro
          from taken t where t.campaign_id is not null and t.promised_usd > 0 group by 1, 2
          union all
          select 'billed:' || t.campaign_id, date_bin(interval '5 minutes', t.at, timestamptz '2000-01-01 00:00:00+00'),
                 sum((t.cost_usd * 1000000)::bigint)
          from taken t where t.campaign_id is not null and t.cost_usd > 0 group by 1, 2) x
    on conflict (name, period) do update set used = k.used + excluded.used
  ), used as (
    update public.api_keys k set last_used_at = greatest(k.last_used_at, u.last_at)
    from (select t.api_key_id, max(t.at) as last_at from taken t where t.api_key_id is not null group by t.api_key_id) u
    where k.id = u.api_key_id
  )
  select coalesce(sum(t.requests), 0)::bigint, coalesce(sum(t.impressions + t.clicks), 0)::bigint from taken t;

  -- What this run billed, into the ledger; campaigns moved on by the clock, their budgets and
  -- their advertisers' balances; the days counted before advertisers had accounts, into the
  -- ledger as they were (once they are over); and the months whose final day has come, closed
  -- (public.ledger_close_months: nothing to do, the common case, is one read).
  perform public.ledger_post_ad_spend();
  perform public.campaigns_advance();
  perform public.ledger_post_ad_revenue();
  perform public.ledger_close_months();
  perform public.data_licenses_advance(now());
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;


-- ── Funds for buyers ────────────────────────────────────────────────────────────────────────
-- Why a top-up of `p_amount_micro` for user `p_user`'s account of kind `p_account_kind` would be
-- refused, or null when it would not (migration 20261207000000_advertisers; the buyer's account,
-- migration 20261209000000_data_buyers): `not_an_advertiser` without an advertiser profile, or
-- `not_a_buyer` without a buyer profile;
-- `amount_out_of_range` below the published minimum (`pricing_settings.min_top_up_usd`, answered
-- as `minimum_micro`), above a million dollars or not in whole cents. The one rule for every rail:
-- public.top_up_request (an invoice), public.top_up_open_checkout and the console before it asks
-- Stripe for a session (lib/advertisers/checkout.ts).
create or replace function public.top_up_refusal(p_user uuid, p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_minimum bigint;
begin
  if p_account_kind = 'buyer' then
    if p_user is null or not exists (select 1 from public.buyer_profiles p where p.user_id = p_user) then
      return json_build_object('ok', false, 'error', 'not_a_buyer');
    end if;
  elsif p_account_kind is distinct from 'advertiser' or p_user is null
        or not exists (select 1 from public.advertiser_profiles p where p.user_id = p_user) then
    return json_build_object('ok', false, 'error', 'not_an_advertiser');
  end if;
  select round(s.min_top_up_usd * 1000000)::bigint into v_minimum from public.pricing_settings s;
  if p_amount_micro is null or p_amount_micro < coalesce(v_minimum, 0) or p_amount_micro > 1000000000000 or p_amount_micro % 10000 <> 0 then
    return json_build_object('ok', false, 'error', 'amount_out_of_range', 'minimum_micro', v_minimum);
  end if;
  return null;
end $$;

revoke all on function public.top_up_refusal(uuid, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_refusal(uuid, bigint, text) to service_role;

-- An advertiser asks for a top-up by the manual rail (migration 20261207000000_advertisers), or a
-- data buyer of their own account (`p_account_kind` 'buyer', migration 20261209000000_data_buyers): a
-- `requested` top-up of `p_amount_micro` with its invoice number, which the operator marks paid
-- when the money arrives (public.staff_top_up_record). Refused as public.top_up_refusal says
-- (no advertiser profile, outside the published range), and past ten open requests. Answers `{ok, top_up_id, invoice_number}` or
-- `{ok: false, error}`. Security definer: `top_ups` is written only by the money's functions.
create or replace function public.top_up_request(p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid := auth.uid();
  v_refusal json;
  v_id uuid;
  v_invoice text;
begin
  v_refusal := public.top_up_refusal(v_user, p_amount_micro, p_account_kind);
  if v_refusal is not null then
    return v_refusal;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('top_up_request:' || v_user, 0));
  if (select count(*) from public.top_ups t where t.user_id = v_user and t.status = 'requested') >= 10 then
    return json_build_object('ok', false, 'error', 'too_many_open');
  end if;
  v_invoice := 'INV-' || to_char(now() at time zone 'UTC', 'YYYYMMDD') || '-' || upper(substr(md5(gen_random_uuid()::text), 1, 8));
  insert into public.top_ups (user_id, amount_micro, rail, status, invoice_number, account_kind)
  values (v_user, p_amount_micro, 'manual', 'requested', v_invoice, p_account_kind)
  returning id into v_id;
  return json_build_object('ok', true, 'top_up_id', v_id, 'invoice_number', v_invoice);
end $$;

revoke all on function public.top_up_request(bigint, text) from public, anon, sdk;
grant execute on function public.top_up_request(bigint, text) to authenticated;

-- A top-up by Stripe Checkout (migration 20261207000000_advertisers): the `requested` top-up of
-- Checkout session `p_session` for advertiser `p_user` (or the buyer account, `p_account_kind`) and `p_amount_micro`, made once per
-- session (asked again, by the console after creating the session or by the webhook that finds
-- none, it answers the same top-up). Refused as a manual one is (public.top_up_refusal). The webhook credits it (public.top_up_credit) when
-- Stripe says the session is paid. Answers `{ok, top_up_id}` or `{ok: false, error}`. Called by
-- the service only (the console's action and the webhook).
create or replace function public.top_up_open_checkout(p_user uuid, p_amount_micro bigint, p_session text, p_account_kind text default 'advertiser')
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_refusal json;
  v_id uuid;
begin
  select t.id into v_id from public.top_ups t where t.checkout_session_id = p_session;
  if v_id is not null then
    return json_build_object('ok', true, 'top_up_id', v_id);
  end if;
  v_refusal := public.top_up_refusal(p_user, p_amount_micro, p_account_kind);
  if v_refusal is not null then
    return v_refusal;
  end if;
  insert into public.top_ups (user_id, amount_micro, rail, status, checkout_session_id, account_kind)
  values (p_user, p_amount_micro, 'stripe', 'requested', p_session, p_account_kind)
  on conflict (checkout_session_id) do nothing
  returning id into v_id;
  if v_id is null then
    select t.id into v_id from public.top_ups t where t.checkout_session_id = p_session;
  end if;
  return json_build_object('ok', true, 'top_up_id', v_id);
end $$;

revoke all on function public.top_up_open_checkout(uuid, bigint, text, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_open_checkout(uuid, bigint, text, text) to service_role;

-- A top-up's money has arrived: credited once (migration 20261207000000_advertisers). One
-- `top_up` transaction (reference: the top-up's id) from `payments_in` (what came in through the
-- rails) to the account it funds (the advertiser's, or the buyer's: migration 20261209000000_data_buyers), the top-up marked `paid` with the rail's reference (the
-- operator's note of the payment, or Stripe's payment), and the advertiser's campaigns paused for
-- want of funds resumed. Asked again for a top-up already paid (a retry, a webhook delivered
-- twice), it changes nothing and answers `{ok: true, already: true}`. Called by
-- public.staff_top_up_record and by the Stripe webhook (as the service); nobody else.
create or replace function public.top_up_credit(p_top_up uuid, p_reference text, p_by uuid)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_top_up record;
  v_tx uuid;
begin
  select * into v_top_up from public.top_ups t where t.id = p_top_up for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_top_up.status = 'paid' then
    return json_build_object('ok', true, 'already', true, 'transaction_id', v_top_up.transaction_id);
  end if;
  if v_top_up.status <> 'requested' then
    return json_build_object('ok', false, 'error', 'not_open', 'status', v_top_up.status);
  end if;
  v_tx := public.ledger_post('top_up', v_top_up.id::text, now(), null,
    jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('payments_in', null), 'amount_micro', -v_top_up.amount_micro),
                      jsonb_build_object('account_id', public.ledger_account(v_top_up.account_kind, v_top_up.user_id), 'amount_micro', v_top_up.amount_micro)));
  update public.top_ups t set status = 'paid', paid_at = now(), payment_reference = p_reference, recorded_by = p_by, transaction_id = v_tx
  where t.id = v_top_up.id;
  update public.campaigns c set status = case when c.starts_at <= now() then 'active' else 'scheduled' end, pause_reason = null, updated_at = now()
  where v_top_up.account_kind = 'advertiser' and c.advertiser_id = v_top_up.user_id and c.status = 'paused' and c.pause_reason = 'out_of_funds'
    and public.ledger_balance_micro('advertiser', v_top_up.user_id) > 0;
  return json_build_object('ok', true, 'already', false, 'transaction_id', v_tx);
end $$;

revoke all on function public.top_up_credit(uuid, text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.top_up_credit(uuid, text, uuid) to service_role;

-- What waits for the operator on the advertisers' side (migration 20261207000000_advertisers),
-- for /ops: the manual top-ups asked for and not paid yet (to match against the payments that
-- arrive; data buyers' too, with the account they fund: migration 20261209000000_data_buyers), the campaigns sent for review with all their creatives, and the creatives waiting for
-- review in campaigns already approved (new or edited), oldest first; and each advertiser's
-- balance. Creative text goes out as data, and the console renders it as text. Refused to anyone
-- but staff (public.is_staff). Amounts in micro-dollars.
create or replace function public.staff_advertising_queue(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'top_ups', (select coalesce(json_agg(r order by r.requested_at), '[]')
                from (select t.id, t.invoice_number, t.amount_micro, t.rail, t.requested_at, u.email, t.account_kind,
                             case when t.account_kind = 'buyer' then b.company else p.company end as company
                      from public.top_ups t join public.users u on u.id = t.user_id
                      left join public.advertiser_profiles p on p.user_id = t.user_id
                      left join public.buyer_profiles b on b.user_id = t.user_id
                      where t.status = 'requested' and t.rail = 'manual'
                      order by t.requested_at limit p_limit) r),
    'campaigns', (select coalesce(json_agg(r order by r.submitted_at), '[]')
                  from (select c.id, c.name, c.advertiser, u.email, c.status, c.submitted_at, c.starts_at, c.ends_at, c.hard_stop,
                               c.lifetime_budget_usd, c.daily_cap_usd, c.formats, c.keywords, c.include_categories, c.exclude_categories,
                               (select coalesce(json_agg(x order by x.created_at), '[]')
                                from (select cr.id, cr.format, cr.status, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url,
                                             cr.landing_url, cr.width, cr.height, cr.duration_ms, cr.created_at
                                      from public.creatives cr where cr.campaign_id = c.id) x) as creatives
                        from public.campaigns c join public.users u on u.id = c.advertiser_id
                        where c.status = 'in_review'
                        order by c.submitted_at nulls last limit p_limit) r),
    'creatives', (select coalesce(json_agg(r order by r.updated_at), '[]')
                  from (select cr.id, cr.campaign_id, c.name as campaign, c.advertiser, cr.format, cr.headline, cr.body, cr.cta,
                               cr.image_url, cr.video_url, cr.landing_url, cr.width, cr.height, cr.duration_ms, cr.updated_at
                        from public.creatives cr join public.campaigns c on c.id = cr.campaign_id
                        where cr.status = 'in_review' and c.status not in ('draft', 'in_review', 'rejected', 'completed')
                        order by cr.updated_at limit p_limit) r),
    'advertisers', (select coalesce(json_agg(r order by r.company), '[]')
                    from (select p.user_id, p.company, u.email, public.ledger_balance_micro('advertiser', p.user_id) as balance_micro,
                                 (select count(*) from public.campaigns c where c.advertiser_id = p.user_id and c.status = 'active') as active_campaigns
                          from public.advertiser_profiles p join public.users u on u.id = p.user_id
                          order by p.company limit p_limit) r));
end $$;

revoke all on function public.staff_advertising_queue(integer) from public, anon, sdk;
grant execute on function public.staff_advertising_queue(integer) to authenticated;
