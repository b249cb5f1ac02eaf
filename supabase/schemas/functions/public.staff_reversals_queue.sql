-- Money taken back, for /ops (migration 20261213000500_reversals): the accounts on hold, oldest
-- first, with their balances (advertising and data), what was taken back and why, and their
-- campaigns paused for it; and the reversals of the last 30 days that moved no money (a payment
-- this service never credited, or none it knows), to look into. Refused to anyone but staff
-- (public.is_staff). Amounts in micro-dollars.
create or replace function public.staff_reversals_queue(p_limit integer default 50)
returns json
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  return json_build_object(
    'holds', (select coalesce(json_agg(r order by r.opened_at), '[]')
              from (select h.user_id, h.opened_at, h.cause, u.email, coalesce(a.company, b.company) as company,
                           public.ledger_balance_micro('advertiser', h.user_id) as advertiser_balance_micro,
                           public.ledger_balance_micro('buyer', h.user_id) as buyer_balance_micro,
                           (select count(*) from public.campaigns c
                            where c.advertiser_id = h.user_id and c.status = 'paused' and c.pause_reason = 'payment_reversed') as paused_campaigns,
                           (select coalesce(json_agg(x order by x.created_at), '[]')
                            from (select r.cause, r.account_kind, r.amount_micro, r.reversed_micro, r.payment_reference, r.created_at
                                  from public.payment_reversals r where r.user_id = h.user_id and r.created_at >= h.opened_at) x) as reversals
                    from public.account_holds h join public.users u on u.id = h.user_id
                    left join public.advertiser_profiles a on a.user_id = h.user_id
                    left join public.buyer_profiles b on b.user_id = h.user_id
                    where h.released_at is null
                    order by h.opened_at limit p_limit) r),
    'unmoved', (select coalesce(json_agg(r order by r.created_at desc), '[]')
                from (select r.id, r.cause, r.amount_micro, r.payment_reference, r.session_id, r.top_up_id, r.created_at, u.email
                      from public.payment_reversals r left join public.users u on u.id = r.user_id
                      where r.reversed_micro = 0 and r.created_at > now() - interval '30 days'
                      order by r.created_at desc limit p_limit) r));
end $$;

revoke all on function public.staff_reversals_queue(integer) from public, anon, sdk;
grant execute on function public.staff_reversals_queue(integer) to authenticated;
