-- A payout's next status (migration 20261206000000_payouts), by `p_by` at `p_now`: one that
-- public.payout_next_statuses lists for the payout's status (migration
-- 20261214000300_payout_marks: the one list of a payout's moves). `paid` needs the rail's
-- reference (the bank transfer's, Stripe's transfer id) and sets `paid_at`; `failed` needs a
-- reason, shown to the publisher. A failed or canceled payout's amount returns to the
-- publisher's available balance in a `payout_reversal` transaction (reference the payout's id),
-- in the same database transaction. Asked again for the status the payout already has (a
-- retry), it changes nothing and answers ok. Answers `{ok: true, status}` or `{ok: false, error,
-- status}` with `error` one of `not_found`, `invalid_transition`, `reference_required`,
-- `reason_required`. Internal: publishers call public.cancel_payout, staff
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
  if not coalesce(p_status = any(public.payout_next_statuses(v.status)), false) then
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
    v_micro := v.amount_micro;
    perform public.ledger_post('payout_reversal', v.id::text, p_now, coalesce(nullif(btrim(p_reason), ''), 'canceled before it was sent'),
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', -v_micro),
                        jsonb_build_object('account_id', public.ledger_account('publisher_available', v.user_id), 'amount_micro', v_micro)));
  end if;
  return json_build_object('ok', true, 'status', p_status);
end $$;

revoke all on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) to service_role;
