-- Staff review an exclusive license awaiting it (migration 20261209000000_data_buyers). Approved:
-- charged as a standard sale is (public.data_license_grant), active for its term from now, its
-- records held for that term and marked sold, its export queued. The approval is its sale: its
-- claw-back window (`clawback_until`) counts from the charge, for the `data_clawback_days` in
-- force then, and stays so whatever the setting becomes (migration
-- 20261213001200_clawback_window_per_license), as its revenue share is the one in force then. Refused when the buyer's balance no longer covers
-- it (`insufficient_funds`: the reservation should make that impossible; the check stays), and
-- while the buyer's account is on hold (`account_on_hold`).
-- Rejected: `rejected` with the reason the buyer reads, its records released, nothing charged.
-- Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_data_license_review(p_license uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_license record;
  v_tx uuid;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select * into v_license from public.data_licenses l where l.id = p_license for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_license.status <> 'pending_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_license.status);
  end if;
  if p_approve then
    -- A buyer whose card money was taken back is on hold (migration 20261213000500_reversals):
    -- nothing is sold to them until the operator releases the account.
    if exists (select 1 from public.account_holds h where h.user_id = v_license.buyer_id and h.released_at is null) then
      return json_build_object('ok', false, 'error', 'account_on_hold');
    end if;
    if public.ledger_balance_micro('buyer', v_license.buyer_id) < v_license.price_micro then
      return json_build_object('ok', false, 'error', 'insufficient_funds');
    end if;
    v_tx := public.data_license_grant(v_license.id, v_license.buyer_id, v_license.listing, v_license.price_micro);
    update public.data_licenses l set status = 'active', starts_at = now(), expires_at = now() + make_interval(days => l.term_days),
      transaction_id = v_tx, clawback_until = now() + make_interval(days => (select s.data_clawback_days from public.pricing_settings s)),
      reviewed_at = now(), reviewed_by = auth.uid()
    where l.id = v_license.id;
    update public.data_records r set exclusive_until = now() + make_interval(days => v_license.term_days), status = 'sold'
    where r.exclusive_license_id = v_license.id;
    insert into public.data_exports (license_id) values (v_license.id);
  else
    update public.data_licenses l set status = 'rejected', rejection_reason = btrim(p_reason), reviewed_at = now(), reviewed_by = auth.uid()
    where l.id = v_license.id;
    update public.data_records r set exclusive_license_id = null, exclusive_until = null where r.exclusive_license_id = v_license.id;
  end if;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'data_license.approved' else 'data_license.rejected' end, v_license.id::text,
          nullif(btrim(p_reason), ''), jsonb_build_object('buyer_id', v_license.buyer_id, 'price_micro', v_license.price_micro));
  return json_build_object('ok', true, 'status', case when p_approve then 'active' else 'rejected' end);
end $$;

revoke all on function public.staff_data_license_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_data_license_review(uuid, boolean, text) to authenticated;
