-- Whether publisher `p_user` may request a payout now, and of how much (migration
-- 20261214000100_payout_preview): the one rule that public.payout_request applies and that
-- public.payout_preview shows the console before anyone presses "Request payout". A payout is the
-- whole of the available balance (final earnings less payouts, public.ledger_close_months) in
-- whole cents, once that reaches `min_payout_micro` and the payout method is ready. Answers
-- `{ok: true, amount_micro, available_micro, minimum_micro}`, or `{ok: false, reason,
-- available_micro, minimum_micro}` with `reason` the first of `no_method`, `method_not_ready`,
-- `below_minimum`. Runs as its caller: inside the request (security definer) it reads the
-- publisher's rows whoever they are; for a signed-in user, row-level security shows it their own
-- rows only, so asked about anyone else it finds no method and no balance.
create or replace function public.payout_eligibility(p_user uuid)
returns json
language plpgsql stable security invoker set search_path = ''
as $$
declare
  v_has_method boolean;
  v_ready boolean;
  v_available bigint;
  v_minimum bigint;
  v_amount bigint;
  v_reason text;
begin
  -- The method's columns a publisher may read (never its sealed details).
  select true, m.ready into v_has_method, v_ready from public.payout_methods m where m.user_id = p_user;
  select coalesce(sum(p.amount_micro), 0)::bigint into v_available
  from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
  where a.kind = 'publisher_available' and a.user_id = p_user;
  select s.min_payout_micro into v_minimum from public.pricing_settings s;
  v_amount := v_available - v_available % 10000;

  v_reason := case
    when v_has_method is null then 'no_method'
    when not v_ready then 'method_not_ready'
    when v_amount <= 0 or v_amount < v_minimum then 'below_minimum'
  end;
  if v_reason is not null then
    return json_build_object('ok', false, 'reason', v_reason, 'available_micro', v_available, 'minimum_micro', v_minimum);
  end if;
  return json_build_object('ok', true, 'amount_micro', v_amount, 'available_micro', v_available, 'minimum_micro', v_minimum);
end $$;

revoke all on function public.payout_eligibility(uuid) from public, anon, sdk;
grant execute on function public.payout_eligibility(uuid) to authenticated, service_role;
