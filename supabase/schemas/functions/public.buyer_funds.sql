-- A data buyer's funds (migration 20261209000000_data_buyers): the balance of their `buyer`
-- ledger account, what their exclusive licenses awaiting review reserve of it, and what is left
-- to spend: the balance less the reserve and less card money not cleared yet (migration
-- 20261213000500_reversals, public.account_card_held_micro), never below zero. Micro-dollars;
-- for the buyer signed in (`p_user` is theirs, or the service's choice).
create or replace function public.buyer_funds(p_user uuid)
returns json
language sql stable security definer set search_path = ''
as $$
  select json_build_object('balance_micro', b.balance, 'reserved_micro', r.reserved,
                           'available_micro', greatest(b.balance - r.reserved - b.held, least(b.balance - r.reserved, 0)))
  from (select public.ledger_balance_micro('buyer', p_user) as balance, public.account_card_held_micro('buyer', p_user) as held) b,
       (select coalesce(sum(l.price_micro), 0)::bigint as reserved from public.data_licenses l
        where l.buyer_id = p_user and l.status = 'pending_review') r
  where p_user = auth.uid() or auth.uid() is null
$$;

revoke all on function public.buyer_funds(uuid) from public, anon, sdk;
grant execute on function public.buyer_funds(uuid) to authenticated, service_role;
