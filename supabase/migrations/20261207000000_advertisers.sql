-- Advertisers buy on their own, on the ledger.
--
-- * Accounts: a user may be a publisher (apps), an advertiser (`advertiser_profiles`: company,
--   billing details, time zone) and, later, a data buyer. The demo seed makes the demo advertisers
--   real accounts (lib/demo/seed.ts).
-- * Funds: an advertiser's prepaid balance is their `advertiser` ledger account. Money arrives by
--   a rail as a `top_ups` row (manual invoice by default, Stripe Checkout when configured) and is
--   credited once, from the platform's new `payments_in` account (public.top_up_credit). The
--   smallest top-up is published in the pricing settings (`min_top_up_usd`).
-- * Spend: the roll-up now posts what it counts as it counts it, one `ad_spend` transaction per
--   run and day that debits each campaign's advertiser and credits each app's publisher and the
--   platform (public.ledger_post_ad_spend); postings name their campaign. Daily stats remember
--   how much of them is in the ledger (`posted_usd`, `posted_cost_usd`), so what was counted
--   before this migration is still posted once its day is over, as it was, out of `ad_sales`
--   (public.ledger_post_ad_revenue), and nothing is posted twice.
-- * Campaigns: owned by an advertiser, with a lifetime budget and an optional daily cap (the
--   day's limit, `daily_budget_usd`, which pacing and billing already read, follows them:
--   public.campaigns_advance), the formats they buy, targeting by app categories (include,
--   exclude) and excluded apps, an optional hard stop at their end, and the statuses
--   draft → in_review → scheduled → active ⇄ paused → completed, or rejected with a reason.
--   Out of funds, they pause by themselves and resume after a top-up.
-- * Creatives: reviewed (`in_review` → `active`, or `rejected` with a reason), their media's
--   dimensions and duration kept; an edit sends one back to review (public.creatives_guard).
-- Advertisers read and write their own rows under row-level security; status moves they may
-- make are checked by triggers, and review is staff's, through audited functions.

-- ── The ledger's new kinds ──────────────────────────────────────────────────────────────────
alter table public.ledger_accounts drop constraint ledger_accounts_kind_check;
alter table public.ledger_accounts add constraint ledger_accounts_kind_check
  check (kind in ('publisher', 'publisher_available', 'advertiser', 'buyer', 'ad_sales', 'platform_fees', 'payouts', 'payments_in'));
alter table public.ledger_transactions drop constraint ledger_transactions_kind_check;
alter table public.ledger_transactions add constraint ledger_transactions_kind_check
  check (kind in ('ad_revenue', 'platform_fee', 'ad_spend', 'adjustment', 'month_close', 'payout', 'payout_reversal', 'top_up', 'data_sale'));
insert into public.ledger_accounts (kind) values ('payments_in');
-- Which campaign a posting is for (an advertiser's spend), as `app_id` says which app.
alter table public.ledger_postings add column campaign_id uuid;
create index ledger_postings_campaign on public.ledger_postings (campaign_id) where campaign_id is not null;

-- ── What of the daily stats is in the ledger ────────────────────────────────────────────────
alter table public.daily_stats add column posted_usd numeric(14, 6) not null default 0 check (posted_usd >= 0);
alter table public.daily_stats add column posted_cost_usd numeric(14, 6) not null default 0 check (posted_cost_usd >= 0);
update public.daily_stats s set posted_usd = s.revenue_usd, posted_cost_usd = s.cost_usd
from public.placements p
where p.id = s.placement_id
  and exists (select 1 from public.ledger_transactions t where t.kind = 'ad_revenue' and t.reference = p.app_id || ':' || s.day);
-- Holds only what is left to post (rows counted before this migration, until their day is posted).
create index daily_stats_unposted on public.daily_stats (day) where revenue_usd <> posted_usd;

-- Which creative a count is for (older counts have none), and what advertisers' reports read:
-- per campaign, creative, app and day, kept by the roll-up (public.roll_up_ad_traffic).
alter table public.ad_traffic_counts add column creative_id uuid;
create table public.campaign_daily_stats (
  campaign_id  uuid not null references public.campaigns (id) on delete cascade,
  creative_id  uuid not null,
  app_id       uuid not null,
  day          date not null,
  fills        bigint not null default 0 check (fills >= 0),
  impressions  bigint not null default 0 check (impressions >= 0),
  clicks       bigint not null default 0 check (clicks >= 0),
  spent_usd    numeric(14, 6) not null default 0 check (spent_usd >= 0),
  primary key (campaign_id, day, creative_id, app_id)
);
alter table public.campaign_daily_stats enable row level security;
alter table public.campaign_daily_stats force row level security;
revoke all on public.campaign_daily_stats from public, anon, authenticated, sdk, service_role;
grant select, insert, update on public.campaign_daily_stats to service_role;
grant select on public.campaign_daily_stats to authenticated;
create policy "The service keeps the advertisers daily figures"
  on public.campaign_daily_stats for all to service_role using (true) with check (true);

-- What a roll-up run billed, from its counts to the ledger in the same transaction
-- (public.roll_up_ad_traffic writes it, public.ledger_post_ad_spend empties it).
create table public.ad_spend_pending (
  day            date not null,
  campaign_id    uuid,
  app_id         uuid not null,
  cost_micro     bigint not null check (cost_micro >= 0),
  revenue_micro  bigint not null check (revenue_micro >= 0 and revenue_micro <= cost_micro)
);
alter table public.ad_spend_pending enable row level security;
alter table public.ad_spend_pending force row level security;
revoke all on public.ad_spend_pending from public, anon, authenticated, sdk, service_role;
grant select, insert on public.ad_spend_pending to service_role;
create policy "The service leaves what it billed for the ledger"
  on public.ad_spend_pending for insert to service_role with check (true);
create policy "The service reads what waits for the ledger"
  on public.ad_spend_pending for select to service_role using (true);

-- Serving targets by the app's categories (public.sdk_serve_ad reads its own app's).
grant select (category) on public.apps to sdk;

-- ── Advertisers ─────────────────────────────────────────────────────────────────────────────
create table public.advertiser_profiles (
  user_id          uuid primary key references public.users (id) on delete cascade,
  company          text not null check (length(btrim(company)) between 1 and 100),
  billing_name     text not null check (length(btrim(billing_name)) between 1 and 100),
  billing_email    text not null check (billing_email ~ '^[^@\s]+@[^@\s]+$' and length(billing_email) <= 254),
  billing_address  text not null check (length(btrim(billing_address)) between 1 and 500),
  country          text not null check (country ~ '^[A-Z]{2}$'),
  tax_id           text check (length(tax_id) between 1 and 40),
  time_zone        text not null default 'UTC' check (length(time_zone) between 1 and 64),
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
alter table public.advertiser_profiles enable row level security;
alter table public.advertiser_profiles force row level security;
revoke all on public.advertiser_profiles from public, anon, authenticated, sdk, service_role;
grant select, insert, update on public.advertiser_profiles to authenticated, service_role;
create policy "Advertisers read their own profile"
  on public.advertiser_profiles for select to authenticated using (user_id = auth.uid());
create policy "People become advertisers themselves"
  on public.advertiser_profiles for insert to authenticated with check (user_id = auth.uid());
create policy "Advertisers keep their own profile"
  on public.advertiser_profiles for update to authenticated using (user_id = auth.uid()) with check (user_id = auth.uid());
create policy "The service reads and keeps advertiser profiles"
  on public.advertiser_profiles for all to service_role using (true) with check (true);

-- ── Funds ───────────────────────────────────────────────────────────────────────────────────
alter table public.pricing_settings add column min_top_up_usd numeric(10, 2) not null default 50 check (min_top_up_usd >= 0);

create table public.top_ups (
  id                  uuid primary key default gen_random_uuid(),
  user_id             uuid not null references public.users (id) on delete restrict,
  amount_micro        bigint not null check (amount_micro > 0),
  rail                text not null check (rail in ('manual', 'stripe')),
  status              text not null default 'requested' check (status in ('requested', 'paid', 'canceled')),
  -- The manual rail's invoice, which the advertiser's payment quotes.
  invoice_number      text unique check (length(invoice_number) between 1 and 40),
  -- Stripe Checkout's session, for the webhook that credits it.
  checkout_session_id text unique check (length(checkout_session_id) between 1 and 255),
  -- What says the money arrived: the bank's reference the operator noted, or Stripe's payment.
  payment_reference   text check (length(payment_reference) between 1 and 200),
  requested_at        timestamptz not null default now(),
  paid_at             timestamptz,
  recorded_by         uuid references public.users (id) on delete set null,
  transaction_id      uuid,
  constraint top_ups_paid_in_ledger check ((status = 'paid') = (transaction_id is not null and paid_at is not null))
);
create index top_ups_user on public.top_ups (user_id, requested_at desc);
create index top_ups_open on public.top_ups (requested_at) where status = 'requested';
alter table public.top_ups enable row level security;
alter table public.top_ups force row level security;
revoke all on public.top_ups from public, anon, authenticated, sdk, service_role;
grant select on public.top_ups to authenticated, service_role;
grant insert (user_id, amount_micro, rail, invoice_number, checkout_session_id, requested_at) on public.top_ups to service_role;
create policy "Advertisers read the money they asked to put in"
  on public.top_ups for select to authenticated using (user_id = auth.uid());
create policy "The service reads what advertisers put in"
  on public.top_ups for select to service_role using (true);
create policy "The service opens requests for funds"
  on public.top_ups for insert to service_role with check (status = 'requested');

-- ── Campaigns ───────────────────────────────────────────────────────────────────────────────
alter table public.campaigns drop constraint campaigns_status_check;
update public.campaigns set status = 'completed' where status = 'ended';
alter table public.campaigns
  add column advertiser_id        uuid references public.users (id) on delete restrict,
  add column lifetime_budget_usd  numeric(12, 2) check (lifetime_budget_usd > 0),
  add column daily_cap_usd        numeric(12, 2) check (daily_cap_usd > 0),
  add column budget_day           date,
  add column hard_stop            boolean not null default false,
  add column formats              text[] not null default '{}'
    check (formats <@ array['floating_video', 'tooltip', 'sponsored_card', 'inline_text']),
  add column include_categories   text[] not null default '{}' check (cardinality(include_categories) <= 20),
  add column exclude_categories   text[] not null default '{}' check (cardinality(exclude_categories) <= 20),
  add column excluded_apps        uuid[] not null default '{}' check (cardinality(excluded_apps) <= 100),
  add column pause_reason         text check (pause_reason in ('advertiser', 'out_of_funds')),
  add column rejection_reason     text check (length(rejection_reason) between 1 and 500),
  add column submitted_at         timestamptz,
  add column reviewed_at          timestamptz,
  add column reviewed_by          uuid references public.users (id) on delete set null,
  add column completed_at         timestamptz,
  add column updated_at           timestamptz not null default now();
update public.campaigns set pause_reason = 'advertiser' where status = 'paused';
alter table public.campaigns
  add constraint campaigns_status_check
    check (status in ('draft', 'in_review', 'scheduled', 'active', 'paused', 'completed', 'rejected')),
  add constraint campaigns_paused_says_why check ((status = 'paused') = (pause_reason is not null)),
  add constraint campaigns_rejected_says_why check ((status = 'rejected') = (rejection_reason is not null)),
  add constraint campaigns_ends_after_start check (ends_at is null or ends_at > starts_at);
create index campaigns_advertiser on public.campaigns (advertiser_id, created_at desc);
create index campaigns_by_status on public.campaigns (status) where status in ('in_review', 'scheduled', 'paused');
-- What the ad decision reads on every request: the running campaigns (public.sdk_serve_ad).
create index campaigns_serving on public.campaigns (id) where status = 'active';

alter table public.creatives drop constraint creatives_status_check;
alter table public.creatives
  add column width             integer check (width between 1 and 10000),
  add column height            integer check (height between 1 and 10000),
  add column duration_ms       integer check (duration_ms between 1 and 600000),
  add column rejection_reason  text check (length(rejection_reason) between 1 and 500),
  add column reviewed_at       timestamptz,
  add column reviewed_by       uuid references public.users (id) on delete set null,
  add column updated_at        timestamptz not null default now(),
  add constraint creatives_status_check check (status in ('in_review', 'active', 'paused', 'rejected')),
  add constraint creatives_rejected_says_why check ((status = 'rejected') = (rejection_reason is not null));
create index creatives_in_review on public.creatives (created_at) where status = 'in_review';
-- What the ad decision reads for each campaign it reaches: its approved creatives of a format.
create index creatives_serving on public.creatives (campaign_id, format) where status = 'active';

-- Advertisers read and write their own campaigns and creatives (the triggers below say which
-- moves are theirs); what they may write is named column by column.
grant select, delete on public.campaigns, public.creatives to authenticated;
grant insert (advertiser_id, name, lifetime_budget_usd, daily_cap_usd, frequency_cap, keywords, starts_at, ends_at, hard_stop, formats,
              include_categories, exclude_categories, excluded_apps)
  on public.campaigns to authenticated;
grant update (name, status, lifetime_budget_usd, daily_cap_usd, frequency_cap, keywords, starts_at, ends_at, hard_stop, formats,
              include_categories, exclude_categories, excluded_apps)
  on public.campaigns to authenticated;
grant insert (campaign_id, format, headline, body, cta, image_url, video_url, landing_url, width, height, duration_ms)
  on public.creatives to authenticated;
grant update (status, headline, body, cta, image_url, video_url, landing_url, width, height, duration_ms)
  on public.creatives to authenticated;
create policy "Advertisers read their own campaigns"
  on public.campaigns for select to authenticated using (advertiser_id = auth.uid());
create policy "Advertisers create their own campaigns"
  on public.campaigns for insert to authenticated
  with check (advertiser_id = auth.uid() and exists (select 1 from public.advertiser_profiles p where p.user_id = auth.uid()));
create policy "Advertisers change their own campaigns"
  on public.campaigns for update to authenticated using (advertiser_id = auth.uid()) with check (advertiser_id = auth.uid());
create policy "Advertisers delete their own drafts"
  on public.campaigns for delete to authenticated using (advertiser_id = auth.uid() and status = 'draft');
create policy "Advertisers read their own creatives"
  on public.creatives for select to authenticated
  using (exists (select 1 from public.campaigns c where c.id = creatives.campaign_id and c.advertiser_id = auth.uid()));
create policy "Advertisers add creatives to their own campaigns"
  on public.creatives for insert to authenticated
  with check (exists (select 1 from public.campaigns c where c.id = creatives.campaign_id and c.advertiser_id = auth.uid()
                        and c.status <> 'completed'));
create policy "Advertisers change their own creatives"
  on public.creatives for update to authenticated
  using (exists (select 1 from public.campaigns c where c.id = creatives.campaign_id and c.advertiser_id = auth.uid() and c.status <> 'completed'));
create policy "Advertisers delete creatives never shown"
  on public.creatives for delete to authenticated
  using (status in ('in_review', 'rejected')
         and exists (select 1 from public.campaigns c where c.id = creatives.campaign_id and c.advertiser_id = auth.uid())
         and not exists (select 1 from public.campaign_daily_stats s where s.creative_id = creatives.id));
create policy "Advertisers read the daily figures of their own campaigns"
  on public.campaign_daily_stats for select to authenticated
  using (exists (select 1 from public.campaigns c where c.id = campaign_daily_stats.campaign_id and c.advertiser_id = auth.uid()));
-- What each of their campaigns spent per day (the roll-up keeps it).
create policy "Advertisers read what their own campaigns spent"
  on public.campaign_daily_spend for select to authenticated
  using (exists (select 1 from public.campaigns c where c.id = campaign_daily_spend.campaign_id and c.advertiser_id = auth.uid()));
grant select on public.campaign_daily_spend to authenticated;

-- ── Functions (each as its file in supabase/schemas/functions) ──────────────────────────────────

-- Writes one ledger transaction, once: of kind `p_kind`, caused by `p_reference` (what it is
-- for: `<app>:<day>` for a day's ad revenue, a payout's id), that happened at `p_occurred_at`,
-- with a reason (`p_memo`: an adjustment's, a failed payout's), and its postings
-- (`p_postings`: `[{account_id, amount_micro, app_id?, campaign_id?}]`, integers that sum to zero). A kind and
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
  insert into public.ledger_postings (transaction_id, account_id, amount_micro, app_id, campaign_id)
  select v_id, p.account_id, p.amount_micro, p.app_id, p.campaign_id
  from jsonb_to_recordset(p_postings) as p(account_id uuid, amount_micro bigint, app_id uuid, campaign_id uuid)
  where p.amount_micro <> 0;
  return v_id;
end $$;

revoke all on function public.ledger_post(text, text, timestamptz, text, jsonb) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post(text, text, timestamptz, text, jsonb) to service_role;

-- The balance of user `p_user`'s ledger account of kind `p_kind` (an advertiser's prepaid funds,
-- a publisher's earnings), in micro-dollars: the sum of its postings, never stored apart
-- (migration 20261207000000_advertisers). Zero for an account not opened yet. Security definer,
-- for the ledger's own functions and the service; a user reads their own postings directly.
create or replace function public.ledger_balance_micro(p_kind text, p_user uuid)
returns bigint
language sql stable security definer set search_path = ''
as $$
  select coalesce(sum(p.amount_micro), 0)::bigint
  from public.ledger_accounts a join public.ledger_postings p on p.account_id = a.id
  where a.kind = p_kind and a.user_id = p_user
$$;

revoke all on function public.ledger_balance_micro(text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_balance_micro(text, uuid) to service_role;

-- The decision's rules one by one, and the decision.
-- A running campaign may serve on this placement of this app: it buys the placement's format (or
-- every format), includes one of the app's categories (or targets none), excludes none of them,
-- and has not excluded the app (migration 20261207000000_advertisers).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_campaign_targets(p_formats text[], p_include_categories text[], p_exclude_categories text[],
                                                       p_excluded_apps uuid[], p_format text, p_app_categories text[], p_app_id uuid)
returns boolean
language sql immutable
as $$
  select (cardinality(p_formats) = 0 or p_format = any(p_formats))
     and (cardinality(p_include_categories) = 0 or p_include_categories && p_app_categories)
     and not (p_exclude_categories && p_app_categories)
     and not (p_app_id = any(p_excluded_apps))
$$;

revoke all on function public.sdk_campaign_targets(text[], text[], text[], uuid[], text, text[], uuid) from public, anon, authenticated;
grant execute on function public.sdk_campaign_targets(text[], text[], text[], uuid[], text, text[], uuid) to sdk;

-- What a campaign the draw reached shows, if it may fill now: one of its approved creatives of the
-- format, at random (a campaign with more creatives does not win more often), when it has paced
-- budget left today (sdk_day_share, sdk_paced_budget_left), counting what it was billed today
-- (its `budget:` counter) and what the ads it served in the impression window may still bill
-- (its `served:` less its `billed:` counters of the last 15 minutes, which the roll-up keeps),
-- and the client is under its frequency cap (sdk_client_fills, sdk_under_frequency_cap).
-- Nothing otherwise. The campaign's checks name none of the creative's columns: PostgreSQL runs
-- them once, before it reads a creative.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_campaign_creative(p_campaign_id uuid, p_advertiser text, p_daily_budget numeric, p_frequency_cap integer,
                                                        p_format text, p_app_id uuid, p_client_hash text, p_at timestamptz)
returns table (
  id           uuid,
  campaign_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language sql stable
as $$
  select cr.id, cr.campaign_id, p_advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url
  from public.creatives cr
  where cr.campaign_id = p_campaign_id and cr.format = p_format and cr.status = 'active'
    and public.sdk_paced_budget_left(
          (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
           where k.name = 'budget:' || p_campaign_id and k.period = date_trunc('day', p_at, 'UTC'))
          + greatest(0, (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                         where k.name = 'served:' || p_campaign_id and k.period >= public.sdk_promise_slot(p_at - interval '15 minutes'))
                        - (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                           where k.name = 'billed:' || p_campaign_id and k.period >= public.sdk_promise_slot(p_at - interval '15 minutes'))),
          p_daily_budget, public.sdk_day_share(p_at))
    and public.sdk_under_frequency_cap((select count(*) from public.sdk_client_fills(p_app_id, p_client_hash, p_campaign_id, p_at)), p_frequency_cap)
  order by random()
  limit 1
$$;

revoke all on function public.sdk_campaign_creative(uuid, text, numeric, integer, text, uuid, text, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_campaign_creative(uuid, text, numeric, integer, text, uuid, text, timestamptz) to sdk;

-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the eligible
-- creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: campaign running (sdk_campaign_running; its end date stops it only with a hard
-- stop) and targeting this placement of this app (sdk_campaign_targets), with an approved
-- creative of the format, paced budget left today and the client under its frequency cap
-- (sdk_campaign_creative); each rule has its file here. The decision remembers the client
-- (`p_client_hash`, lib/platform/http/client-ip.ts). The request is counted
-- (`ad_traffic_counts`, with the price a fill promises) whether or not it filled. Nothing here
-- writes a row another request writes too: serving waits on no one.
--
-- The draw: weight from sdk_draw_weight, and `-ln(1 - random()) / weight` is the smallest for
-- each campaign with probability weight / total. Campaigns are tried in that order and the first
-- that may fill wins, which is the same draw as among only those that may (the order of a
-- subset is the subset's draw), while only the first few cost a lookup: ordering the running
-- campaigns is one scan and sort, and each one reached a few index reads (migration
-- 20261207000000_advertisers: checking every campaign and creative made a decision 13 times
-- slower than the bare route with 1,000 campaigns).
create or replace function public.sdk_serve_ad(p_placement_id uuid, p_session_id text, p_keywords text[], p_api_key_id uuid,
                                               p_client_hash text)
returns table (
  found        boolean,
  decision_id  uuid,
  format       text,
  creative_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_categories text[];
  v_placement record;
  v_pick record;
  v_decision uuid;
  v_promised numeric;
begin
  select p.id, p.format, p.status into v_placement from public.placements p where p.id = p_placement_id;
  if not found then
    return query select false, null::uuid, null::text, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
    return;
  end if;
  select a.category into v_categories from public.apps a where a.id = v_app;
  v_categories := coalesce(v_categories, '{}');
  -- Nothing picked unless the placement is active and a creative is eligible.
  select null::uuid as id, null::uuid as campaign_id into v_pick;
  if v_placement.status = 'active' then
    -- Every running campaign here, in the order of one draw by weight; the first that may fill.
    select s.* into v_pick
    from (select c.id, c.advertiser, c.daily_budget_usd, c.frequency_cap
          from public.campaigns c
          where public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now())
            and public.sdk_campaign_targets(c.formats, c.include_categories, c.exclude_categories, c.excluded_apps,
                                            v_placement.format, v_categories, v_app)
          order by -ln(1 - random()) / public.sdk_draw_weight(c.daily_budget_usd, c.keywords, p_keywords)) c
    cross join lateral public.sdk_campaign_creative(c.id, c.advertiser, c.daily_budget_usd, c.frequency_cap, v_placement.format,
                                                    v_app, p_client_hash, now()) s
    limit 1;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, client_hash, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, p_client_hash, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  if v_pick.id is not null then
    select public.sdk_cost_per_impression(v_placement.format, s) into v_promised from public.pricing_settings s;
  end if;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, campaign_id, creative_id, day, requests, fills, promised_usd)
  values (v_app, v_placement.id, p_api_key_id, v_pick.campaign_id, v_pick.id, (now() at time zone 'UTC')::date, 1,
          case when v_pick.id is null then 0 else 1 end, coalesce(v_promised, 0));
  if v_pick.id is null then
    return query select true, v_decision, v_placement.format, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
  else
    return query select true, v_decision, v_placement.format, v_pick.id, v_pick.advertiser, v_pick.headline, v_pick.body,
                        v_pick.cta, v_pick.image_url, v_pick.video_url;
  end if;
end $$;
revoke all on function public.sdk_serve_ad(uuid, text, text[], uuid, text) from public, anon, authenticated;
grant execute on function public.sdk_serve_ad(uuid, text, text[], uuid, text) to sdk;

-- One call per batch, as `sdk`. The caller has checked each event's token (signature, expiry,
-- app) and passes the decision it names; this decides the rest, in the order the rules are
-- documented (content/docs/sdk-integration.md, Counting rules). Each event is
-- `{n, id, kind, decision_id, visible_share, visible_seconds, area_px}` (the last three: the SDK's
-- viewability evidence, for impressions). `p_ip_hash` is the keyed hash of the client's address,
-- `p_client_hash` of its network and browser (lib/platform/http/client-ip.ts); `p_client_allowed`
-- and `p_publisher_allowed` are how many of the batch's impressions the hourly caps still allow,
-- from this client and for this publisher (lib/sdk/events.ts keeps those counts, shared by every
-- instance when Upstash is configured). Each event answers its `n` and one outcome:
--   recorded    billable, counted, on its decision;
--   duplicate   its id was recorded before (a retry): nothing changes;
--   invalid     never billed, with the reason; counted in the placement's invalid traffic, and
--               the first of each decision, kind and reason kept in `ad_events`
--               (`unknown_decision` alone is answered without a count: there is no ad to name).
--
-- Impressions, all together:
--   1. each decision the batch names, impressions' and clicks', is locked, in id order (two
--      batches never wait on each other in a circle), and the rules that need no counter are
--      applied (sdk_impression_reason): an ad's impression is `already_counted` when it has one,
--      or when an earlier impression of the batch that passed the rules takes it;
--   2. of the impressions that passed, those past what the hourly caps allow are invalid
--      (`client_limit`, `publisher_limit`);
--   3. each campaign's budget for the day (sdk_take_budget, one call per campaign and format):
--      what it refuses is `over_budget`. The budget is debited in the same transaction as the
--      impressions it pays for, so a campaign is billed at most its daily budget and one
--      impression's price; the batch holds its connection's lease of the budget, not the budget
--      itself, to the commit;
--   4. what passed billed on its decision, the invalid ones kept once per ad and reason, the
--      counts for the roll-up (`ad_traffic_counts`) written, and every impression answered:
--      steps 1 to 4 are one statement;
--   5. clicks, one at a time: sdk_invalid_reason (after its impression, once per ad, one per
--      address and ad in 3 hours), and the campaign still running and within its budget.
-- Locks are taken in one order: the batch's decisions (id order), the budgets' leases and
-- counters (campaign id order), the advisory lock of a click; so two batches never wait on each
-- other in a circle.
create or replace function public.sdk_record_events(p_events jsonb, p_ip_hash text, p_client_hash text, p_bot boolean,
                                                    p_client_allowed integer, p_publisher_allowed integer)
returns table (n integer, outcome text, reason text)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_user uuid := public.sdk_user_id();
  v_today date := (now() at time zone 'UTC')::date;
  v_day timestamptz := date_trunc('day', now(), 'UTC');
  v_pricing public.pricing_settings;
  v_client integer;
  v_allowed integer;
  v_event record;
  v_decision record;
  v_reason text;
  v_taken boolean;
begin
  select * into v_pricing from public.pricing_settings;

  v_client := greatest(p_client_allowed, 0);
  v_allowed := least(v_client, greatest(p_publisher_allowed, 0));

  -- 1-4. Impressions, in one statement: their decisions locked, the rules applied, one per ad
  -- (the first of the batch that passed), the hourly caps, the budgets, and then what passed
  -- billed on its decision, counted for the roll-up, the rest kept as invalid traffic, and every
  -- impression answered.
  return query
  with events as (
    select e.n, e.id, e.kind, e.decision_id, e.visible_share, e.visible_seconds, e.area_px
    from jsonb_to_recordset(p_events)
         as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
  ), input as (
    select e.n, e.id, e.decision_id, e.visible_share, e.visible_seconds, e.area_px,
           row_number() over (partition by e.id order by e.n) as nth_of_id
    from events e
    where e.kind = 'impression'
  ), locked as materialized (
    -- The clicks' decisions too: all of the batch's, in one order, before any other lock.
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.client_hash, d.created_at, d.impression_event_id, d.click_event_id
    from public.ad_decisions d
    where d.id in (select e.decision_id from events e) and d.creative_id is not null
    order by d.id
    for update
  ), judged as materialized (
    -- Materialized: the rules run once per impression (inlined, the reason would be computed
    -- again wherever the steps below read it).
    select i.n, i.id, d.id as decision_id, d.placement_id, d.campaign_id, d.creative_id, p.format, d.created_at as served_at,
           i.visible_share, i.visible_seconds, public.sdk_cost_per_impression(p.format, v_pricing) as cost_usd, c.daily_budget_usd,
           case
             when d.id is null then 'unknown_decision'
             when i.nth_of_id > 1 or i.id in (d.impression_event_id, d.click_event_id)
                  or exists (select 1 from public.ad_events x where x.placement_id = d.placement_id and x.event_id = i.id) then 'duplicate'
             else public.sdk_impression_reason(
                    p_bot, d.client_hash = p_client_hash, extract(epoch from now() - d.created_at), p.format,
                    i.visible_share, i.visible_seconds, i.area_px, d.impression_event_id is not null,
                    public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()))
           end as reason
    from input i
    left join locked d on d.id = i.decision_id
    left join public.placements p on p.id = d.placement_id
    left join public.campaigns c on c.id = d.campaign_id
  ), once as (
    select j.n, j.id, j.decision_id, j.placement_id, j.campaign_id, j.creative_id, j.format, j.served_at, j.visible_share,
           j.visible_seconds, j.cost_usd, j.daily_budget_usd,
           case when j.reason is null and row_number() over (partition by j.reason is null, j.decision_id order by j.n) > 1
                then 'already_counted' else j.reason end as reason
    from judged j
  ), capped as (
    select o.n, o.id, o.decision_id, o.placement_id, o.campaign_id, o.creative_id, o.format, o.served_at, o.visible_share,
           o.visible_seconds, o.cost_usd, o.daily_budget_usd,
           case when o.reason is null and row_number() over (partition by o.reason is null order by o.n) > v_client then 'client_limit'
                when o.reason is null and row_number() over (partition by o.reason is null order by o.n) > v_allowed then 'publisher_limit'
                else o.reason end as reason
    from once o
  ), ranked as (
    -- Each impression's place among its campaign's and format's billable ones: those past what
    -- the budget grants are refused.
    select c.*, row_number() over (partition by c.reason is null, c.campaign_id, c.format order by c.n) as nth_of_group
    from capped c
  ), granted as materialized (
    -- 3. The budgets, campaigns in id order (and formats, whose prices differ): each takes from
    -- its campaign's lease of this connection (sdk_take_budget), after the decisions' locks
    -- (the rows it counts come from `locked`). Called once per group: the CTE is materialized,
    -- and PostgreSQL computes volatile outputs after the sort.
    select w.campaign_id, w.format,
           public.sdk_take_budget(w.campaign_id, v_day, w.wanted, (w.cost_usd * 1000000)::bigint, (w.daily_budget_usd * 1000000)::bigint) as granted
    from (select c.campaign_id, c.format, count(*)::integer as wanted, min(c.cost_usd) as cost_usd, min(c.daily_budget_usd) as daily_budget_usd
          from capped c where c.reason is null group by c.campaign_id, c.format) as w
    order by w.campaign_id, w.format
  ), final as materialized (
    select c.n, c.id, c.decision_id, c.placement_id, c.campaign_id, c.creative_id, c.visible_share, c.visible_seconds, c.cost_usd,
           case when c.reason is null and c.nth_of_group > g.granted then 'over_budget' else c.reason end as reason
    from ranked c left join granted g on g.campaign_id = c.campaign_id and g.format = c.format
  ), billed as (
    update public.ad_decisions d set
      impression_event_id = c.id, impressed_at = now(),
      visible_share = least(c.visible_share, 1), visible_seconds = c.visible_seconds,
      cost_usd = c.cost_usd, revenue_usd = public.sdk_publisher_revenue(c.cost_usd, v_pricing)
    from final c
    where c.reason is null and d.id = c.decision_id
  ), kept as (
    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    select distinct on (c.decision_id, c.reason) c.id, c.placement_id, v_user, v_app, c.decision_id, c.campaign_id, c.creative_id,
           'impression', false, c.reason, p_ip_hash
    from final c
    where c.reason not in ('duplicate', 'unknown_decision')
    order by c.decision_id, c.reason, c.n
    on conflict do nothing
  ), counted as (
    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, impressions, invalid, revenue_usd, cost_usd)
    select v_app, c.placement_id, c.campaign_id, c.creative_id, v_today,
           count(*) filter (where c.reason is null), count(*) filter (where c.reason is not null),
           coalesce(sum(public.sdk_publisher_revenue(c.cost_usd, v_pricing)) filter (where c.reason is null), 0),
           coalesce(sum(c.cost_usd) filter (where c.reason is null), 0)
    from final c
    where c.reason is distinct from 'duplicate' and c.reason is distinct from 'unknown_decision'
    group by c.placement_id, c.campaign_id, c.creative_id
  )
  select c.n,
         case when c.reason is null then 'recorded' when c.reason = 'duplicate' then 'duplicate' else 'invalid' end,
         case when c.reason = 'duplicate' then null else c.reason end
  from final c
  order by c.n;

  -- 5. Clicks, one at a time, after the impressions, so a batch holding both for one ad counts both.
  if not p_events @> '[{"kind": "click"}]' then
    return;
  end if;
  for v_event in
    select e.n, e.id, e.decision_id
    from jsonb_to_recordset(p_events) as e(n integer, id text, kind text, decision_id uuid)
    where e.kind = 'click'
    order by e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.impression_event_id, d.click_event_id,
           public.sdk_campaign_running(c.status, c.starts_at, case when c.hard_stop then c.ends_at end, now()) as running,
           public.sdk_budget_spent(d.campaign_id, v_day) >= c.daily_budget_usd * 1000000 as spent
    into v_decision
    from public.ad_decisions d left join public.campaigns c on c.id = d.campaign_id
    where d.id = v_event.decision_id;
    if not found or v_decision.creative_id is null then
      -- A token names a decision that filled; anything else is not an ad of this app.
      return query select v_event.n, 'invalid'::text, 'unknown_decision'::text;
      continue;
    end if;
    if v_event.id in (v_decision.impression_event_id, v_decision.click_event_id)
       or exists (select 1 from public.ad_events x where x.placement_id = v_decision.placement_id and x.event_id = v_event.id) then
      return query select v_event.n, 'duplicate'::text, null::text;
      continue;
    end if;

    -- The first counting rule the click fails. The 3-hour rule is the one that reads other
    -- decisions, and for concurrent clicks of one address on one ad its check and the click's
    -- update must be one step: a lock, taken only for a click that no other rule refuses, then
    -- the rules again with what the check found.
    v_reason := coalesce(
      public.sdk_invalid_reason('click', p_bot, true, v_decision.impression_event_id, v_decision.click_event_id, p_repeat_click => false),
      case when not coalesce(v_decision.running, false) then 'campaign_ended' when v_decision.spent then 'over_budget' end);
    if v_reason is null then
      perform pg_advisory_xact_lock(hashtextextended(coalesce(p_ip_hash, '') || v_decision.creative_id::text, 0));
      v_reason := public.sdk_invalid_reason('click', p_bot, true, v_decision.impression_event_id, v_decision.click_event_id,
                    p_repeat_click => exists (select 1 from public.sdk_recent_clicks(v_decision.creative_id, p_ip_hash, now())));
    end if;

    if v_reason is null then
      -- Once per ad, and after its impression (the decision is locked: nothing else changes it).
      update public.ad_decisions set click_event_id = v_event.id, clicked_at = now(), click_ip_hash = p_ip_hash
      where id = v_decision.id and not public.sdk_already_counted('click', impression_event_id, click_event_id)
        and not public.sdk_click_before_impression('click', impression_event_id)
      returning true into v_taken;
      if coalesce(v_taken, false) then
        v_taken := null;
        insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, clicks)
        values (v_app, v_decision.placement_id, v_decision.campaign_id, v_decision.creative_id, v_today, 1);
        return query select v_event.n, 'recorded'::text, null::text;
        continue;
      end if;
      v_reason := 'already_counted';
    end if;

    insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, creative_id, day, invalid)
    values (v_app, v_decision.placement_id, v_decision.campaign_id, v_decision.creative_id, v_today, 1);
    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            'click', false, v_reason, p_ip_hash)
    on conflict do nothing;
    return query select v_event.n, 'invalid'::text, v_reason;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, text, boolean, integer, integer) to sdk;

-- What the roll-up counted as billed enters the ledger as it is counted (migration
-- 20261207000000_advertisers): public.roll_up_ad_traffic leaves its run's billed counts in
-- `ad_spend_pending` (per day, campaign and app, in micro-dollars), and this, in the same
-- transaction, writes one `ad_spend` transaction per day they
-- cover (normally one; two around midnight), reference `<uuid>:<day>`, dated in that day (now,
-- or the day's last microsecond for a day that is over), whose postings are:
--   each campaign's advertiser   minus what the campaign's ads cost (attributed to the campaign);
--                                a campaign with no advertiser account (one created before them)
--                                is paid for out of `ad_sales`, as all ads were before;
--   each app's publisher         plus what the app's placements earned (attributed to the app);
--   `platform_fees`              plus the rest of what the app's ads cost (attributed to the app).
-- So they balance by construction: what advertisers spend is what publishers earn plus the fee.
-- Exactly once: the pending rows and the counts they came from leave in the same transaction
-- that posts them (another run's rows, not committed, are not visible here). Then each advertiser it debited whose balance is gone has their running
-- campaigns paused (`out_of_funds`), and each campaign whose whole budget is spent is completed.
-- Answers how many transactions it wrote.
create or replace function public.ledger_post_ad_spend()
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_day record;
  v_postings jsonb;
  v_written integer := 0;
begin
  for v_day in select distinct t.day from public.ad_spend_pending t order by t.day loop
    select jsonb_agg(x.posting) into v_postings
    from (
      select jsonb_build_object('account_id', case when c.advertiser_id is null then public.ledger_account('ad_sales', null)
                                                     else public.ledger_account('advertiser', c.advertiser_id) end,
                                'amount_micro', -sum(t.cost_micro), 'campaign_id', t.campaign_id) as posting
      from public.ad_spend_pending t left join public.campaigns c on c.id = t.campaign_id
      where t.day = v_day.day
      group by t.campaign_id, c.advertiser_id
      union all
      select jsonb_build_object('account_id', public.ledger_account('publisher', a.user_id), 'amount_micro', sum(t.revenue_micro), 'app_id', t.app_id)
      from public.ad_spend_pending t join public.apps a on a.id = t.app_id
      where t.day = v_day.day
      group by t.app_id, a.user_id
      union all
      select jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', sum(t.cost_micro - t.revenue_micro), 'app_id', t.app_id)
      from public.ad_spend_pending t
      where t.day = v_day.day
      group by t.app_id
    ) x;
    if public.ledger_post('ad_spend', gen_random_uuid() || ':' || v_day.day,
                          least(now(), (v_day.day + 1)::timestamp at time zone 'UTC' - interval '1 microsecond'), null, v_postings) is not null then
      v_written := v_written + 1;
    end if;
  end loop;

  -- Out of funds: the advertisers just debited whose balance is gone.
  update public.campaigns c set status = 'paused', pause_reason = 'out_of_funds', updated_at = now()
  where c.status in ('scheduled', 'active')
    and c.advertiser_id in (select distinct x.advertiser_id from public.ad_spend_pending t join public.campaigns x on x.id = t.campaign_id
                            where x.advertiser_id is not null and public.ledger_balance_micro('advertiser', x.advertiser_id) <= 0);
  -- Their whole budget spent: the campaigns just billed.
  update public.campaigns c set status = 'completed', completed_at = now(), updated_at = now()
  where c.status in ('scheduled', 'active', 'paused') and c.lifetime_budget_usd is not null
    and c.id in (select t.campaign_id from public.ad_spend_pending t)
    and (select coalesce(sum(s.spent_usd), 0) from public.campaign_daily_spend s where s.campaign_id = c.id) >= c.lifetime_budget_usd;
  delete from public.ad_spend_pending;
  return v_written;
end $$;

revoke all on function public.ledger_post_ad_spend() from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_spend() to service_role;

-- Campaigns move on by the clock, their budgets and their advertisers' funds (migration
-- 20261207000000_advertisers); the roll-up calls this every run (`p_now`: the clock; tests move
-- it). Approved and started, a `scheduled` campaign becomes `active` (or `paused`, out of funds,
-- when its advertiser has none); one paused because its advertiser's funds ran out
-- (public.ledger_post_ad_spend pauses them as it bills) resumes once they are back
-- (public.top_up_credit resumes them at once); a campaign with a hard stop is `completed` at its
-- end (one whose budget is spent is completed as it is billed); and, as a day begins, the most each campaign may spend that day
-- (`daily_budget_usd`, which pacing and billing read) is its daily cap, or its whole budget
-- without one, but never more than what its budget has left after the days before: billing
-- refuses what goes past it (public.sdk_take_budget). Answers how many campaigns it changed.
create or replace function public.campaigns_advance(p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_changed integer := 0;
  v_count integer;
  v_today date := (p_now at time zone 'UTC')::date;
begin
  update public.campaigns c set
    status = case when c.advertiser_id is null or public.ledger_balance_micro('advertiser', c.advertiser_id) > 0 then 'active' else 'paused' end,
    pause_reason = case when c.advertiser_id is null or public.ledger_balance_micro('advertiser', c.advertiser_id) > 0 then null else 'out_of_funds' end,
    updated_at = p_now
  where c.status = 'scheduled' and c.starts_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = 'completed', completed_at = p_now, updated_at = p_now
  where c.status in ('scheduled', 'active', 'paused') and c.hard_stop and c.ends_at is not null and c.ends_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = case when c.starts_at <= p_now then 'active' else 'scheduled' end, pause_reason = null, updated_at = p_now
  where c.status = 'paused' and c.pause_reason = 'out_of_funds' and public.ledger_balance_micro('advertiser', c.advertiser_id) > 0;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  -- Once a day (when `budget_day` is behind): today's limit from the budget left.
  with left_today as (
    select c.id, c.lifetime_budget_usd - coalesce((select sum(s.spent_usd) from public.campaign_daily_spend s
                                                    where s.campaign_id = c.id and s.day < v_today), 0) as budget_left
    from public.campaigns c
    where c.status in ('scheduled', 'active', 'paused') and c.budget_day is distinct from v_today
  ), limited as (
    update public.campaigns c set
      daily_budget_usd = greatest(0.01, floor(least(c.daily_cap_usd, l.budget_left) * 100) / 100),
      budget_day = v_today
    from left_today l
    where c.id = l.id and (c.lifetime_budget_usd is not null or c.daily_cap_usd is not null)
    returning 1
  )
  select count(*) into v_count from limited;
  update public.campaigns c set budget_day = v_today where c.budget_day is distinct from v_today and c.lifetime_budget_usd is null and c.daily_cap_usd is null;

  return v_changed;
end $$;

revoke all on function public.campaigns_advance(timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.campaigns_advance(timestamptz) to service_role;

-- Ad revenue counted before advertisers had ledger accounts (migration 20261207000000_advertisers)
-- enters the ledger as it always did: per app and day, once the day is over (an hour after its
-- end, and once no count of it or of an earlier day waits for the roll-up), paid out of
-- `ad_sales`. Since that migration the roll-up posts what it counts as it counts it
-- (public.ledger_post_ad_spend), so only the daily stats of the demo's seeded history and of
-- databases migrated from before are left for this: the part of a row not in the ledger yet
-- (`revenue_usd - posted_usd`, indexed while it is not zero). Each app's day is two
-- transactions, written once each (public.ledger_post, kind and reference `<app>:<day>`):
--   ad_revenue     what the publisher earned: out of `ad_sales`, into the publisher's account;
--   platform_fee   the rest of what the ads cost: out of `ad_sales`, into `platform_fees`;
-- and its rows are then marked posted. Up to `p_limit` apps' days a run; answers how many it
-- posted. `p_now` is the clock it reads (the seed and tests move it; the roll-up passes none).
create or replace function public.ledger_post_ad_revenue(p_limit integer default 1000, p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed date := ((p_now - interval '1 hour') at time zone 'UTC')::date - 1;
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
  -- Nothing left to post, the common case: one look at an index that holds only what is left.
  if not exists (select 1 from public.daily_stats s where s.revenue_usd <> s.posted_usd and s.day <= v_closed) then
    return 0;
  end if;
  v_sales := public.ledger_account('ad_sales', null);
  v_fees := public.ledger_account('platform_fees', null);
  for v_day in
    select p.app_id, p.user_id, s.day, round(sum(s.revenue_usd - s.posted_usd) * 1000000)::bigint as revenue,
           round(sum(s.cost_usd - s.posted_cost_usd) * 1000000)::bigint as cost
    from public.daily_stats s join public.placements p on p.id = s.placement_id
    where s.revenue_usd <> s.posted_usd and s.day <= v_closed
    group by p.app_id, p.user_id, s.day
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
    update public.daily_stats s set posted_usd = s.revenue_usd, posted_cost_usd = s.cost_usd
    from public.placements p
    where p.id = s.placement_id and p.app_id = v_day.app_id and s.day = v_day.day and s.revenue_usd <> s.posted_usd;
    v_posted := v_posted + 1;
  end loop;
  return v_posted;
end $$;

revoke all on function public.ledger_post_ad_revenue(integer, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post_ad_revenue(integer, timestamptz) to service_role;

-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats (with what the ads cost), the campaigns' daily spend and
-- daily stats per creative and app (what advertisers' reports read), and the keys' last use, in
-- one transaction: every count is added exactly once. What the counts billed
-- goes into the ledger in the same transaction: one `ad_spend` transaction per run and day
-- (public.ledger_post_ad_spend, through `ad_spend_pending`), which debits each campaign's
-- advertiser and credits each app's publisher and the platform. Then campaigns move on by the
-- clock and by their budgets (public.campaigns_advance), the days counted before advertisers had
-- accounts are posted as they were (public.ledger_post_ad_revenue), and the months whose
-- earnings are final are closed (public.ledger_close_months). Rows of transactions still open are
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
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;

-- GET /api/v1/me/earnings: every placement of the caller's (archived apps' too) with its
-- figures, the payouts (newest first), the payout method, and the money, exactly, in
-- micro-dollars, all from the ledger (migrations 20261204000000_ledger, 20261206000000_payouts,
-- 20261207000000_advertisers) and, for what the ledger has not posted yet (days counted before
-- advertisers had accounts, until they are over), the daily stats:
--   ad_revenue_micro     what the placements earned: ad spend and revenue, adjustments, and the unposted part;
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
      select coalesce(sum(round((s.revenue_usd - s.posted_usd) * 1000000)), 0)::bigint as micro
      from public.daily_stats s where s.revenue_usd <> s.posted_usd
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
      'ad_revenue_micro', coalesce((select sum(micro) from postings where account = 'publisher' and kind in ('ad_spend', 'ad_revenue', 'adjustment')), 0)
                          + (select micro from unposted),
      'data_revenue_micro', coalesce((select sum(micro) from postings where account = 'publisher' and kind = 'data_sale'), 0),
      'pending_micro', coalesce((select sum(micro) from postings where account = 'publisher'), 0) + (select micro from unposted),
      'available_micro', coalesce((select sum(micro) from postings where account = 'publisher_available'), 0))
    from public.users u);
end $$;

revoke execute on function public.account_earnings() from public, anon;
grant execute on function public.account_earnings() to authenticated;

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
-- it is unposted: daily stats `posted_usd`, migration 20261207000000_advertisers). Runs twice, or twice at once, changes nothing: one run at a time (an advisory
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
                   from public.ledger_transactions t where t.kind in ('ad_spend', 'ad_revenue', 'adjustment', 'data_sale')))::date
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
       or exists (select 1 from public.daily_stats s where s.revenue_usd <> s.posted_usd and s.day < v_next) then
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

-- What an advertiser may do to a campaign directly (migration 20261207000000_advertisers): a
-- trigger before each insert and update made as `authenticated` (row-level security has already
-- kept them to their own campaigns). A new campaign is a `draft`. Its advertiser moves it only
-- from `draft` to `in_review` (with a creative), from `scheduled` or `active` to `paused` and back (resuming to
-- `scheduled` before its start, or `paused` for want of funds when the balance is gone); review,
-- rejection and completion are the operator's and the roll-up's (security definer functions,
-- which this leaves alone). Editing a rejected campaign makes it a draft again; a completed one
-- is not edited. For every writer: a campaign paused without a reason was paused by its owner
-- (and one no longer paused has none, nor one no longer rejected a rejection); the advertiser's name comes from their profile; and the
-- day's spending limit (`daily_budget_usd`) follows the daily cap and budget, recomputed from
-- what is left by the next roll-up (public.campaigns_advance).
create or replace function public.campaigns_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_company text;
begin
  if new.status = 'paused' and new.pause_reason is null then
    new.pause_reason := 'advertiser';
  elsif new.status <> 'paused' then
    new.pause_reason := null;
  end if;
  if new.status <> 'rejected' then
    new.rejection_reason := null;
  end if;
  select p.company into v_company from public.advertiser_profiles p where p.user_id = new.advertiser_id;
  new.advertiser := coalesce(v_company, new.advertiser);
  if tg_op = 'INSERT' or new.daily_cap_usd is distinct from old.daily_cap_usd or new.lifetime_budget_usd is distinct from old.lifetime_budget_usd then
    new.daily_budget_usd := coalesce(least(new.daily_cap_usd, new.lifetime_budget_usd), new.daily_budget_usd);
    new.budget_day := null;
  end if;
  if current_user <> 'authenticated' then
    return new;
  end if;
  if tg_op = 'INSERT' then
    new.status := 'draft';
    new.pause_reason := null;
    new.rejection_reason := null;
    return new;
  end if;
  if old.status = 'completed' then
    raise exception 'a completed campaign cannot be changed' using errcode = 'check_violation', constraint = 'campaigns_completed_unchanged';
  end if;
  if new.rejection_reason is distinct from old.rejection_reason
     or new.completed_at is distinct from old.completed_at or new.reviewed_at is distinct from old.reviewed_at then
    raise exception 'review and pausing are not set directly' using errcode = 'insufficient_privilege';
  end if;
  if new.status is distinct from old.status then
    if old.status = 'draft' and new.status = 'in_review' then
      if not exists (select 1 from public.creatives c where c.campaign_id = new.id) then
        raise exception 'a campaign goes to review with at least one creative' using errcode = 'check_violation', constraint = 'campaigns_review_needs_creative';
      end if;
      new.submitted_at := now();
    elsif old.status in ('scheduled', 'active') and new.status = 'paused' then
      new.pause_reason := 'advertiser';
    elsif old.status = 'paused' and old.pause_reason = 'advertiser' and new.status = 'active' then
      new.pause_reason := null;
      if new.starts_at > now() then
        new.status := 'scheduled';
      elsif coalesce((select sum(p.amount_micro) from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                      where a.kind = 'advertiser' and a.user_id = new.advertiser_id), 0) <= 0 then
        new.status := 'paused';
        new.pause_reason := 'out_of_funds';
      end if;
    else
      raise exception 'a campaign cannot go from % to % here', old.status, new.status using errcode = 'check_violation', constraint = 'campaigns_status_move';
    end if;
  elsif old.status = 'rejected' then
    new.status := 'draft';
    new.rejection_reason := null;
  end if;
  new.updated_at := now();
  return new;
end $$;

revoke all on function public.campaigns_guard() from public, anon, authenticated, sdk;

-- What an advertiser may do to a creative directly (migration 20261207000000_advertisers): a
-- trigger before each insert and update made as `authenticated` (row-level security has already
-- kept them to their own campaigns' creatives). A new creative, and one whose text, media or
-- landing page changes, goes to review (`in_review`, any rejection cleared); its advertiser may
-- pause an approved one and resume it, nothing else. Approval and rejection are the operator's
-- (public.staff_creative_review).
create or replace function public.creatives_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if current_user <> 'authenticated' then
    return new;
  end if;
  if tg_op = 'UPDATE' and new.status is distinct from old.status
     and not (old.status in ('active', 'paused') and new.status in ('active', 'paused')) then
    raise exception 'a creative cannot go from % to % here', old.status, new.status using errcode = 'check_violation', constraint = 'creatives_status_move';
  end if;
  if tg_op = 'INSERT'
     or (new.headline, new.body, new.cta, new.image_url, new.video_url, new.landing_url, new.width, new.height, new.duration_ms)
        is distinct from (old.headline, old.body, old.cta, old.image_url, old.video_url, old.landing_url, old.width, old.height, old.duration_ms) then
    new.status := 'in_review';
    new.rejection_reason := null;
    new.reviewed_at := null;
  elsif new.rejection_reason is distinct from old.rejection_reason or new.reviewed_at is distinct from old.reviewed_at then
    raise exception 'review is not set directly' using errcode = 'insufficient_privilege';
  end if;
  new.updated_at := now();
  return new;
end $$;

revoke all on function public.creatives_guard() from public, anon, authenticated, sdk;

-- An advertiser asks for a top-up by the manual rail (migration 20261207000000_advertisers): a
-- `requested` top-up of `p_amount_micro` with its invoice number, which the operator marks paid
-- when the money arrives (public.staff_top_up_record). Refused as public.top_up_refusal says
-- (no advertiser profile, outside the published range), and past ten open requests. Answers `{ok, top_up_id, invoice_number}` or
-- `{ok: false, error}`. Security definer: `top_ups` is written only by the money's functions.
create or replace function public.top_up_request(p_amount_micro bigint)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid := auth.uid();
  v_refusal json;
  v_id uuid;
  v_invoice text;
begin
  v_refusal := public.top_up_refusal(v_user, p_amount_micro);
  if v_refusal is not null then
    return v_refusal;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('top_up_request:' || v_user, 0));
  if (select count(*) from public.top_ups t where t.user_id = v_user and t.status = 'requested') >= 10 then
    return json_build_object('ok', false, 'error', 'too_many_open');
  end if;
  v_invoice := 'INV-' || to_char(now() at time zone 'UTC', 'YYYYMMDD') || '-' || upper(substr(md5(gen_random_uuid()::text), 1, 8));
  insert into public.top_ups (user_id, amount_micro, rail, status, invoice_number)
  values (v_user, p_amount_micro, 'manual', 'requested', v_invoice)
  returning id into v_id;
  return json_build_object('ok', true, 'top_up_id', v_id, 'invoice_number', v_invoice);
end $$;

revoke all on function public.top_up_request(bigint) from public, anon, sdk;
grant execute on function public.top_up_request(bigint) to authenticated;

-- A top-up's money has arrived: credited once (migration 20261207000000_advertisers). One
-- `top_up` transaction (reference: the top-up's id) from `payments_in` (what came in through the
-- rails) to the advertiser's account, the top-up marked `paid` with the rail's reference (the
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
                      jsonb_build_object('account_id', public.ledger_account('advertiser', v_top_up.user_id), 'amount_micro', v_top_up.amount_micro)));
  update public.top_ups t set status = 'paid', paid_at = now(), payment_reference = p_reference, recorded_by = p_by, transaction_id = v_tx
  where t.id = v_top_up.id;
  update public.campaigns c set status = case when c.starts_at <= now() then 'active' else 'scheduled' end, pause_reason = null, updated_at = now()
  where c.advertiser_id = v_top_up.user_id and c.status = 'paused' and c.pause_reason = 'out_of_funds'
    and public.ledger_balance_micro('advertiser', v_top_up.user_id) > 0;
  return json_build_object('ok', true, 'already', false, 'transaction_id', v_tx);
end $$;

revoke all on function public.top_up_credit(uuid, text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.top_up_credit(uuid, text, uuid) to service_role;

-- Staff record that a manual top-up's payment was received (migration
-- 20261207000000_advertisers), with the bank's reference: the advertiser is credited once
-- (public.top_up_credit); or cancel a request that will not be paid (`p_paid` false, with the
-- reason). Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_top_up_record(p_top_up uuid, p_paid boolean, p_reference text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_answer json;
  v_user uuid;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if coalesce(btrim(p_reference), '') = '' then
    return json_build_object('ok', false, 'error', 'reference_required');
  end if;
  select t.user_id into v_user from public.top_ups t where t.id = p_top_up;
  if v_user is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if p_paid then
    v_answer := public.top_up_credit(p_top_up, btrim(p_reference), auth.uid());
  else
    update public.top_ups t set status = 'canceled', payment_reference = btrim(p_reference), recorded_by = auth.uid()
    where t.id = p_top_up and t.status = 'requested';
    v_answer := case when found then json_build_object('ok', true, 'already', false)
                     else json_build_object('ok', false, 'error', 'not_open') end;
  end if;
  if (v_answer ->> 'ok')::boolean and not coalesce((v_answer ->> 'already')::boolean, false) then
    insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
    values (auth.uid(), case when p_paid then 'top_up.paid' else 'top_up.canceled' end, p_top_up::text, btrim(p_reference),
            jsonb_build_object('user_id', v_user, 'transaction_id', v_answer ->> 'transaction_id'));
  end if;
  return v_answer;
end $$;

revoke all on function public.staff_top_up_record(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_top_up_record(uuid, boolean, text) to authenticated;

-- Staff review a campaign sent for review (migration 20261207000000_advertisers): approved, it
-- is `scheduled` (the roll-up makes it `active` at its start, public.campaigns_advance) or, when
-- its advertiser has no funds, `paused` until a top-up; rejected, it is `rejected` with the reason
-- its advertiser reads. Its creatives are reviewed one by one (public.staff_creative_review).
-- Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_campaign_review(p_campaign uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_campaign record;
  v_status text;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select * into v_campaign from public.campaigns c where c.id = p_campaign for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_campaign.status <> 'in_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_campaign.status);
  end if;
  v_status := case when not p_approve then 'rejected'
                   when v_campaign.advertiser_id is not null and public.ledger_balance_micro('advertiser', v_campaign.advertiser_id) <= 0 then 'paused'
                   when v_campaign.starts_at <= now() then 'active'
                   else 'scheduled' end;
  update public.campaigns c set status = v_status,
    pause_reason = case when v_status = 'paused' then 'out_of_funds' end,
    rejection_reason = case when p_approve then null else btrim(p_reason) end,
    reviewed_at = now(), reviewed_by = auth.uid(), updated_at = now()
  where c.id = p_campaign;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'campaign.approved' else 'campaign.rejected' end, p_campaign::text, nullif(btrim(p_reason), ''),
          jsonb_build_object('advertiser_id', v_campaign.advertiser_id, 'status', v_status));
  return json_build_object('ok', true, 'status', v_status);
end $$;

revoke all on function public.staff_campaign_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_campaign_review(uuid, boolean, text) to authenticated;

-- Staff review a creative (migration 20261207000000_advertisers): approved, it is `active` and
-- may be served while its campaign runs; rejected, `rejected` with the reason its advertiser
-- reads (who may edit it, which sends it to review again). Only a creative in review is
-- reviewed. Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_creative_review(p_creative uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_creative record;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select cr.id, cr.status, cr.campaign_id into v_creative from public.creatives cr where cr.id = p_creative for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_creative.status <> 'in_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_creative.status);
  end if;
  update public.creatives cr set status = case when p_approve then 'active' else 'rejected' end,
    rejection_reason = case when p_approve then null else btrim(p_reason) end,
    reviewed_at = now(), reviewed_by = auth.uid(), updated_at = now()
  where cr.id = p_creative;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'creative.approved' else 'creative.rejected' end, p_creative::text, nullif(btrim(p_reason), ''),
          jsonb_build_object('campaign_id', v_creative.campaign_id));
  return json_build_object('ok', true, 'status', case when p_approve then 'active' else 'rejected' end);
end $$;

revoke all on function public.staff_creative_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_creative_review(uuid, boolean, text) to authenticated;

-- What waits for the operator on the advertisers' side (migration 20261207000000_advertisers),
-- for /ops: the manual top-ups asked for and not paid yet (to match against the payments that
-- arrive), the campaigns sent for review with all their creatives, and the creatives waiting for
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
                from (select t.id, t.invoice_number, t.amount_micro, t.rail, t.requested_at, u.email, p.company
                      from public.top_ups t join public.users u on u.id = t.user_id
                      left join public.advertiser_profiles p on p.user_id = t.user_id
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

-- The apps the caller's campaigns ran on, by name (migration 20261207000000_advertisers): "where
-- did my ads run". An advertiser reads no app under row-level security (apps are their
-- publishers'); this names only those their own campaigns' daily figures mention, nothing more
-- of them. Runs for signed-in callers only.
create or replace function public.advertiser_apps()
returns table (id uuid, name text)
language sql stable security definer set search_path = ''
as $$
  select a.id, a.name from public.apps a
  where a.id in (select s.app_id from public.campaign_daily_stats s join public.campaigns c on c.id = s.campaign_id
                 where c.advertiser_id = auth.uid())
$$;

revoke all on function public.advertiser_apps() from public, anon, sdk;
grant execute on function public.advertiser_apps() to authenticated;

-- Why a top-up of `p_amount_micro` for user `p_user` would be refused, or null when it would not
-- (migration 20261207000000_advertisers): `not_an_advertiser` without an advertiser profile;
-- `amount_out_of_range` below the published minimum (`pricing_settings.min_top_up_usd`, answered
-- as `minimum_micro`), above a million dollars or not in whole cents. The one rule for every rail:
-- public.top_up_request (an invoice), public.top_up_open_checkout and the console before it asks
-- Stripe for a session (lib/advertisers/checkout.ts).
create or replace function public.top_up_refusal(p_user uuid, p_amount_micro bigint)
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_minimum bigint;
begin
  if p_user is null or not exists (select 1 from public.advertiser_profiles p where p.user_id = p_user) then
    return json_build_object('ok', false, 'error', 'not_an_advertiser');
  end if;
  select round(s.min_top_up_usd * 1000000)::bigint into v_minimum from public.pricing_settings s;
  if p_amount_micro is null or p_amount_micro < coalesce(v_minimum, 0) or p_amount_micro > 1000000000000 or p_amount_micro % 10000 <> 0 then
    return json_build_object('ok', false, 'error', 'amount_out_of_range', 'minimum_micro', v_minimum);
  end if;
  return null;
end $$;

revoke all on function public.top_up_refusal(uuid, bigint) from public, anon, authenticated, sdk;
grant execute on function public.top_up_refusal(uuid, bigint) to service_role;

-- A top-up by Stripe Checkout (migration 20261207000000_advertisers): the `requested` top-up of
-- Checkout session `p_session` for advertiser `p_user` and `p_amount_micro`, made once per
-- session (asked again, by the console after creating the session or by the webhook that finds
-- none, it answers the same top-up). Refused as a manual one is (public.top_up_refusal). The webhook credits it (public.top_up_credit) when
-- Stripe says the session is paid. Answers `{ok, top_up_id}` or `{ok: false, error}`. Called by
-- the service only (the console's action and the webhook).
create or replace function public.top_up_open_checkout(p_user uuid, p_amount_micro bigint, p_session text)
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
  v_refusal := public.top_up_refusal(p_user, p_amount_micro);
  if v_refusal is not null then
    return v_refusal;
  end if;
  insert into public.top_ups (user_id, amount_micro, rail, status, checkout_session_id)
  values (p_user, p_amount_micro, 'stripe', 'requested', p_session)
  on conflict (checkout_session_id) do nothing
  returning id into v_id;
  if v_id is null then
    select t.id into v_id from public.top_ups t where t.checkout_session_id = p_session;
  end if;
  return json_build_object('ok', true, 'top_up_id', v_id);
end $$;

revoke all on function public.top_up_open_checkout(uuid, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_open_checkout(uuid, bigint, text) to service_role;

-- ── The advertisers' moves, checked ─────────────────────────────────────────────────────────
create trigger campaigns_guard before insert or update on public.campaigns
  for each row execute function public.campaigns_guard();
create trigger creatives_guard before insert or update on public.creatives
  for each row execute function public.creatives_guard();
