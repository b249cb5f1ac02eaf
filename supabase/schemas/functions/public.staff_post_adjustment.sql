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
