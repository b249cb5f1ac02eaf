-- What the operator console (/ops) shows (migration 20261206000000_payouts): the ledger's
-- balances (each platform account, and each publisher's earned and available balances), the
-- payouts (those to send first, then the latest; each with the statuses it may be marked with
-- next, public.payout_next_statuses), the month closes and the latest audit entries.
-- Staff read it through this function, not through policies on the tables: the account reads
-- (public.account_earnings and the others) rely on row-level security alone to keep a caller to
-- their own rows, and a staff policy on those tables would widen them. Refused to anyone but staff
-- (public.is_staff). Amounts in micro-dollars.
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
                from (select o.id, o.user_id, u.email, o.period, o.amount_micro, o.status,
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
