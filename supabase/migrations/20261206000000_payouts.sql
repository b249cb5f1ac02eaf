-- Payouts: the month close, payout methods, payout requests, staff and their audit log.
--
-- * The ledger (migration 20261204000000_ledger) gets a second account per publisher:
--   `publisher` holds what they earned and is not final yet, `publisher_available` what is final
--   and not paid out. The month close (public.ledger_close_months, run by the roll-up) moves a
--   month's earnings from the first to the second on the 5th of the next month
--   (public.ledger_month_final_at), one `month_close` transaction per publisher and month, and
--   records the month in `ledger_month_closes`.
-- * `payout_methods`: where a publisher's money goes, one per publisher: the `manual` rail (the
--   operator sends it to details the publisher gave, stored encrypted by the server and shown
--   masked) or Stripe Connect (an Express account, ready when Stripe says it can receive payouts).
-- * `payouts` become requests on the ledger: a request (public.request_payout) takes the whole
--   available balance in whole cents in a `payout` transaction, a failed or canceled payout gives
--   it back in a `payout_reversal` (public.payout_transition). The period names the months it
--   covers, so one month may be in a failed payout and in the one that follows it. The demo payouts this table held had no money behind them (nothing
--   could request a payout before): they are removed, and the demo seed makes its history by these
--   rules.
-- * Staff (the operator): `staff_members`, granted only in the database, with the TOTP secret of
--   their second factor (encrypted by the server). Staff act only through functions that check
--   public.is_staff (a member, signed in with the second factor) and write `staff_audit_log`,
--   which is append-only.

-- ── The ledger's new kinds ──────────────────────────────────────────────────────────────────
alter table public.ledger_accounts drop constraint ledger_accounts_kind_check;
alter table public.ledger_accounts add constraint ledger_accounts_kind_check
  check (kind in ('publisher', 'publisher_available', 'advertiser', 'buyer', 'ad_sales', 'platform_fees', 'payouts'));
alter table public.ledger_accounts drop constraint ledger_accounts_users_or_platform;
alter table public.ledger_accounts add constraint ledger_accounts_users_or_platform
  check ((kind in ('publisher', 'publisher_available', 'advertiser', 'buyer')) = (user_id is not null));
alter table public.ledger_transactions drop constraint ledger_transactions_kind_check;
alter table public.ledger_transactions add constraint ledger_transactions_kind_check
  check (kind in ('ad_revenue', 'platform_fee', 'adjustment', 'month_close', 'payout', 'payout_reversal', 'top_up', 'data_sale'));

-- ── Month closes ────────────────────────────────────────────────────────────────────────────
create table public.ledger_month_closes (
  month         date primary key check (month = date_trunc('month', month)::date),
  closed_at     timestamptz not null,
  closed_by     uuid references public.users (id) on delete set null,
  publishers    integer not null check (publishers >= 0),
  amount_micro  bigint not null check (amount_micro >= 0)
);
revoke all on public.ledger_month_closes from public, anon, authenticated, sdk, service_role;
grant select on public.ledger_month_closes to authenticated, service_role;
alter table public.ledger_month_closes enable row level security;
alter table public.ledger_month_closes force row level security;
-- Which months are final is the same for everyone (the console says "October is final").
create policy "Everyone signed in reads which months are closed"
  on public.ledger_month_closes for select to authenticated using (true);

-- ── Payout methods ──────────────────────────────────────────────────────────────────────────
create table public.payout_methods (
  user_id             uuid primary key references public.users (id) on delete cascade,
  rail                text not null check (rail in ('manual', 'stripe')),
  -- The manual rail's details (account holder, bank account), AES-256-GCM by the server
  -- (lib/payouts/details.ts); never readable by the publisher's role.
  details_ciphertext  text check (length(details_ciphertext) <= 4000),
  masked              text not null check (length(masked) between 1 and 120),
  stripe_account_id   text unique check (stripe_account_id ~ '^acct_[A-Za-z0-9]{1,64}$'),
  ready               boolean not null default false,
  status_note         text check (length(status_note) <= 500),
  updated_at          timestamptz not null default now(),
  constraint payout_methods_details_of_their_rail check (
    (rail = 'manual' and details_ciphertext is not null and stripe_account_id is null)
    or (rail = 'stripe' and details_ciphertext is null and stripe_account_id is not null))
);
revoke all on public.payout_methods from public, anon, authenticated, sdk, service_role;
grant select (user_id, rail, masked, ready, status_note, updated_at) on public.payout_methods to authenticated;
grant select, insert, update on public.payout_methods to service_role;
alter table public.payout_methods enable row level security;
alter table public.payout_methods force row level security;
create policy "Publishers read their own payout method"
  on public.payout_methods for select to authenticated using (user_id = (select auth.uid()));
create policy "The service reads and keeps payout methods"
  on public.payout_methods for all to service_role using (true) with check (true);

-- ── Payouts on the ledger ───────────────────────────────────────────────────────────────────
delete from public.payouts o
where not exists (select 1 from public.ledger_transactions t where t.kind = 'payout' and t.reference = o.id::text);
alter table public.payouts drop constraint payouts_one_per_period;
alter table public.payouts drop constraint payouts_period_check;
alter table public.payouts add constraint payouts_period_check
  check (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])(/[0-9]{4}-(0[1-9]|1[0-2]))?$');
alter table public.payouts drop constraint payouts_status_check;
alter table public.payouts add constraint payouts_status_check check (status in ('pending', 'processing', 'paid', 'failed', 'canceled'));
alter table public.payouts drop constraint payouts_amount_usd_check;
alter table public.payouts add constraint payouts_amount_usd_check check (amount_usd > 0);
alter table public.payouts
  add column rail               text not null default 'manual' check (rail in ('manual', 'stripe')),
  add column destination        text check (length(destination) <= 120),
  add column reference          text check (length(reference) <= 200),
  add column failure_reason     text check (length(failure_reason) <= 500),
  add column status_changed_at  timestamptz not null default now(),
  add column status_changed_by  uuid references public.users (id) on delete set null,
  add constraint payouts_failed_with_a_reason check ((status = 'failed') = (failure_reason is not null)),
  add constraint payouts_paid_with_a_reference check (status <> 'paid' or reference is not null);
alter table public.payouts alter column rail drop default;

-- ── Webhooks ────────────────────────────────────────────────────────────────────────────────
-- Each event a rail's webhook delivered (Stripe's, lib/payouts/stripe.ts), once: a delivery
-- whose event is here already changes nothing (Stripe delivers at least once).
create table public.webhook_events (
  provider     text not null check (provider in ('stripe')),
  event_id     text not null check (length(event_id) between 1 and 255),
  type         text not null check (length(type) between 1 and 255),
  received_at  timestamptz not null default now(),
  primary key (provider, event_id)
);
revoke all on public.webhook_events from public, anon, authenticated, sdk, service_role;
grant select, insert on public.webhook_events to service_role;
alter table public.webhook_events enable row level security;
alter table public.webhook_events force row level security;
create policy "The service keeps the webhook events it handled"
  on public.webhook_events for all to service_role using (true) with check (true);

-- ── Staff ───────────────────────────────────────────────────────────────────────────────────
create table public.staff_members (
  user_id                 uuid primary key references public.users (id) on delete cascade,
  -- The TOTP secret (RFC 6238) of the second factor, AES-256-GCM by the server.
  totp_secret_ciphertext  text not null check (length(totp_secret_ciphertext) <= 400),
  -- The 30-second step of the last code accepted: a code is accepted once (RFC 6238 §5.2).
  last_totp_step          bigint not null default 0,
  added_at                timestamptz not null default now()
);
revoke all on public.staff_members from public, anon, authenticated, sdk, service_role;
-- The service role reads it to sign staff in; it inserts only when the demo seed makes the demo
-- operator (no route adds staff: a person becomes staff by a row added in the database).
grant select, insert on public.staff_members to service_role;
alter table public.staff_members enable row level security;
alter table public.staff_members force row level security;
create policy "The service reads who is staff to sign them in"
  on public.staff_members for select to service_role using (true);
create policy "The demo seed makes the demo operator"
  on public.staff_members for insert to service_role with check (true);

create table public.staff_audit_log (
  id             bigint generated always as identity primary key,
  at             timestamptz not null default now(),
  staff_user_id  uuid not null references public.users (id) on delete restrict,
  action         text not null check (length(action) between 1 and 100),
  subject        text check (length(subject) <= 200),
  reason         text check (length(reason) <= 1000),
  details        jsonb not null default '{}'
);
-- Written only by the staff functions (security definer); staff read it through
-- public.staff_overview; the service may read it (a check, a report), never write it.
revoke all on public.staff_audit_log from public, anon, authenticated, sdk, service_role;
grant select on public.staff_audit_log to service_role;
alter table public.staff_audit_log enable row level security;
alter table public.staff_audit_log force row level security;
create policy "The service reads the staff audit log"
  on public.staff_audit_log for select to service_role using (true);

-- A ledger transaction balances (migration 20261204000000_ledger): at the commit of the database
-- transaction that wrote it (a deferred constraint trigger on `ledger_postings` and on
-- `ledger_transactions`), its postings sum to zero and there are at least two of them. Security
-- definer (migration 20261206000000_payouts): a deferred trigger runs as whoever commits, and a
-- publisher requesting a payout commits a transaction whose other posting is on a platform
-- account their row-level security hides; the check must see every posting.
create or replace function public.ledger_check_balanced()
returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  -- The column that names the transaction: the trigger's argument (`transaction_id` or `id`).
  v_transaction uuid := (to_jsonb(new) ->> tg_argv[0])::uuid;
  v_sum numeric;
  v_count integer;
begin
  select coalesce(sum(p.amount_micro), 0), count(*) into v_sum, v_count
  from public.ledger_postings p where p.transaction_id = v_transaction;
  if v_sum <> 0 or v_count < 2 then
    raise exception 'ledger transaction % does not balance: % postings summing to % micro-dollars', v_transaction, v_count, v_sum
      using errcode = 'check_violation';
  end if;
  return null;
end $$;

revoke all on function public.ledger_check_balanced() from public, anon, authenticated;

-- When the earnings of the calendar month starting `p_month` become final (migration
-- 20261206000000_payouts): the 5th of the next month at 00:00 UTC, four days after the month ends,
-- so the month's last days are in the ledger and its invalid-traffic adjustments are posted before
-- its earnings are moved to the publishers' available balances (public.ledger_close_months).
-- content/docs/payouts.md publishes the day.
create or replace function public.ledger_month_final_at(p_month date)
returns timestamptz
language sql immutable
as $$
  select (date_trunc('month', p_month) + interval '1 month' + interval '4 days')::timestamp at time zone 'UTC'
$$;

revoke all on function public.ledger_month_final_at(date) from public, anon, sdk;
grant execute on function public.ledger_month_final_at(date) to authenticated, service_role;

-- An append-only table (the staff audit log, migration 20261206000000_payouts): a trigger that
-- refuses every update, delete and truncate, whoever asks, the table's owner too.
create or replace function public.append_only_refuse_change()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception '% is append-only: % refused', tg_table_name, tg_op using errcode = 'insufficient_privilege';
end $$;

revoke all on function public.append_only_refuse_change() from public, anon, authenticated;

-- The month close (migration 20261206000000_payouts): every calendar month whose final day has
-- come (public.ledger_month_final_at: the 5th of the next month) and that is not closed yet is
-- closed, oldest first. Closing a month moves, for each publisher, what the publisher's `publisher`
-- account (earned, not final) holds from before the month's end, into their `publisher_available`
-- account (final, payable): one `month_close` transaction per publisher and month (reference
-- `<user>:<YYYY-MM>`, dated the first instant of the next month), and one row in
-- `ledger_month_closes`. What it moves nets everything dated before the month's end and not moved
-- yet: the month's ad revenue and adjustments, and an adjustment posted late for a month already
-- closed; a balance that nets to zero or less waits for the next month's earnings. A month is
-- closed only once its days are all in the ledger (no count of it waits for the roll-up, no day of
-- it is unposted). Runs twice, or twice at once, changes nothing: one run at a time (an advisory
-- lock), and each month and each transaction is written once. Called by the roll-up
-- (public.roll_up_ad_traffic), so it runs where the roll-up runs (the server's timer, or pg_cron);
-- staff can run it now (public.staff_close_months). `p_now` is the clock (the seed and tests move it).
-- Answers how many months it closed.
create or replace function public.ledger_close_months(p_now timestamptz default now(), p_by uuid default null)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_month date;
  v_next date;
  v_row record;
  v_publishers integer;
  v_amount bigint;
  v_closed integer := 0;
begin
  -- Nothing to do, the common case, read without a lock.
  select coalesce(max(c.month) + interval '1 month',
                  (select min(date_trunc('month', t.occurred_at at time zone 'UTC'))
                   from public.ledger_transactions t where t.kind in ('ad_revenue', 'adjustment', 'data_sale')))::date
  into v_month
  from public.ledger_month_closes c;
  if v_month is null or public.ledger_month_final_at(v_month) > p_now then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('ledger_close_months', 0));
  -- Again, under the lock: another run may have closed it meanwhile.
  select coalesce(max(c.month) + interval '1 month', v_month)::date into v_month from public.ledger_month_closes c;

  while public.ledger_month_final_at(v_month) <= p_now loop
    v_next := (v_month + interval '1 month')::date;
    if exists (select 1 from public.ad_traffic_counts c where c.day < v_next)
       or exists (select 1 from public.daily_stats s join public.placements p on p.id = s.placement_id
                  where s.day >= v_month and s.day < v_next and s.revenue_usd > 0
                    and not exists (select 1 from public.ledger_transactions t
                                    where t.kind = 'ad_revenue' and t.reference = p.app_id || ':' || s.day)) then
      exit;
    end if;
    v_publishers := 0;
    v_amount := 0;
    for v_row in
      select a.user_id, sum(p.amount_micro)::bigint as amount
      from public.ledger_accounts a
      join public.ledger_postings p on p.account_id = a.id
      join public.ledger_transactions t on t.id = p.transaction_id
      where a.kind = 'publisher' and t.occurred_at < v_next::timestamp at time zone 'UTC'
      group by a.user_id
      having sum(p.amount_micro) > 0
      order by a.user_id
    loop
      perform public.ledger_post('month_close', v_row.user_id || ':' || to_char(v_month, 'YYYY-MM'), v_next::timestamp at time zone 'UTC', null,
        jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', v_row.user_id), 'amount_micro', -v_row.amount),
                          jsonb_build_object('account_id', public.ledger_account('publisher_available', v_row.user_id), 'amount_micro', v_row.amount)));
      v_publishers := v_publishers + 1;
      v_amount := v_amount + v_row.amount;
    end loop;
    insert into public.ledger_month_closes (month, closed_at, closed_by, publishers, amount_micro)
    values (v_month, p_now, p_by, v_publishers, v_amount);
    v_closed := v_closed + 1;
    v_month := v_next;
  end loop;
  return v_closed;
end $$;

revoke all on function public.ledger_close_months(timestamptz, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_close_months(timestamptz, uuid) to service_role;

-- Whether the caller is staff (the operator), signed in with a second factor (migration
-- 20261206000000_payouts): a member of `staff_members` (granted only in the database), whose
-- claims say `aal2` (authenticator assurance level 2: the password and a TOTP code, NIST SP
-- 800-63B; the claim Supabase Auth sets after multi-factor sign-in). Every staff function checks it
-- first. Security definer: nobody else reads `staff_members`.
create or replace function public.is_staff()
returns boolean
language sql stable security definer set search_path = ''
as $$
  select coalesce(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'aal' = 'aal2', false)
         and exists (select 1 from public.staff_members s where s.user_id = auth.uid())
$$;

revoke all on function public.is_staff() from public, anon, sdk;
grant execute on function public.is_staff() to authenticated, service_role;

-- A payout request of publisher `p_user` (migration 20261206000000_payouts), at `p_now`: the whole
-- of their available balance (final earnings less payouts, public.ledger_close_months), in whole
-- cents, once it reaches `min_payout_usd` and their payout method is ready. One request of a
-- publisher at a time (an advisory lock), so two at once never pay twice: the second finds the
-- balance the first took. (A payout still being sent does not stop the next month's: each takes
-- what is available when it is requested.) The payout row and its
-- ledger transaction (kind `payout`, reference the payout's id: out of `publisher_available`, into
-- the platform's `payouts` account) are written together, so the balance never goes negative.
-- Answers `{ok: true, payout_id, amount_micro}`, or `{ok: false, reason, available_micro,
-- minimum_micro}` with `reason` one of `no_method`, `method_not_ready`, `below_minimum`. The
-- period is the months the payout covers: the closed months since the last payout that was not
-- failed or canceled (`YYYY-MM`, or `YYYY-MM/YYYY-MM` for several).
-- Internal: the publisher calls public.request_payout; the seed calls this with its own clock.
create or replace function public.payout_request(p_user uuid, p_now timestamptz default now())
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_method public.payout_methods;
  v_available bigint;
  v_minimum bigint;
  v_amount bigint;
  v_reason text;
  v_after date;
  v_first date;
  v_last date;
  v_period text;
  v_id uuid;
begin
  perform pg_advisory_xact_lock(hashtextextended('payout:' || p_user, 0));
  select * into v_method from public.payout_methods m where m.user_id = p_user;
  select coalesce(sum(p.amount_micro), 0)::bigint into v_available
  from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
  where a.kind = 'publisher_available' and a.user_id = p_user;
  select round(s.min_payout_usd * 1000000)::bigint into v_minimum from public.pricing_settings s;
  v_amount := v_available - v_available % 10000;

  v_reason := case
    when v_method.user_id is null then 'no_method'
    when not v_method.ready then 'method_not_ready'
    when v_amount <= 0 or v_amount < v_minimum then 'below_minimum'
  end;
  if v_reason is not null then
    return json_build_object('ok', false, 'reason', v_reason, 'available_micro', v_available, 'minimum_micro', v_minimum);
  end if;

  -- The months it covers: from the first closed month after the last payout that stands.
  select max(to_date(split_part(o.period, '/', -1), 'YYYY-MM')) into v_after
  from public.payouts o where o.user_id = p_user and o.status in ('pending', 'processing', 'paid');
  select min(to_date(split_part(t.reference, ':', 2), 'YYYY-MM')), max(to_date(split_part(t.reference, ':', 2), 'YYYY-MM'))
  into v_first, v_last
  from public.ledger_transactions t
  where t.kind = 'month_close' and t.reference like p_user || ':%'
    and (v_after is null or to_date(split_part(t.reference, ':', 2), 'YYYY-MM') > v_after);
  v_last := coalesce(v_last, (date_trunc('month', p_now at time zone 'UTC') - interval '1 month')::date);
  v_first := coalesce(v_first, v_last);
  v_period := to_char(v_first, 'YYYY-MM') || case when v_first < v_last then '/' || to_char(v_last, 'YYYY-MM') else '' end;

  insert into public.payouts (user_id, period, amount_usd, status, requested_at, rail, destination, status_changed_at)
  values (p_user, v_period, v_amount / 1000000.0, 'pending', p_now, v_method.rail, v_method.masked, p_now)
  returning id into v_id;
  perform public.ledger_post('payout', v_id::text, p_now, null,
    jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher_available', p_user), 'amount_micro', -v_amount),
                      jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', v_amount)));
  return json_build_object('ok', true, 'payout_id', v_id, 'amount_micro', v_amount);
end $$;

revoke all on function public.payout_request(uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_request(uuid, timestamptz) to service_role;

-- A payout's next status (migration 20261206000000_payouts), by `p_by` at `p_now`:
--   pending    → processing (being sent), paid, failed, canceled
--   processing → paid, failed
-- `paid` needs the rail's reference (the bank transfer's, Stripe's transfer id) and sets
-- `paid_at`; `failed` needs a reason, shown to the publisher. A failed or canceled payout's
-- amount returns to the publisher's available balance in a `payout_reversal` transaction
-- (reference the payout's id), in the same database transaction. Asked again for the status the
-- payout already has (a retry), it changes nothing and answers ok. Answers `{ok: true, status}`
-- or `{ok: false, error, status}` with `error` one of `not_found`, `invalid_transition`,
-- `reference_required`, `reason_required`. Internal: publishers call public.cancel_payout, staff
-- public.staff_payout_mark.
create or replace function public.payout_transition(p_payout uuid, p_status text, p_reference text, p_reason text, p_by uuid,
                                                    p_now timestamptz default now())
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v public.payouts;
  v_micro bigint;
begin
  select * into v from public.payouts o where o.id = p_payout for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found', 'status', null);
  end if;
  if v.status = p_status then
    return json_build_object('ok', true, 'status', v.status);
  end if;
  if not ((v.status = 'pending' and p_status in ('processing', 'paid', 'failed', 'canceled'))
          or (v.status = 'processing' and p_status in ('paid', 'failed'))) then
    return json_build_object('ok', false, 'error', 'invalid_transition', 'status', v.status);
  end if;
  if p_status = 'paid' and coalesce(btrim(p_reference), '') = '' then
    return json_build_object('ok', false, 'error', 'reference_required', 'status', v.status);
  end if;
  if p_status = 'failed' and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required', 'status', v.status);
  end if;

  update public.payouts o set
    status = p_status,
    paid_at = case when p_status = 'paid' then p_now end,
    reference = coalesce(nullif(btrim(p_reference), ''), o.reference),
    failure_reason = case when p_status = 'failed' then btrim(p_reason) end,
    status_changed_at = p_now,
    status_changed_by = p_by
  where o.id = p_payout;

  if p_status in ('failed', 'canceled') then
    v_micro := round(v.amount_usd * 1000000)::bigint;
    perform public.ledger_post('payout_reversal', v.id::text, p_now, coalesce(nullif(btrim(p_reason), ''), 'canceled before it was sent'),
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', -v_micro),
                        jsonb_build_object('account_id', public.ledger_account('publisher_available', v.user_id), 'amount_micro', v_micro)));
  end if;
  return json_build_object('ok', true, 'status', p_status);
end $$;

revoke all on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) to service_role;

-- The console's "Request payout" (migration 20261206000000_payouts): the caller's payout request,
-- now (public.payout_request says what it checks and answers).
create or replace function public.request_payout()
returns json
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  return public.payout_request(auth.uid(), now());
end $$;

revoke all on function public.request_payout() from public, anon, sdk;
grant execute on function public.request_payout() to authenticated;

-- A publisher cancels their own payout while it is pending (migration 20261206000000_payouts):
-- its amount returns to their available balance (public.payout_transition). Another's payout is
-- `not_found`, as one that does not exist; one being sent is `invalid_transition`.
create or replace function public.cancel_payout(p_payout uuid)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  if not exists (select 1 from public.payouts o where o.id = p_payout and o.user_id = auth.uid()) then
    return json_build_object('ok', false, 'error', 'not_found', 'status', null);
  end if;
  return public.payout_transition(p_payout, 'canceled', null, null, auth.uid(), now());
end $$;

revoke all on function public.cancel_payout(uuid) from public, anon, sdk;
grant execute on function public.cancel_payout(uuid) to authenticated;

-- Staff move a payout on (migration 20261206000000_payouts): `processing` when they start sending
-- it, `paid` with the rail's reference, `failed` with the reason the publisher will read, or
-- `canceled` before it is sent (public.payout_transition says which moves are allowed and what
-- each writes). Refused to anyone but staff signed in with their second factor (public.is_staff);
-- each change, and each refusal of a move, is written to the audit log with `p_why`.
create or replace function public.staff_payout_mark(p_payout uuid, p_status text, p_reference text, p_reason text, p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_answer json;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  v_answer := public.payout_transition(p_payout, p_status, p_reference, p_reason, auth.uid(), now());
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), 'payout.' || p_status, p_payout::text, nullif(btrim(coalesce(p_why, p_reason, '')), ''),
          jsonb_build_object('reference', p_reference, 'failure_reason', p_reason, 'answer', v_answer::jsonb));
  return v_answer;
end $$;

revoke all on function public.staff_payout_mark(uuid, text, text, text, text) from public, anon, sdk;
grant execute on function public.staff_payout_mark(uuid, text, text, text, text) to authenticated;

-- What staff need to send a payout (migration 20261206000000_payouts): the payout's amount,
-- status and rail, and the publisher's payout method on that rail: the bank details, still
-- encrypted (the server opens them, lib/payouts/staff.ts), or the Stripe account. Refused to anyone but staff (public.is_staff); every look is in the
-- audit log, with why. Answers null for an unknown payout.
create or replace function public.staff_payout_details(p_payout uuid, p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_answer json;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  select json_build_object('payout_id', o.id, 'email', u.email, 'amount_micro', round(o.amount_usd * 1000000)::bigint, 'status', o.status,
                           'rail', o.rail, 'masked', m.masked,
                           -- The method's details when it is still the rail the payout was requested on.
                           'details_ciphertext', case when m.rail = o.rail then m.details_ciphertext end,
                           'stripe_account_id', case when m.rail = o.rail then m.stripe_account_id end)
  into v_answer
  from public.payouts o join public.users u on u.id = o.user_id left join public.payout_methods m on m.user_id = o.user_id
  where o.id = p_payout;
  if v_answer is not null then
    insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
    values (auth.uid(), 'payout.details_viewed', p_payout::text, nullif(btrim(coalesce(p_why, '')), ''), '{}');
  end if;
  return v_answer;
end $$;

revoke all on function public.staff_payout_details(uuid, text) from public, anon, sdk;
grant execute on function public.staff_payout_details(uuid, text) to authenticated;

-- Staff sign-in's second factor (migration 20261206000000_payouts): records that staff member
-- `p_user` used the code of the 30-second step `p_step`, and answers whether that step is later
-- than the last one accepted, so each code signs in once (RFC 6238 §5.2), even if two sign-ins
-- race with it. Executable by the service role, which signs staff in (lib/auth/staff.ts).
create or replace function public.staff_totp_step_used(p_user uuid, p_step bigint)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
begin
  update public.staff_members s set last_totp_step = p_step where s.user_id = p_user and s.last_totp_step < p_step;
  return found;
end $$;

revoke all on function public.staff_totp_step_used(uuid, bigint) from public, anon, authenticated, sdk;
grant execute on function public.staff_totp_step_used(uuid, bigint) to service_role;

-- Staff post an adjustment to a publisher's earnings (migration 20261206000000_payouts): invalid
-- traffic found after the day was posted (negative), or a correction in the publisher's favour
-- (positive), never an edit of what was posted. One `adjustment` transaction between the
-- publisher's `publisher` account (earned, not final) and `ad_sales`, attributed to an app when
-- one is named, dated `p_occurred_at` (the day it corrects: an adjustment dated in a month not
-- yet closed is part of that month's close; dated in a closed month, of the next close), with its
-- reason. `p_reference` names it once (a retry with the same reference writes nothing and answers
-- the first's id). Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_post_adjustment(p_user uuid, p_amount_micro bigint, p_reason text, p_app uuid,
                                                        p_occurred_at timestamptz, p_reference text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  if p_amount_micro is null or p_amount_micro = 0 then
    return json_build_object('ok', false, 'error', 'amount_required');
  end if;
  if not exists (select 1 from public.users u where u.id = p_user) then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if p_app is not null and not exists (select 1 from public.apps a where a.id = p_app and a.user_id = p_user) then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  v_id := public.ledger_post('adjustment', 'staff:' || p_reference, coalesce(p_occurred_at, now()), btrim(p_reason),
    jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', p_user), 'amount_micro', p_amount_micro, 'app_id', p_app),
                      jsonb_build_object('account_id', public.ledger_account('ad_sales', null), 'amount_micro', -p_amount_micro, 'app_id', p_app)));
  if v_id is null then
    select t.id into v_id from public.ledger_transactions t where t.kind = 'adjustment' and t.reference = 'staff:' || p_reference;
  else
    insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
    values (auth.uid(), 'ledger.adjustment', p_user::text, btrim(p_reason),
            jsonb_build_object('transaction_id', v_id, 'amount_micro', p_amount_micro, 'app_id', p_app, 'occurred_at', p_occurred_at));
  end if;
  return json_build_object('ok', true, 'transaction_id', v_id);
end $$;

revoke all on function public.staff_post_adjustment(uuid, bigint, text, uuid, timestamptz, text) from public, anon, sdk;
grant execute on function public.staff_post_adjustment(uuid, bigint, text, uuid, timestamptz, text) to authenticated;

-- Staff close the months that are due now (migration 20261206000000_payouts), without waiting for
-- the roll-up's next run: public.ledger_close_months, which closes nothing before a month's final
-- day and nothing twice. Refused to anyone but staff (public.is_staff); audited with how many
-- months it closed.
create or replace function public.staff_close_months(p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed integer;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  v_closed := public.ledger_close_months(now(), auth.uid());
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), 'ledger.close_months', null, nullif(btrim(coalesce(p_why, '')), ''), jsonb_build_object('closed', v_closed));
  return json_build_object('ok', true, 'closed', v_closed);
end $$;

revoke all on function public.staff_close_months(text) from public, anon, sdk;
grant execute on function public.staff_close_months(text) to authenticated;

-- What the operator console (/ops) shows (migration 20261206000000_payouts): the ledger's
-- balances (each platform account, and each publisher's earned and available balances), the
-- payouts (those to send first, then the latest), the month closes and the latest audit entries.
-- Staff read it through this function, not through policies on the tables: the account reads
-- (public.account_earnings and the others) rely on row-level security alone to keep a caller to
-- their own rows, and a staff policy on those tables would widen them. Refused to anyone but staff
-- (public.is_staff). Amounts in micro-dollars.
create or replace function public.staff_overview(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'platform', (select coalesce(json_agg(r order by r.kind), '[]')
                 from (select a.kind, coalesce(sum(p.amount_micro), 0)::bigint as balance_micro
                       from public.ledger_accounts a left join public.ledger_postings p on p.account_id = a.id
                       where a.user_id is null group by a.kind) r),
    'publishers', (select coalesce(json_agg(r order by r.email), '[]')
                   from (select u.id as user_id, u.email, u.name,
                                coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher'), 0)::bigint as pending_micro,
                                coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher_available'), 0)::bigint as available_micro,
                                m.rail, m.masked as destination, coalesce(m.ready, false) as method_ready
                         from public.users u
                         join public.ledger_accounts a on a.user_id = u.id and a.kind in ('publisher', 'publisher_available')
                         left join public.ledger_postings p on p.account_id = a.id
                         left join public.payout_methods m on m.user_id = u.id
                         group by u.id, u.email, u.name, m.rail, m.masked, m.ready) r),
    'payouts', (select coalesce(json_agg(r order by r.open desc, r.requested_at desc), '[]')
                from (select o.id, o.user_id, u.email, o.period, round(o.amount_usd * 1000000)::bigint as amount_micro, o.status,
                             o.rail, o.destination, o.reference, o.failure_reason, o.requested_at, o.paid_at, o.status_changed_at,
                             o.status in ('pending', 'processing') as open
                      from public.payouts o join public.users u on u.id = o.user_id
                      order by o.status in ('pending', 'processing') desc, o.requested_at desc
                      limit greatest(p_limit, 0)) r),
    'months', (select coalesce(json_agg(r order by r.month desc), '[]')
               from (select c.month, c.closed_at, c.publishers, c.amount_micro, c.closed_by
                     from public.ledger_month_closes c order by c.month desc limit 24) r),
    'audit', (select coalesce(json_agg(r order by r.id desc), '[]')
              from (select l.id, l.at, u.email as staff, l.action, l.subject, l.reason, l.details
                    from public.staff_audit_log l left join public.users u on u.id = l.staff_user_id
                    order by l.id desc limit greatest(p_limit, 0)) r));
end $$;

revoke all on function public.staff_overview(integer) from public, anon, sdk;
grant execute on function public.staff_overview(integer) to authenticated;

-- The caller's payout method becomes the manual rail (migration 20261206000000_payouts): the
-- operator sends the money to the details the publisher gave, which arrive here already
-- encrypted by the server (`p_ciphertext`, lib/payouts/details.ts) with the masked form shown to
-- the publisher and to staff (`p_masked`). Ready at once.
create or replace function public.payout_method_set_manual(p_ciphertext text, p_masked text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  insert into public.payout_methods as m (user_id, rail, details_ciphertext, masked, stripe_account_id, ready, status_note, updated_at)
  values (auth.uid(), 'manual', p_ciphertext, p_masked, null, true, null, now())
  on conflict (user_id) do update set rail = 'manual', details_ciphertext = excluded.details_ciphertext, masked = excluded.masked,
                                      stripe_account_id = null, ready = true, status_note = null, updated_at = now();
  return json_build_object('ok', true);
end $$;

revoke all on function public.payout_method_set_manual(text, text) from public, anon, sdk;
grant execute on function public.payout_method_set_manual(text, text) to authenticated;

-- Payout methods on Stripe Connect (migration 20261206000000_payouts), written by the server as
-- the service role, never by the publisher: when it creates the publisher's Express account
-- (`p_user` given: the method becomes that account, not ready until Stripe says so), and when
-- Stripe's `account.updated` webhook says whether the account can receive payouts (`p_user`
-- null: found by its account id; an unknown account changes nothing). Answers whether a method
-- changed.
create or replace function public.payout_method_set_stripe(p_user uuid, p_account_id text, p_masked text, p_ready boolean, p_note text)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if p_user is not null then
    insert into public.payout_methods as m (user_id, rail, details_ciphertext, masked, stripe_account_id, ready, status_note, updated_at)
    values (p_user, 'stripe', null, p_masked, p_account_id, coalesce(p_ready, false), p_note, now())
    on conflict (user_id) do update set rail = 'stripe', details_ciphertext = null, masked = excluded.masked,
                                        stripe_account_id = excluded.stripe_account_id, ready = excluded.ready,
                                        status_note = excluded.status_note, updated_at = now();
    return true;
  end if;
  update public.payout_methods m set ready = coalesce(p_ready, false), status_note = p_note, updated_at = now()
  where m.stripe_account_id = p_account_id and m.rail = 'stripe';
  return found;
end $$;

revoke all on function public.payout_method_set_stripe(uuid, text, text, boolean, text) from public, anon, authenticated, sdk;
grant execute on function public.payout_method_set_stripe(uuid, text, text, boolean, text) to service_role;

-- GET /api/v1/me/earnings: every placement of the caller's (archived apps' too) with its
-- figures, the payouts (newest first), the payout method, and the money, exactly, in
-- micro-dollars, all from the ledger (migrations 20261204000000_ledger, 20261206000000_payouts)
-- and, for today and the days the ledger has not posted yet, the daily stats:
--   ad_revenue_micro     what the placements earned: ad revenue and adjustments, and the unposted days;
--   data_revenue_micro   what data sales earned;
--   pending_micro        earned, not final yet: the `publisher` account, and the unposted days;
--   available_micro      final, not paid out: the `publisher_available` account.
-- Runs as its caller, like every account read: row-level security keeps each to the caller's
-- own rows.
create or replace function public.account_earnings() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (
    with postings as (
      select a.kind as account, t.kind, sum(p.amount_micro)::bigint as micro
      from public.ledger_postings p
      join public.ledger_accounts a on a.id = p.account_id
      join public.ledger_transactions t on t.id = p.transaction_id
      where a.kind in ('publisher', 'publisher_available')
      group by a.kind, t.kind
    ), unposted as (
      select coalesce(sum(round(s.revenue_usd * 1000000)), 0)::bigint as micro
      from public.daily_stats s join public.placements pl on pl.id = s.placement_id
      -- One hashed list of the posted days (a lookup per day, under the ledger's row-level
      -- security, took 35 ms for the demo publisher's 686 days; this, 2 ms).
      where (pl.app_id || ':' || s.day) not in (select t.reference from public.ledger_transactions t where t.kind = 'ad_revenue')
    )
    select json_build_object(
      'id', u.id,
      'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, fills, invalid_events, created_at
                           from public.placements) r),
      'payouts', (select coalesce(json_agg(r order by r.requested_at desc, r.id), '[]')
                  from (select id, period, amount_usd, status, paid_at, requested_at, failure_reason, rail, destination
                        from public.payouts) r),
      'method', (select row_to_json(r) from (select rail, masked, ready, status_note, updated_at from public.payout_methods) r),
      'ad_revenue_micro', coalesce((select sum(micro) from postings where account = 'publisher' and kind in ('ad_revenue', 'adjustment')), 0)
                          + (select micro from unposted),
      'data_revenue_micro', coalesce((select sum(micro) from postings where account = 'publisher' and kind = 'data_sale'), 0),
      'pending_micro', coalesce((select sum(micro) from postings where account = 'publisher'), 0) + (select micro from unposted),
      'available_micro', coalesce((select sum(micro) from postings where account = 'publisher_available'), 0))
    from public.users u);
end $$;

revoke execute on function public.account_earnings() from public, anon;
grant execute on function public.account_earnings() to authenticated;

-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats (with what the ads cost), the campaigns' daily spend and the
-- keys' last use, in one transaction: every count is added exactly once. Then the days that are
-- over go into the ledger, in the same transaction (public.ledger_post_ad_revenue), and the months
-- whose earnings are final are closed (public.ledger_close_months). Rows of transactions still open are invisible
-- here and wait for the next run; `skip locked` lets two runs share the work without waiting.
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
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, invalid_events, revenue_usd, cost_usd)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.invalid, b.revenue, b.cost
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      invalid_events = s.invalid_events + excluded.invalid_events,
      revenue_usd = s.revenue_usd + excluded.revenue_usd,
      cost_usd    = s.cost_usd + excluded.cost_usd
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

  -- The days that are over, into the ledger (after this run's counts, which it waits for), and
  -- the months whose final day has come, closed (public.ledger_close_months: nothing to do, the
  -- common case, is one read).
  perform public.ledger_post_ad_revenue();
  perform public.ledger_close_months();
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;

create trigger staff_audit_log_append_only before update or delete on public.staff_audit_log
  for each row execute function public.append_only_refuse_change();
create trigger staff_audit_log_no_truncate before truncate on public.staff_audit_log
  for each statement execute function public.append_only_refuse_change();

-- The months already due are closed by the roll-up's next run (public.ledger_close_months).
