-- The ledger: every money movement, once, in integer micro-dollars.
--
-- * `ledger_accounts`: whose money. A publisher's (and, as they arrive, an advertiser's and a
--   data buyer's) account per user and kind, and the platform's: `ad_sales` (what advertisers
--   paid for ads, until advertisers have accounts of their own), `platform_fees` (the platform's
--   share) and `payouts` (money sent out to publishers).
-- * `ledger_transactions`: one money movement, of a kind (ad revenue, platform fee, adjustment,
--   payout, payout reversal; top-ups and data sales to come), caused by a reference (`<app>:<day>`,
--   a payout's id), written once per kind and reference, with when it happened and, for an
--   adjustment, why.
-- * `ledger_postings`: a transaction's amounts per account, signed, summing to zero (checked at
--   the commit by a deferred constraint trigger), attributed to an app where they come from one.
-- Nothing is ever updated or deleted: the privileges are revoked from every role and a trigger
-- refuses the owner too; a correction is a new transaction. The ledger is written only through
-- security-definer functions (public.ledger_post and its callers), and a user reads, under
-- row-level security, the accounts, transactions and postings that are theirs.
-- Ad revenue is posted per app and day from the placements' daily stats, once the day is over
-- (public.ledger_post_ad_revenue, called by the roll-up), so the daily stats now keep what the
-- ads cost too (`cost_usd`); older rows get it from what they earned and the publisher's share.

-- ── What the ads cost, per placement and day ───────────────────────────────────────────────
alter table public.daily_stats add column cost_usd numeric(14, 6) not null default 0 check (cost_usd >= 0);
update public.daily_stats s set cost_usd = round(s.revenue_usd / p.publisher_ad_revenue_share, 6)
from public.pricing_settings p
where s.revenue_usd > 0 and p.publisher_ad_revenue_share > 0;
create index daily_stats_day on public.daily_stats (day);

-- ── The ledger ──────────────────────────────────────────────────────────────────────────────
create table public.ledger_accounts (
  id          uuid primary key default gen_random_uuid(),
  kind        text not null check (kind in ('publisher', 'advertiser', 'buyer', 'ad_sales', 'platform_fees', 'payouts')),
  user_id     uuid references public.users (id) on delete restrict,
  created_at  timestamptz not null default now(),
  constraint ledger_accounts_users_or_platform check ((kind in ('publisher', 'advertiser', 'buyer')) = (user_id is not null))
);
create unique index ledger_accounts_one_per_user_and_kind on public.ledger_accounts (user_id, kind) where user_id is not null;
create unique index ledger_accounts_one_platform_account_per_kind on public.ledger_accounts (kind) where user_id is null;
insert into public.ledger_accounts (kind) values ('ad_sales'), ('platform_fees'), ('payouts');

create table public.ledger_transactions (
  id           uuid primary key default gen_random_uuid(),
  kind         text not null check (kind in ('ad_revenue', 'platform_fee', 'adjustment', 'payout', 'payout_reversal', 'top_up', 'data_sale')),
  reference    text not null check (length(reference) between 1 and 200),
  occurred_at  timestamptz not null,
  memo         text check (length(memo) between 1 and 500),
  created_by   uuid references public.users (id) on delete restrict,
  created_at   timestamptz not null default now(),
  constraint ledger_transactions_once_per_kind_and_reference unique (kind, reference)
);
create index ledger_transactions_kind_occurred_at on public.ledger_transactions (kind, occurred_at);

create table public.ledger_postings (
  id              bigint generated always as identity primary key,
  transaction_id  uuid not null references public.ledger_transactions (id) on delete restrict,
  account_id      uuid not null references public.ledger_accounts (id) on delete restrict,
  amount_micro    bigint not null check (amount_micro <> 0),
  app_id          uuid,
  created_at      timestamptz not null default now()
);
create index ledger_postings_transaction on public.ledger_postings (transaction_id);
create index ledger_postings_account on public.ledger_postings (account_id, transaction_id);

-- Written only by the ledger's functions (security definer, owned by the migrations' owner).
revoke all on public.ledger_accounts, public.ledger_transactions, public.ledger_postings from public, anon, authenticated, sdk, service_role;
grant select on public.ledger_accounts, public.ledger_transactions, public.ledger_postings to authenticated, service_role;

alter table public.ledger_accounts enable row level security;
alter table public.ledger_transactions enable row level security;
alter table public.ledger_postings enable row level security;
alter table public.ledger_accounts force row level security;
alter table public.ledger_transactions force row level security;
alter table public.ledger_postings force row level security;
create policy "Users read their own ledger accounts"
  on public.ledger_accounts for select to authenticated using (user_id = auth.uid());
create policy "Users read the postings of their own ledger accounts"
  on public.ledger_postings for select to authenticated
  using (account_id in (select a.id from public.ledger_accounts a where a.user_id = auth.uid()));
create policy "Users read the ledger transactions that moved their money"
  on public.ledger_transactions for select to authenticated
  using (exists (select 1 from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                 where p.transaction_id = ledger_transactions.id and a.user_id = auth.uid()));

-- ── Append-only and balanced ────────────────────────────────────────────────────────────────

-- The ledger is append-only (migration 20261204000000_ledger): a trigger on its tables that
-- refuses every update, delete and truncate, whoever asks, the tables' owner too (the privileges
-- are revoked from every role as well). A correction is a new transaction.
create or replace function public.ledger_refuse_change()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception 'the ledger is append-only: % on % refused; a correction is a new transaction', tg_op, tg_table_name
    using errcode = 'insufficient_privilege';
end $$;

revoke all on function public.ledger_refuse_change() from public, anon, authenticated;

-- A ledger transaction balances (migration 20261204000000_ledger): at the commit of the database
-- transaction that wrote it (a deferred constraint trigger on `ledger_postings` and on
-- `ledger_transactions`), its postings sum to zero and there are at least two of them.
create or replace function public.ledger_check_balanced()
returns trigger
language plpgsql
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

create trigger ledger_accounts_append_only before update or delete on public.ledger_accounts
  for each row execute function public.ledger_refuse_change();
create trigger ledger_transactions_append_only before update or delete on public.ledger_transactions
  for each row execute function public.ledger_refuse_change();
create trigger ledger_postings_append_only before update or delete on public.ledger_postings
  for each row execute function public.ledger_refuse_change();
create trigger ledger_accounts_no_truncate before truncate on public.ledger_accounts
  for each statement execute function public.ledger_refuse_change();
create trigger ledger_transactions_no_truncate before truncate on public.ledger_transactions
  for each statement execute function public.ledger_refuse_change();
create trigger ledger_postings_no_truncate before truncate on public.ledger_postings
  for each statement execute function public.ledger_refuse_change();
create constraint trigger ledger_postings_balanced after insert on public.ledger_postings
  deferrable initially deferred for each row execute function public.ledger_check_balanced('transaction_id');
create constraint trigger ledger_transactions_balanced after insert on public.ledger_transactions
  deferrable initially deferred for each row execute function public.ledger_check_balanced('id');

-- ── Writing it ──────────────────────────────────────────────────────────────────────────────

-- The ledger account of kind `p_kind` of user `p_user_id` (created the first time it is asked
-- for), or the platform's account of that kind when `p_user_id` is null. Security definer: the
-- ledger's tables are written by its functions only (migration 20261204000000_ledger).
create or replace function public.ledger_account(p_kind text, p_user_id uuid)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  if p_user_id is null then
    select a.id into v_id from public.ledger_accounts a where a.kind = p_kind and a.user_id is null;
    if v_id is null then
      raise exception 'no platform ledger account of kind %', p_kind using errcode = 'no_data_found';
    end if;
    return v_id;
  end if;
  insert into public.ledger_accounts (kind, user_id) values (p_kind, p_user_id) on conflict do nothing;
  select a.id into v_id from public.ledger_accounts a where a.kind = p_kind and a.user_id = p_user_id;
  return v_id;
end $$;

revoke all on function public.ledger_account(text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_account(text, uuid) to service_role;

-- Writes one ledger transaction, once: of kind `p_kind`, caused by `p_reference` (what it is
-- for: `<app>:<day>` for a day's ad revenue, a payout's id), that happened at `p_occurred_at`,
-- with a reason (`p_memo`: an adjustment's, a failed payout's), and its postings
-- (`p_postings`: `[{account_id, amount_micro, app_id?}]`, integers that sum to zero). A kind and
-- reference are written once: asked again (a retry, a rerun, two runs at once), it writes
-- nothing and answers null; otherwise the new transaction's id. That the postings balance is
-- checked at the commit (public.ledger_check_balanced).
create or replace function public.ledger_post(p_kind text, p_reference text, p_occurred_at timestamptz, p_memo text, p_postings jsonb)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into public.ledger_transactions (kind, reference, occurred_at, memo, created_by)
  values (p_kind, p_reference, p_occurred_at, p_memo, auth.uid())
  on conflict (kind, reference) do nothing
  returning id into v_id;
  if v_id is null then
    return null;
  end if;
  insert into public.ledger_postings (transaction_id, account_id, amount_micro, app_id)
  select v_id, p.account_id, p.amount_micro, p.app_id
  from jsonb_to_recordset(p_postings) as p(account_id uuid, amount_micro bigint, app_id uuid)
  where p.amount_micro <> 0;
  return v_id;
end $$;

revoke all on function public.ledger_post(text, text, timestamptz, text, jsonb) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post(text, text, timestamptz, text, jsonb) to service_role;

-- Ad revenue enters the ledger per app and day (migration 20261204000000_ledger), from the
-- placements' daily stats the roll-up keeps (public.roll_up_ad_traffic calls this at the end of
-- each run, in its transaction). A day is posted once it is over: an hour after its end, and once
-- no count of it or of an earlier day waits for the roll-up. Each app's day is two transactions,
-- written once each (public.ledger_post, kind and reference `<app>:<day>`):
--   ad_revenue     what the publisher earned: out of `ad_sales` (what advertisers paid for ads),
--                  into the publisher's account;
--   platform_fee   the rest of what the ads cost: out of `ad_sales`, into `platform_fees`.
-- So the ledger grows with apps and days, not with traffic. A day's apps are posted up to
-- `p_limit` a run, from the last day posted on; answers how many apps' days it posted. `p_now`
-- is the clock it reads (tests move it; the roll-up passes none).
create or replace function public.ledger_post_ad_revenue(p_limit integer default 1000, p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed date := ((p_now - interval '1 hour') at time zone 'UTC')::date - 1;
  v_from date;
  v_sales uuid;
  v_fees uuid;
  v_day record;
  v_at timestamptz;
  v_revenue bigint;
  v_fee bigint;
  v_posted integer := 0;
begin
  -- A day whose counts still wait for the roll-up is not over.
  select least(v_closed, min(c.day) - 1) into v_closed from public.ad_traffic_counts c;
  select coalesce(max(t.occurred_at at time zone 'UTC')::date, '-infinity'::date) into v_from
  from public.ledger_transactions t where t.kind = 'ad_revenue';
  if v_from > v_closed then
    return 0;
  end if;
  v_sales := public.ledger_account('ad_sales', null);
  v_fees := public.ledger_account('platform_fees', null);
  for v_day in
    select p.app_id, p.user_id, s.day, round(sum(s.revenue_usd) * 1000000)::bigint as revenue, round(sum(s.cost_usd) * 1000000)::bigint as cost
    from public.daily_stats s join public.placements p on p.id = s.placement_id
    where s.day >= v_from and s.day <= v_closed
      and not exists (select 1 from public.ledger_transactions t where t.kind = 'ad_revenue' and t.reference = p.app_id || ':' || s.day)
    group by p.app_id, p.user_id, s.day
    having sum(s.revenue_usd) > 0
    order by s.day, p.app_id
    limit p_limit
  loop
    v_at := v_day.day::timestamp at time zone 'UTC';
    v_revenue := v_day.revenue;
    -- What the ads cost is at least what they earned (daily stats from before costs were kept have none).
    v_fee := greatest(v_day.cost - v_revenue, 0);
    perform public.ledger_post('ad_revenue', v_day.app_id || ':' || v_day.day, v_at, null,
      jsonb_build_array(jsonb_build_object('account_id', v_sales, 'amount_micro', -v_revenue, 'app_id', v_day.app_id),
                        jsonb_build_object('account_id', public.ledger_account('publisher', v_day.user_id), 'amount_micro', v_revenue,
                                           'app_id', v_day.app_id)));
    if v_fee > 0 then
      perform public.ledger_post('platform_fee', v_day.app_id || ':' || v_day.day, v_at, null,
        jsonb_build_array(jsonb_build_object('account_id', v_sales, 'amount_micro', -v_fee, 'app_id', v_day.app_id),
                          jsonb_build_object('account_id', v_fees, 'amount_micro', v_fee, 'app_id', v_day.app_id)));
    end if;
    v_posted := v_posted + 1;
  end loop;
  return v_posted;
end $$;

revoke all on function public.ledger_post_ad_revenue(integer, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_revenue(integer, timestamptz) to service_role;

-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats (with what the ads cost), the campaigns' daily spend and the
-- keys' last use, in one transaction: every count is added exactly once. Then the days that are
-- over go into the ledger, in the same transaction (public.ledger_post_ad_revenue). Rows of transactions still open are invisible
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

  -- The days that are over, into the ledger (after this run's counts, which it waits for).
  perform public.ledger_post_ad_revenue();
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;
