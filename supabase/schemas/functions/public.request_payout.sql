-- The console's "Request payout" (migration 20261206000000_payouts): the caller's payout request,
-- now (public.payout_request says what it checks and answers).
create or replace function public.request_payout()
returns json
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  return public.payout_request(auth.uid(), now());
end $$;

revoke all on function public.request_payout() from public, anon, sdk;
grant execute on function public.request_payout() to authenticated;
