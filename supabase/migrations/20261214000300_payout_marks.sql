-- Payout marks in one home (issue 40). Which status a payout may move to was written in
-- public.payout_transition, and again in TypeScript: the operator console's form refused a `paid`
-- without a reference and a `failed` without a reason before asking (public.payout_transition
-- refuses both), sending a payout with Stripe checked its status itself, and the console showed
-- "Mark processing" and "Cancel" for a pending payout only. Now public.payout_next_statuses is
-- the one list of a payout's moves: public.payout_transition refuses any other (as before), and
-- public.staff_overview answers each payout's next statuses (`next`) and whether it is still open
-- from it, so the console offers what the database would accept and says its answers.

create or replace function public.payout_next_statuses(p_status text)
returns text[]
language sql immutable set search_path = ''
as $$
  select case p_status
    when 'pending' then array['processing', 'paid', 'failed', 'canceled']
    when 'processing' then array['paid', 'failed']
    else array[]::text[]
  end
$$;

revoke all on function public.payout_next_statuses(text) from public, anon, authenticated, sdk;
grant execute on function public.payout_next_statuses(text) to service_role;

create or replace function public.payout_transition(p_payout uuid, p_status text, p_reference text, p_reason text, p_by uuid,
                                                    p_now timestamptz default now())
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v public.payouts;
  v_micro bigint;
begin
  select * into v from public.payouts o where o.id = p_payout for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found', 'status', null);
  end if;
  if v.status = p_status then
    return json_build_object('ok', true, 'status', v.status);
  end if;
  if not coalesce(p_status = any(public.payout_next_statuses(v.status)), false) then
    return json_build_object('ok', false, 'error', 'invalid_transition', 'status', v.status);
  end if;
  if p_status = 'paid' and coalesce(btrim(p_reference), '') = '' then
    return json_build_object('ok', false, 'error', 'reference_required', 'status', v.status);
  end if;
  if p_status = 'failed' and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required', 'status', v.status);
  end if;

  update public.payouts o set
    status = p_status,
    paid_at = case when p_status = 'paid' then p_now end,
    reference = coalesce(nullif(btrim(p_reference), ''), o.reference),
    failure_reason = case when p_status = 'failed' then btrim(p_reason) end,
    status_changed_at = p_now,
    status_changed_by = p_by
  where o.id = p_payout;

  if p_status in ('failed', 'canceled') then
    v_micro := round(v.amount_usd * 1000000)::bigint;
    perform public.ledger_post('payout_reversal', v.id::text, p_now, coalesce(nullif(btrim(p_reason), ''), 'canceled before it was sent'),
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('payouts', null), 'amount_micro', -v_micro),
                        jsonb_build_object('account_id', public.ledger_account('publisher_available', v.user_id), 'amount_micro', v_micro)));
  end if;
  return json_build_object('ok', true, 'status', p_status);
end $$;

revoke all on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.payout_transition(uuid, text, text, text, uuid, timestamptz) to service_role;

create or replace function public.staff_overview(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'platform', (select coalesce(json_agg(r order by r.kind), '[]')
                 from (select a.kind, coalesce(sum(p.amount_micro), 0)::bigint as balance_micro
                       from public.ledger_accounts a left join public.ledger_postings p on p.account_id = a.id
                       where a.user_id is null group by a.kind) r),
    'publishers', (select coalesce(json_agg(r order by r.email), '[]')
                   from (select u.id as user_id, u.email, u.name,
                                coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher'), 0)::bigint as pending_micro,
                                coalesce(sum(p.amount_micro) filter (where a.kind = 'publisher_available'), 0)::bigint as available_micro,
                                m.rail, m.masked as destination, coalesce(m.ready, false) as method_ready
                         from public.users u
                         join public.ledger_accounts a on a.user_id = u.id and a.kind in ('publisher', 'publisher_available')
                         left join public.ledger_postings p on p.account_id = a.id
                         left join public.payout_methods m on m.user_id = u.id
                         group by u.id, u.email, u.name, m.rail, m.masked, m.ready) r),
    'payouts', (select coalesce(json_agg(r order by r.open desc, r.requested_at desc), '[]')
                from (select o.id, o.user_id, u.email, o.period, round(o.amount_usd * 1000000)::bigint as amount_micro, o.status,
                             o.rail, o.destination, o.reference, o.failure_reason, o.requested_at, o.paid_at, o.status_changed_at,
                             cardinality(public.payout_next_statuses(o.status)) > 0 as open, public.payout_next_statuses(o.status) as next
                      from public.payouts o join public.users u on u.id = o.user_id
                      order by cardinality(public.payout_next_statuses(o.status)) > 0 desc, o.requested_at desc
                      limit greatest(p_limit, 0)) r),
    'months', (select coalesce(json_agg(r order by r.month desc), '[]')
               from (select c.month, c.closed_at, c.publishers, c.amount_micro, c.closed_by
                     from public.ledger_month_closes c order by c.month desc limit 24) r),
    'audit', (select coalesce(json_agg(r order by r.id desc), '[]')
              from (select l.id, l.at, u.email as staff, l.action, l.subject, l.reason, l.details
                    from public.staff_audit_log l left join public.users u on u.id = l.staff_user_id
                    order by l.id desc limit greatest(p_limit, 0)) r));
end $$;

revoke all on function public.staff_overview(integer) from public, anon, sdk;
grant execute on function public.staff_overview(integer) to authenticated;
