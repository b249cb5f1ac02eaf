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
