-- Payout eligibility in one home (issue 40). Whether a payout may be requested was decided twice:
-- by public.payout_request, and again in TypeScript for the console's "Request payout" button
-- (payoutBlocker, lib/money/payouts/publisher.ts), which read the minimum from the server's cached
-- prices and restated the checks and their order. Now one function decides,
-- public.payout_eligibility (the method, its readiness, the available balance in whole cents
-- against the minimum); the request applies it under its locks, and public.payout_preview answers
-- the console, as the signed-in user, what the request would answer now: the same codes and facts.
-- Nothing else changes: the request answers what it answered, in the same shape.

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
  select round(s.min_payout_usd * 1000000)::bigint into v_minimum from public.pricing_settings s;
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

  insert into public.payouts (user_id, period, amount_usd, status, requested_at, rail, destination, status_changed_at)
  values (p_user, v_period, v_amount / 1000000.0, 'pending', p_now, v_method.rail, v_method.masked, p_now)
  returning id into v_id;
  perform public.ledger_post('payout', v_id::text, p_now, null,
    jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher_available', p_user), 'amount_micro', -v_amount),
                      jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', v_amount)));
  return json_build_object('ok', true, 'payout_id', v_id, 'amount_micro', v_amount);
end $$;

revoke all on function public.payout_request(uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_request(uuid, timestamptz) to service_role;
