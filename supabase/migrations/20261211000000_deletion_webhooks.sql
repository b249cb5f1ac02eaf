-- Deletion notices delivered by signed webhook (issue 31): each data buyer may give one https
-- URL, and every deletion notice written for them from then on is also POSTed to it, signed
-- per the Standard Webhooks scheme (content/docs/data-buyers.md, Deletion notices by webhook).
-- The console stays the record: a notice is acknowledged there, delivered or not.
--
-- * `data_buyer_webhooks`: the buyer's URL and signing secret. The secret must be read back to
--   sign, so it is sealed by the server (AES-256-GCM under the data encryption key,
--   lib/platform/crypto.ts, as payout details are) and never readable by the buyer's role; the
--   buyer sees it once, when it is made or rotated, and a masked hint afterwards.
-- * `data_deletion_deliveries`: an outbox, one delivery per notice and webhook, written by a
--   trigger on `data_deletion_notices` in the transaction that writes the notice (the
--   withdrawal's), so no notice is lost between the two and none is sent that was rolled back.
--   The delivery worker (lib/data-buyers/webhooks.ts, on the export job's timer) claims due
--   deliveries with a lease (`for update skip locked`, `leased_until`), so two workers never
--   send one at once and a worker that dies lets another take over when the lease ends; each
--   claim counts an attempt, and failures are retried with growing delays until the attempts
--   run out (`failed`).
-- * Buyers write their webhook only through the security-definer functions below; they read
--   their own webhook (not its sealed secret) and their own deliveries under row-level
--   security. Only the service reads sealed secrets and updates deliveries.

-- ── Webhooks ────────────────────────────────────────────────────────────────────────────────
create table public.data_buyer_webhooks (
  id                 uuid primary key default gen_random_uuid(),
  buyer_id           uuid not null unique references public.users (id) on delete cascade,
  -- https only, no spaces, bounded; the server checks the rest (a public host) when it is set,
  -- and the worker checks the address it connects to on every attempt.
  url                text not null check (length(url) <= 500 and url ~ '^https://[^[:space:]]+$'),
  -- The signing secret (`whsec_…`), sealed by the server; never readable by the buyer's role.
  secret_ciphertext  text not null check (length(secret_ciphertext) between 1 and 500),
  -- What the console shows of it afterwards: `whsec_…` and its last four characters.
  secret_hint        text not null check (length(secret_hint) between 1 and 40),
  created_at         timestamptz not null default now(),
  updated_at         timestamptz not null default now(),
  secret_rotated_at  timestamptz not null default now()
);
alter table public.data_buyer_webhooks enable row level security;
alter table public.data_buyer_webhooks force row level security;
revoke all on public.data_buyer_webhooks from public, anon, authenticated, sdk, service_role;
grant select (id, buyer_id, url, secret_hint, created_at, updated_at, secret_rotated_at) on public.data_buyer_webhooks to authenticated;
grant select on public.data_buyer_webhooks to service_role;
create policy "Buyers read their own webhook"
  on public.data_buyer_webhooks for select to authenticated using (buyer_id = auth.uid());
create policy "The service reads every webhook"
  on public.data_buyer_webhooks for select to service_role using (true);

-- ── Deliveries ──────────────────────────────────────────────────────────────────────────────
create table public.data_deletion_deliveries (
  id               uuid primary key default gen_random_uuid(),
  notice_id        uuid not null references public.data_deletion_notices (id) on delete restrict,
  -- The notice's buyer, for row-level security without a join.
  buyer_id         uuid not null references public.users (id) on delete restrict,
  -- Null once the webhook is removed; its pending deliveries were failed first.
  webhook_id       uuid references public.data_buyer_webhooks (id) on delete set null,
  status           text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  -- Attempts started: a claim counts one, so a worker that died mid-attempt used it up.
  attempts         integer not null default 0 check (attempts between 0 and 100),
  next_attempt_at  timestamptz not null default now(),
  -- Whose the delivery is while a worker sends it: no other worker claims it before then.
  leased_until     timestamptz,
  last_attempt_at  timestamptz,
  -- The HTTP status of the last answer (none: no answer), and what went wrong, in words that
  -- name no secret and quote nothing of the answer's body.
  last_status      integer check (last_status between 100 and 599),
  last_error       text check (length(last_error) between 1 and 500),
  created_at       timestamptz not null default now(),
  delivered_at     timestamptz,
  constraint data_deletion_deliveries_once unique (notice_id, webhook_id),
  constraint data_deletion_deliveries_pending_has_webhook check (status <> 'pending' or webhook_id is not null),
  constraint data_deletion_deliveries_delivered_says_when check ((status = 'delivered') = (delivered_at is not null))
);
create index data_deletion_deliveries_due on public.data_deletion_deliveries (next_attempt_at) where status = 'pending';
create index data_deletion_deliveries_buyer on public.data_deletion_deliveries (buyer_id, created_at desc);
create index data_deletion_deliveries_webhook on public.data_deletion_deliveries (webhook_id) where status = 'pending';
alter table public.data_deletion_deliveries enable row level security;
alter table public.data_deletion_deliveries force row level security;
revoke all on public.data_deletion_deliveries from public, anon, authenticated, sdk, service_role;
grant select on public.data_deletion_deliveries to authenticated;
grant select, update on public.data_deletion_deliveries to service_role;
create policy "Buyers read the deliveries of their own notices"
  on public.data_deletion_deliveries for select to authenticated using (buyer_id = auth.uid());
create policy "The service delivers deletion notices"
  on public.data_deletion_deliveries for all to service_role using (true) with check (true);

-- ── Queued with the notice ──────────────────────────────────────────────────────────────────
-- Queues a deletion notice for the buyer's webhook (migration 20261211000000_deletion_webhooks):
-- statement-level, after notices are written (public.data_records_erase, in the withdrawal's
-- transaction), one delivery per new notice whose buyer has a webhook, pending at once. So a
-- notice and its delivery commit together or not at all, and the delivery worker
-- (lib/data-buyers/webhooks.ts) never misses one nor sends one for a notice rolled back. A
-- webhook being removed at that moment (its row locked by public.data_buyer_webhook_remove) is
-- skipped rather than waited for: the withdrawal never fails or stalls because of a buyer's
-- webhook, and the notice stays in the console, which is the record.
create or replace function public.data_deletion_notices_to_webhooks()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  insert into public.data_deletion_deliveries (notice_id, buyer_id, webhook_id)
  select a.id, a.buyer_id, w.id
  from added a join public.data_buyer_webhooks w on w.buyer_id = a.buyer_id
  for key share of w skip locked;
  return null;
end $$;

revoke all on function public.data_deletion_notices_to_webhooks() from public, anon, authenticated, sdk, service_role;

create trigger data_deletion_notices_queued_for_webhooks after insert on public.data_deletion_notices
  referencing new table as added for each statement execute function public.data_deletion_notices_to_webhooks();

-- ── The buyer's webhook, set, rotated and removed in the console ─────────────────────────────
-- A data buyer sets the webhook their deletion notices are sent to, or replaces its URL
-- (migration 20261211000000_deletion_webhooks). The URL arrives checked by the server (https, a
-- public host, lib/data-buyers/webhook-settings.ts) and the table checks it again. The signing
-- secret arrives sealed by the server with the data encryption key (`p_secret_ciphertext`),
-- with its masked form (`p_secret_hint`); the buyer's role can never read the sealed value back.
-- A new webhook stores the secret given; an existing one keeps its own (only rotating changes
-- it), so replacing the URL does not break the buyer's signature checks, and `secret_stored`
-- says whether the secret given is the one now in force (the console shows it only then).
-- Without a secret (null), only an existing webhook's URL is replaced. Pending deliveries go to
-- the new URL on their next attempt. Answers `{ok, id, secret_stored}`, or `{ok: false, error}`:
-- `not_a_buyer`, `no_webhook` (no secret given and none set).
create or replace function public.data_buyer_webhook_set(p_url text, p_secret_ciphertext text, p_secret_hint text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
  v_stored boolean := false;
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  if not exists (select 1 from public.buyer_profiles b where b.user_id = auth.uid()) then
    return json_build_object('ok', false, 'error', 'not_a_buyer');
  end if;
  if p_secret_ciphertext is not null and p_secret_hint is not null then
    insert into public.data_buyer_webhooks as w (buyer_id, url, secret_ciphertext, secret_hint)
    values (auth.uid(), p_url, p_secret_ciphertext, p_secret_hint)
    on conflict (buyer_id) do update set url = excluded.url, updated_at = now()
    returning w.id, w.secret_ciphertext = p_secret_ciphertext into v_id, v_stored;
  else
    update public.data_buyer_webhooks w set url = p_url, updated_at = now()
    where w.buyer_id = auth.uid()
    returning w.id into v_id;
    if v_id is null then
      return json_build_object('ok', false, 'error', 'no_webhook');
    end if;
  end if;
  return json_build_object('ok', true, 'id', v_id, 'secret_stored', v_stored);
end $$;

revoke all on function public.data_buyer_webhook_set(text, text, text) from public, anon, sdk, service_role;
grant execute on function public.data_buyer_webhook_set(text, text, text) to authenticated;

-- A data buyer replaces their webhook's signing secret (migration 20261211000000_deletion_webhooks):
-- sealed by the server as for public.data_buyer_webhook_set. The old secret stops at once:
-- every later attempt, pending retries included, is signed with the new one. Answers
-- `{ok, id}` or `{ok: false, error: 'not_found'}` (no webhook set).
create or replace function public.data_buyer_webhook_rotate(p_secret_ciphertext text, p_secret_hint text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  update public.data_buyer_webhooks w
  set secret_ciphertext = p_secret_ciphertext, secret_hint = p_secret_hint, secret_rotated_at = now(), updated_at = now()
  where w.buyer_id = auth.uid()
  returning w.id into v_id;
  if v_id is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  return json_build_object('ok', true, 'id', v_id);
end $$;

revoke all on function public.data_buyer_webhook_rotate(text, text) from public, anon, sdk, service_role;
grant execute on function public.data_buyer_webhook_rotate(text, text) to authenticated;

-- A data buyer removes their webhook (migration 20261211000000_deletion_webhooks): its sealed
-- secret is deleted with it, and the notices still waiting to be delivered to it end `failed`,
-- saying why (the console remains their record). The webhook's row is locked first, so a
-- withdrawal writing a notice at this moment either queued its delivery before (and it is
-- failed here) or skips this webhook (public.data_deletion_notices_to_webhooks). Answers
-- `{ok, failed}` (how many pending deliveries ended) or `{ok: false, error: 'not_found'}`.
create or replace function public.data_buyer_webhook_remove()
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
  v_failed integer;
begin
  select w.id into v_id from public.data_buyer_webhooks w where w.buyer_id = auth.uid() for update;
  if v_id is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  update public.data_deletion_deliveries d
  set status = 'failed', leased_until = null, last_error = 'The webhook was removed before this notice was delivered.'
  where d.webhook_id = v_id and d.status = 'pending';
  get diagnostics v_failed = row_count;
  delete from public.data_buyer_webhooks w where w.id = v_id;
  return json_build_object('ok', true, 'failed', v_failed);
end $$;

revoke all on function public.data_buyer_webhook_remove() from public, anon, sdk, service_role;
grant execute on function public.data_buyer_webhook_remove() to authenticated;
