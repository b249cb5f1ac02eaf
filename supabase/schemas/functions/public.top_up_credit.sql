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
