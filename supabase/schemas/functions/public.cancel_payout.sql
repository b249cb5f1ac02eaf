-- A publisher cancels their own payout while it is pending (migration 20261206000000_payouts):
-- its amount returns to their available balance (public.payout_transition). Another's payout is
-- `not_found`, as one that does not exist; one being sent is `invalid_transition`.
create or replace function public.cancel_payout(p_payout uuid)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  if not exists (select 1 from public.payouts o where o.id = p_payout and o.user_id = auth.uid()) then
    return json_build_object('ok', false, 'error', 'not_found', 'status', null);
  end if;
  return public.payout_transition(p_payout, 'canceled', null, null, auth.uid(), now());
end $$;

revoke all on function public.cancel_payout(uuid) from public, anon, sdk;
grant execute on function public.cancel_payout(uuid) to authenticated;
