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
