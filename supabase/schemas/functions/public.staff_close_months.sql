-- Staff close the months that are due now (migration 20261206000000_payouts), without waiting for
-- the roll-up's next run: public.ledger_close_months, which closes nothing before a month's final
-- day and nothing twice. Refused to anyone but staff (public.is_staff); audited with how many
-- months it closed.
create or replace function public.staff_close_months(p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_closed integer;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  v_closed := public.ledger_close_months(now(), auth.uid());
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), 'ledger.close_months', null, nullif(btrim(coalesce(p_why, '')), ''), jsonb_build_object('closed', v_closed));
  return json_build_object('ok', true, 'closed', v_closed);
end $$;

revoke all on function public.staff_close_months(text) from public, anon, sdk;
grant execute on function public.staff_close_months(text) to authenticated;
