-- Money that can be taken back (issue 39, finding 5). A card top-up was final for us and not for
-- the payer: Stripe's signed `charge.refunded`, `charge.dispute.created` and
-- `checkout.session.async_payment_failed` were answered "ignored", so a stolen card bought a
-- license downloadable in seconds, or impressions credited to a publisher at once.
--
-- * A reversal is a ledger transaction of its own kind, `top_up_reversal`: what was taken back
--   leaves the account the top-up funded (its balance may go below zero) for `payments_in`, once
--   per reference (`<top-up>:refund:<refunded total>`, `<top-up>:dispute:<dispute>`,
--   `<top-up>:payment_failed`), never more than the top-up brought in (public.top_up_reverse).
-- * `payment_reversals` records each, the ones that moved no money too (a payment never
--   credited, or one no top-up knows), written once and never changed.
-- * The account goes on hold (`account_holds`): its campaigns pause (`payment_reversed`) and
--   start or resume nowhere (public.campaigns_funds_guard, on every writer), it buys no data
--   license and makes no download link, and it waits in the operator's queue
--   (public.staff_reversals_queue) until the operator releases it, with a reason, once its
--   balances are not below zero (public.staff_account_release, audited).
-- * A first card's spend is capped: an account whose every top-up is a card payment younger than
--   7 days may spend at most $100 of that money until then (public.account_card_held_micro,
--   public.account_spendable_micro): campaigns pause when it is spent (public.ledger_post_ad_spend)
--   and a buyer's available funds leave the rest out (public.buyer_funds).

-- ── The ledger's new kind, and a campaign paused for a reversal ─────────────────────────────
alter table public.ledger_transactions drop constraint ledger_transactions_kind_check;
alter table public.ledger_transactions add constraint ledger_transactions_kind_check
  check (kind in ('ad_revenue', 'platform_fee', 'ad_spend', 'adjustment', 'month_close', 'payout', 'payout_reversal', 'top_up', 'data_sale',
                  'data_clawback', 'top_up_reversal'));
alter table public.campaigns drop constraint campaigns_pause_reason_check;
alter table public.campaigns add constraint campaigns_pause_reason_check
  check (pause_reason in ('advertiser', 'out_of_funds', 'payment_reversed'));

-- ── Reversals and holds ─────────────────────────────────────────────────────────────────────
-- What the webhook finds a charge's top-up by.
create index top_ups_payment_reference on public.top_ups (payment_reference) where payment_reference is not null;

create table public.payment_reversals (
  id                 uuid primary key default gen_random_uuid(),
  -- Once per reference: `<top-up>:<cause>:<what>`, or `unmatched:<payment>:<cause>:<what>`.
  reference          text not null unique check (length(reference) between 1 and 600),
  cause              text not null check (cause in ('refund', 'dispute', 'payment_failed')),
  -- The rail's event that said so (the first one, when several say the same).
  event_id           text not null check (length(event_id) between 1 and 255),
  payment_reference  text check (length(payment_reference) between 1 and 300),
  session_id         text check (length(session_id) between 1 and 255),
  top_up_id          uuid references public.top_ups (id) on delete restrict,
  user_id            uuid references public.users (id) on delete restrict,
  account_kind       text check (account_kind in ('advertiser', 'buyer')),
  -- What the rail names: the charge's refunded total, the disputed amount, the failed top-up's.
  amount_micro       bigint not null check (amount_micro >= 0),
  -- What left the account (zero when nothing had been credited).
  reversed_micro     bigint not null check (reversed_micro >= 0),
  transaction_id     uuid references public.ledger_transactions (id) on delete restrict,
  created_at         timestamptz not null default now(),
  constraint payment_reversals_posted_when_moved check ((reversed_micro > 0) = (transaction_id is not null)),
  constraint payment_reversals_of_a_top_up check ((top_up_id is null) = (user_id is null) and (top_up_id is null) = (account_kind is null))
);
create index payment_reversals_top_up on public.payment_reversals (top_up_id) where top_up_id is not null;
create index payment_reversals_user on public.payment_reversals (user_id, created_at) where user_id is not null;
create index payment_reversals_payment on public.payment_reversals (payment_reference) where payment_reference is not null;
create index payment_reversals_unmoved on public.payment_reversals (created_at) where reversed_micro = 0;
revoke all on public.payment_reversals from public, anon, authenticated, sdk, service_role;
grant select on public.payment_reversals to authenticated, service_role;
alter table public.payment_reversals enable row level security;
alter table public.payment_reversals force row level security;
create policy "Users read what was taken back from them"
  on public.payment_reversals for select to authenticated using (user_id = auth.uid());
create policy "The service reads what was taken back"
  on public.payment_reversals for select to service_role using (true);
-- Written once, by public.top_up_reverse; never changed, like the ledger it stands beside.
create trigger payment_reversals_append_only before update or delete on public.payment_reversals
  for each row execute function public.ledger_refuse_change();
create trigger payment_reversals_no_truncate before truncate on public.payment_reversals
  for each statement execute function public.ledger_refuse_change();

create table public.account_holds (
  id              uuid primary key default gen_random_uuid(),
  user_id         uuid not null references public.users (id) on delete restrict,
  -- What put it on hold: the first reversal that moved money.
  cause           text not null check (cause in ('refund', 'dispute', 'payment_failed')),
  opened_at       timestamptz not null default now(),
  released_at     timestamptz,
  released_by     uuid references public.users (id) on delete set null,
  release_reason  text check (length(release_reason) between 1 and 1000),
  constraint account_holds_released_with_a_reason check ((released_at is null) = (release_reason is null))
);
create unique index account_holds_one_open_per_user on public.account_holds (user_id) where released_at is null;
revoke all on public.account_holds from public, anon, authenticated, sdk, service_role;
grant select on public.account_holds to authenticated, service_role;
alter table public.account_holds enable row level security;
alter table public.account_holds force row level security;
create policy "Users read whether their account is on hold"
  on public.account_holds for select to authenticated using (user_id = auth.uid());
create policy "The service reads the holds"
  on public.account_holds for select to service_role using (true);

-- ── Functions ───────────────────────────────────────────────────────────────────────────────

-- Whether user `p_user`'s account is on hold (migration 20261213000500_reversals): money it was
-- credited by card was taken back (a refund, a dispute, a failed asynchronous payment) and the
-- operator has not released it yet. While it is, its campaigns do not serve (public.campaigns_funds_guard),
-- it buys no data license (public.data_license_buy) and makes no download link (lib/data-buyers/downloads.ts).
-- Runs as its caller: a user sees only their own hold under row-level security.
create or replace function public.account_held(p_user uuid)
returns boolean
language sql stable set search_path = ''
as $$
  select exists (select 1 from public.account_holds h where h.user_id = p_user and h.released_at is null)
$$;

revoke all on function public.account_held(uuid) from public, anon, sdk;
grant execute on function public.account_held(uuid) to authenticated, service_role;

-- What of the card money of user `p_user`'s account of kind `p_kind` (`advertiser` or `buyer`)
-- may not be spent yet (migration 20261213000500_reversals). A card payment can be taken back
-- for weeks; an account whose every top-up is a card payment younger than 7 days (none paid by
-- transfer, none older) may spend at most $100 of it until the first one is 7 days old: the card
-- money above $100 (less what was already taken back) is held. Zero for every other account.
-- Runs as its caller (a user sees only their own top-ups); the ledger's functions ask it through
-- public.account_spendable_micro.
create or replace function public.account_card_held_micro(p_kind text, p_user uuid)
returns bigint
language sql stable set search_path = ''
as $$
  select greatest(0, coalesce(sum(t.amount_micro - coalesce((select sum(r.reversed_micro) from public.payment_reversals r
                                                               where r.top_up_id = t.id), 0)), 0) - 100000000)::bigint
  from public.top_ups t
  where t.user_id = p_user and t.account_kind = p_kind and t.status = 'paid' and t.rail = 'stripe' and t.paid_at > now() - interval '7 days'
    and not exists (select 1 from public.top_ups c
                    where c.user_id = p_user and c.account_kind = p_kind and c.status = 'paid'
                      and (c.rail <> 'stripe' or c.paid_at <= now() - interval '7 days'))
$$;

revoke all on function public.account_card_held_micro(text, uuid) from public, anon, sdk;
grant execute on function public.account_card_held_micro(text, uuid) to authenticated, service_role;

-- What user `p_user` may spend from their account of kind `p_kind` now (migration
-- 20261213000500_reversals): its balance less the card money not cleared yet
-- (public.account_card_held_micro). Campaigns pause when it is gone (public.ledger_post_ad_spend)
-- and resume only when there is some (public.campaigns_advance, public.campaigns_funds_guard); a
-- buyer's available funds are counted from it (public.buyer_funds). Micro-dollars.
create or replace function public.account_spendable_micro(p_kind text, p_user uuid)
returns bigint
language sql stable security definer set search_path = ''
as $$
  select public.ledger_balance_micro(p_kind, p_user) - public.account_card_held_micro(p_kind, p_user)
$$;

revoke all on function public.account_spendable_micro(text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.account_spendable_micro(text, uuid) to service_role;

-- A campaign starts or resumes only for an advertiser who may spend (migration
-- 20261213000500_reversals): a trigger (`campaigns_hold_and_funds`) after public.campaigns_guard on
-- every update that makes a campaign `scheduled` or `active`, whoever makes it (its advertiser
-- resuming it, review, the roll-up's clock, a top-up). On an account on hold (public.account_held:
-- money it was paid was taken back) the campaign stays `paused` (`payment_reversed`) until the
-- operator releases it (public.staff_account_release); one made `active` with nothing to spend
-- (public.account_spendable_micro: the balance, less card money not cleared yet) is `paused`
-- for want of funds. Security definer: it reads the hold and the ledger whoever writes.
create or replace function public.campaigns_funds_guard()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if public.account_held(new.advertiser_id) then
    new.status := 'paused';
    new.pause_reason := 'payment_reversed';
  elsif new.status = 'active' and public.account_spendable_micro('advertiser', new.advertiser_id) <= 0 then
    new.status := 'paused';
    new.pause_reason := 'out_of_funds';
  end if;
  return new;
end $$;

revoke all on function public.campaigns_funds_guard() from public, anon, authenticated, sdk, service_role;

-- After public.campaigns_guard (`campaigns_guard` < `campaigns_hold_and_funds`: triggers of one
-- timing fire in the order of their names), so it judges what the advertiser's move became.
create trigger campaigns_hold_and_funds before update on public.campaigns
  for each row when (new.status in ('scheduled', 'active') and new.status is distinct from old.status and new.advertiser_id is not null)
  execute function public.campaigns_funds_guard();

-- Money a card top-up brought in was taken back (migration 20261213000500_reversals): Stripe says
-- a charge was refunded (`p_cause` 'refund', `p_amount_micro` the charge's whole refunded amount
-- so far), disputed ('dispute', the disputed amount, `p_key` the dispute's id) or that an
-- asynchronous payment failed ('payment_failed', the whole top-up). The top-up is found by its
-- payment (`p_payment`, as public.top_up_credit recorded it: 'stripe:<payment intent>') or its
-- Checkout session (`p_session`), and locked, so deliveries at once take turns.
--
-- A credited top-up: one `top_up_reversal` transaction (reference `<top-up>:<cause>:<what>`: the
-- refunded total, the dispute, the session's failure) takes what is new back from the account it
-- funded into `payments_in` (a refund of 30 after a refund of 20 takes 10), never more than the
-- top-up brought in less what was taken back already; the balance may go below zero. The account
-- goes on hold (public.account_held): its campaigns pause (`payment_reversed`), it buys no data
-- and downloads nothing until the operator releases it (public.staff_account_release), and it is
-- in the operator's queue (public.staff_reversals_queue).
-- A top-up not credited (its payment never cleared) moves no money: it is canceled, so a late
-- `checkout.session.completed` credits nothing; and a payment of no top-up moves none either.
-- Both are recorded for the operator. Each reversal is a `payment_reversals` row, once per
-- reference: asked again (a webhook delivered twice, two events of one state) it changes nothing
-- and answers `repeated`. Called by the Stripe webhook (as the service); nobody else.
create or replace function public.top_up_reverse(p_cause text, p_payment text, p_session text, p_key text, p_amount_micro bigint, p_event text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_top_up record;
  v_reference text;
  v_before bigint;
  v_taken bigint;
  v_new bigint;
  v_reverse bigint := 0;
  v_tx uuid;
  v_id uuid;
  v_found uuid;
begin
  if p_cause not in ('refund', 'dispute', 'payment_failed') or (p_cause <> 'payment_failed' and p_amount_micro is null) then
    raise exception 'top_up_reverse: no such reversal' using errcode = 'invalid_parameter_value';
  end if;
  if p_session is not null then
    select t.id into v_found from public.top_ups t where t.checkout_session_id = p_session for update;
  end if;
  if v_found is null and p_payment is not null then
    select t.id into v_found from public.top_ups t where t.payment_reference = p_payment and t.rail = 'stripe'
    order by t.requested_at limit 1 for update;
  end if;
  v_reference := case p_cause when 'refund' then 'refund:' || p_amount_micro when 'dispute' then 'dispute:' || p_key else 'payment_failed' end;

  if v_found is null then
    -- A payment this service never opened a top-up for: nothing to take back.
    insert into public.payment_reversals (reference, cause, event_id, payment_reference, session_id, amount_micro, reversed_micro)
    values ('unmatched:' || coalesce(p_session, p_payment, p_event) || ':' || v_reference, p_cause, p_event, p_payment, p_session,
            coalesce(p_amount_micro, 0), 0)
    on conflict (reference) do nothing
    returning id into v_id;
    return json_build_object('ok', true, 'outcome', case when v_id is null then 'repeated' else 'unmatched' end, 'reversed_micro', 0);
  end if;

  select * into v_top_up from public.top_ups t where t.id = v_found;
  v_reference := v_top_up.id || ':' || v_reference;
  if exists (select 1 from public.payment_reversals r where r.reference = v_reference) then
    return json_build_object('ok', true, 'outcome', 'repeated', 'reversed_micro', 0);
  end if;
  select coalesce(sum(r.reversed_micro), 0), coalesce(max(r.amount_micro) filter (where r.cause = 'refund'), 0)
  into v_taken, v_before
  from public.payment_reversals r where r.top_up_id = v_top_up.id;
  -- What this event asks for beyond what was asked before: a refund's figure is the charge's total.
  v_new := case p_cause when 'refund' then greatest(p_amount_micro - v_before, 0)
                        when 'dispute' then greatest(p_amount_micro, 0)
                        else v_top_up.amount_micro end;
  if v_top_up.status = 'paid' then
    v_reverse := least(v_new, v_top_up.amount_micro - v_taken);
  elsif v_top_up.status = 'requested' then
    -- Never credited: it will not be now.
    update public.top_ups t set status = 'canceled', payment_reference = coalesce(p_payment, 'stripe:' || p_session) where t.id = v_top_up.id;
  end if;
  if v_reverse > 0 then
    v_tx := public.ledger_post('top_up_reversal', v_reference, now(),
      case p_cause when 'refund' then 'Card payment refunded' when 'dispute' then 'Card payment disputed' else 'Payment failed' end,
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account(v_top_up.account_kind, v_top_up.user_id), 'amount_micro', -v_reverse),
                        jsonb_build_object('account_id', public.ledger_account('payments_in', null), 'amount_micro', v_reverse)));
  end if;
  insert into public.payment_reversals (reference, cause, event_id, payment_reference, session_id, top_up_id, user_id, account_kind,
                                        amount_micro, reversed_micro, transaction_id)
  values (v_reference, p_cause, p_event, p_payment, p_session, v_top_up.id, v_top_up.user_id, v_top_up.account_kind,
          coalesce(p_amount_micro, v_top_up.amount_micro), v_reverse, v_tx);
  if v_reverse > 0 then
    insert into public.account_holds (user_id, cause) values (v_top_up.user_id, p_cause)
    on conflict (user_id) where released_at is null do nothing;
    update public.campaigns c set status = 'paused', pause_reason = 'payment_reversed', updated_at = now()
    where c.advertiser_id = v_top_up.user_id
      and (c.status in ('scheduled', 'active') or (c.status = 'paused' and c.pause_reason = 'out_of_funds'));
  end if;
  return json_build_object('ok', true, 'outcome', case when v_reverse > 0 then 'reversed' else 'nothing_to_reverse' end,
                           'reversed_micro', v_reverse, 'transaction_id', v_tx);
end $$;

revoke all on function public.top_up_reverse(text, text, text, text, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_reverse(text, text, text, text, bigint, text) to service_role;

-- Staff release an account put on hold because money it was paid was taken back (migration
-- 20261213000500_reversals), with the reason (what settled it: a transfer received, the dispute
-- won and recorded, an adjustment), once neither its advertising nor its data balance is below
-- zero: it buys and downloads again, and its campaigns paused for the reversal resume (active,
-- scheduled before their start, or paused for want of funds: public.campaigns_funds_guard).
-- Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_account_release(p_user uuid, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_hold record;
  v_resumed integer;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select * into v_hold from public.account_holds h where h.user_id = p_user and h.released_at is null for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_held');
  end if;
  if public.ledger_balance_micro('advertiser', p_user) < 0 or public.ledger_balance_micro('buyer', p_user) < 0 then
    return json_build_object('ok', false, 'error', 'balance_negative');
  end if;
  update public.account_holds h set released_at = now(), released_by = auth.uid(), release_reason = btrim(p_reason) where h.id = v_hold.id;
  update public.campaigns c set status = case when c.starts_at <= now() then 'active' else 'scheduled' end, pause_reason = null, updated_at = now()
  where c.advertiser_id = p_user and c.status = 'paused' and c.pause_reason = 'payment_reversed';
  get diagnostics v_resumed = row_count;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), 'account.released', p_user::text, btrim(p_reason),
          jsonb_build_object('hold_id', v_hold.id, 'held_since', v_hold.opened_at, 'campaigns', v_resumed));
  return json_build_object('ok', true, 'status', 'released');
end $$;

revoke all on function public.staff_account_release(uuid, text) from public, anon, sdk;
grant execute on function public.staff_account_release(uuid, text) to authenticated;

-- Money taken back, for /ops (migration 20261213000500_reversals): the accounts on hold, oldest
-- first, with their balances (advertising and data), what was taken back and why, and their
-- campaigns paused for it; and the reversals of the last 30 days that moved no money (a payment
-- this service never credited, or none it knows), to look into. Refused to anyone but staff
-- (public.is_staff). Amounts in micro-dollars.
create or replace function public.staff_reversals_queue(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'holds', (select coalesce(json_agg(r order by r.opened_at), '[]')
              from (select h.user_id, h.opened_at, h.cause, u.email, coalesce(a.company, b.company) as company,
                           public.ledger_balance_micro('advertiser', h.user_id) as advertiser_balance_micro,
                           public.ledger_balance_micro('buyer', h.user_id) as buyer_balance_micro,
                           (select count(*) from public.campaigns c
                            where c.advertiser_id = h.user_id and c.status = 'paused' and c.pause_reason = 'payment_reversed') as paused_campaigns,
                           (select coalesce(json_agg(x order by x.created_at), '[]')
                            from (select r.cause, r.account_kind, r.amount_micro, r.reversed_micro, r.payment_reference, r.created_at
                                  from public.payment_reversals r where r.user_id = h.user_id and r.created_at >= h.opened_at) x) as reversals
                    from public.account_holds h join public.users u on u.id = h.user_id
                    left join public.advertiser_profiles a on a.user_id = h.user_id
                    left join public.buyer_profiles b on b.user_id = h.user_id
                    where h.released_at is null
                    order by h.opened_at limit p_limit) r),
    'unmoved', (select coalesce(json_agg(r order by r.created_at desc), '[]')
                from (select r.id, r.cause, r.amount_micro, r.payment_reference, r.session_id, r.top_up_id, r.created_at, u.email
                      from public.payment_reversals r left join public.users u on u.id = r.user_id
                      where r.reversed_micro = 0 and r.created_at > now() - interval '30 days'
                      order by r.created_at desc limit p_limit) r));
end $$;

revoke all on function public.staff_reversals_queue(integer) from public, anon, sdk;
grant execute on function public.staff_reversals_queue(integer) to authenticated;

-- A top-up's money has arrived: credited once (migration 20261207000000_advertisers). One
-- `top_up` transaction (reference: the top-up's id) from `payments_in` (what came in through the
-- rails) to the account it funds (the advertiser's, or the buyer's: migration 20261209000000_data_buyers), the top-up marked `paid` with the rail's reference (the
-- operator's note of the payment, or Stripe's payment), and the advertiser's campaigns paused for
-- want of funds resumed. Asked again for a top-up already paid (a retry, a webhook delivered
-- twice), it changes nothing and answers `{ok: true, already: true}`. Called by
-- public.staff_top_up_record and by the Stripe webhook (as the service); nobody else. A payment
-- Stripe already said was refunded or disputed before any top-up knew it (migration
-- 20261213000500_reversals, public.top_up_reverse) is not credited: the top-up is canceled.
-- Campaigns resume only where the account may spend (public.campaigns_funds_guard).
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
  if exists (select 1 from public.payment_reversals r where r.payment_reference = p_reference and r.top_up_id is null) then
    update public.top_ups t set status = 'canceled', payment_reference = p_reference, recorded_by = p_by where t.id = v_top_up.id;
    return json_build_object('ok', false, 'error', 'reversed');
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

-- Campaigns move on by the clock, their budgets and their advertisers' funds (migration
-- 20261207000000_advertisers); the roll-up calls this every run (`p_now`: the clock; tests move
-- it). Approved and started, a `scheduled` campaign becomes `active` (or `paused`, out of funds,
-- when its advertiser has none); one paused because its advertiser's funds ran out
-- (public.ledger_post_ad_spend pauses them as it bills) resumes once they are back
-- (public.top_up_credit resumes them at once), funds being what may be spent now (migration
-- 20261213000500_reversals: the balance less card money not cleared yet,
-- public.account_spendable_micro; an account on hold starts nothing: public.campaigns_funds_guard); a campaign with a hard stop is `completed` at its
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
    status = case when c.advertiser_id is null or public.account_spendable_micro('advertiser', c.advertiser_id) > 0 then 'active' else 'paused' end,
    pause_reason = case when c.advertiser_id is null or public.account_spendable_micro('advertiser', c.advertiser_id) > 0 then null else 'out_of_funds' end,
    updated_at = p_now
  where c.status = 'scheduled' and c.starts_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = 'completed', completed_at = p_now, updated_at = p_now
  where c.status in ('scheduled', 'active', 'paused') and c.hard_stop and c.ends_at is not null and c.ends_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = case when c.starts_at <= p_now then 'active' else 'scheduled' end, pause_reason = null, updated_at = p_now
  where c.status = 'paused' and c.pause_reason = 'out_of_funds' and public.account_spendable_micro('advertiser', c.advertiser_id) > 0
    and not public.account_held(c.advertiser_id);
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
-- campaigns paused (`out_of_funds`; what they may spend, public.account_spendable_micro: the
-- balance less card money not cleared yet, migration 20261213000500_reversals), and each campaign whose whole budget is spent is completed.
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
                            where x.advertiser_id is not null and public.account_spendable_micro('advertiser', x.advertiser_id) <= 0);
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

-- A data buyer's funds (migration 20261209000000_data_buyers): the balance of their `buyer`
-- ledger account, what their exclusive licenses awaiting review reserve of it, and what is left
-- to spend: the balance less the reserve and less card money not cleared yet (migration
-- 20261213000500_reversals, public.account_card_held_micro), never below zero. Micro-dollars;
-- for the buyer signed in (`p_user` is theirs, or the service's choice).
create or replace function public.buyer_funds(p_user uuid)
returns json
language sql stable security definer set search_path = ''
as $$
  select json_build_object('balance_micro', b.balance, 'reserved_micro', r.reserved,
                           'available_micro', greatest(b.balance - r.reserved - b.held, least(b.balance - r.reserved, 0)))
  from (select public.ledger_balance_micro('buyer', p_user) as balance, public.account_card_held_micro('buyer', p_user) as held) b,
       (select coalesce(sum(l.price_micro), 0)::bigint as reserved from public.data_licenses l
        where l.buyer_id = p_user and l.status = 'pending_review') r
  where p_user = auth.uid() or auth.uid() is null
$$;

revoke all on function public.buyer_funds(uuid) from public, anon, sdk;
grant execute on function public.buyer_funds(uuid) to authenticated, service_role;
