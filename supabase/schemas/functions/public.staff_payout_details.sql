-- What staff need to send a payout (migration 20261206000000_payouts): the payout's amount,
-- status and rail, and the publisher's payout method on that rail: the bank details, still
-- encrypted (the server opens them, lib/money/payouts/staff.ts), or the Stripe account. Refused to anyone but staff (public.is_staff); every look is in the
-- audit log, with why. Answers null for an unknown payout.
create or replace function public.staff_payout_details(p_payout uuid, p_why text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_answer json;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  select json_build_object('payout_id', o.id, 'email', u.email, 'amount_micro', o.amount_micro, 'status', o.status,
                           'rail', o.rail, 'masked', m.masked,
                           -- The method's details when it is still the rail the payout was requested on.
                           'details_ciphertext', case when m.rail = o.rail then m.details_ciphertext end,
                           'stripe_account_id', case when m.rail = o.rail then m.stripe_account_id end)
  into v_answer
  from public.payouts o join public.users u on u.id = o.user_id left join public.payout_methods m on m.user_id = o.user_id
  where o.id = p_payout;
  if v_answer is not null then
    insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
    values (auth.uid(), 'payout.details_viewed', p_payout::text, nullif(btrim(coalesce(p_why, '')), ''), '{}');
  end if;
  return v_answer;
end $$;

revoke all on function public.staff_payout_details(uuid, text) from public, anon, sdk;
grant execute on function public.staff_payout_details(uuid, text) to authenticated;
