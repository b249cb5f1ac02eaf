-- A payout request of publisher `p_user` (migration 20261206000000_payouts), at `p_now`: the whole
-- of their available balance in whole cents, when public.payout_eligibility (the one rule, which
-- public.payout_preview shows the console) allows it. One request of a publisher at a time (an
-- advisory lock), so two at once never pay twice: the second finds the balance the first took;
-- and their payout method is locked until the payout is written, so the method the rule judged
-- ready is the one the payout goes to. (A payout still being sent does not stop the next
-- month's: each takes what is available when it is requested.) The payout row and its
-- ledger transaction (kind `payout`, reference the payout's id: out of `publisher_available`, into
-- the platform's `payouts` account) are written together, so the balance never goes negative.
-- Answers `{ok: true, payout_id, amount_micro}`, or the rule's refusal `{ok: false, reason,
-- available_micro, minimum_micro}` with `reason` one of `no_method`, `method_not_ready`,
-- `below_minimum`. The period is the months the payout covers: the closed months since the last
-- payout that was not failed or canceled (`YYYY-MM`, or `YYYY-MM/YYYY-MM` for several).
-- Internal: the publisher calls public.request_payout; the seed calls this with its own clock.
create or replace function public.payout_request(p_user uuid, p_now timestamptz default now())
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_method public.payout_methods;
  v_judged json;
  v_amount bigint;
  v_after date;
  v_first date;
  v_last date;
  v_period text;
  v_id uuid;
begin
  perform pg_advisory_xact_lock(hashtextextended('payout:' || p_user, 0));
  select * into v_method from public.payout_methods m where m.user_id = p_user for share;
  v_judged := public.payout_eligibility(p_user);
  if not (v_judged ->> 'ok')::boolean then
    return v_judged;
  end if;
  v_amount := (v_judged ->> 'amount_micro')::bigint;

  -- The months it covers: from the first closed month after the last payout that stands.
  select max(to_date(split_part(o.period, '/', -1), 'YYYY-MM')) into v_after
  from public.payouts o where o.user_id = p_user and o.status in ('pending', 'processing', 'paid');
  select min(to_date(split_part(t.reference, ':', 2), 'YYYY-MM')), max(to_date(split_part(t.reference, ':', 2), 'YYYY-MM'))
  into v_first, v_last
  from public.ledger_transactions t
  where t.kind = 'month_close' and t.reference like p_user || ':%'
    and (v_after is null or to_date(split_part(t.reference, ':', 2), 'YYYY-MM') > v_after);
  v_last := coalesce(v_last, (date_trunc('month', p_now at time zone 'UTC') - interval '1 month')::date);
  v_first := coalesce(v_first, v_last);
  v_period := to_char(v_first, 'YYYY-MM') || case when v_first < v_last then '/' || to_char(v_last, 'YYYY-MM') else '' end;

  insert into public.payouts (user_id, period, amount_micro, status, requested_at, rail, destination, status_changed_at)
  values (p_user, v_period, v_amount, 'pending', p_now, v_method.rail, v_method.masked, p_now)
  returning id into v_id;
  perform public.ledger_post('payout', v_id::text, p_now, null,
    jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher_available', p_user), 'amount_micro', -v_amount),
                      jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', v_amount)));
  return json_build_object('ok', true, 'payout_id', v_id, 'amount_micro', v_amount);
end $$;

revoke all on function public.payout_request(uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_request(uuid, timestamptz) to service_role;
