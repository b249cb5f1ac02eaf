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
