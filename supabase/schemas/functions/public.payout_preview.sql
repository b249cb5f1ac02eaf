-- What "Request payout" would answer the caller now, without requesting it (migration
-- 20261214000100_payout_preview): public.payout_eligibility, the rule public.payout_request
-- applies, for the signed-in user, so the console says why before anyone presses the button and
-- never restates the rule. Runs as the caller, under row-level security; reads only.
create or replace function public.payout_preview()
returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  return public.payout_eligibility(auth.uid());
end $$;

revoke all on function public.payout_preview() from public, anon, sdk;
grant execute on function public.payout_preview() to authenticated;
