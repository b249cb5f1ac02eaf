-- What of the card money of user `p_user`'s account of kind `p_kind` (`advertiser` or `buyer`)
-- may not be spent yet (migration 20261213000500_reversals). A card payment can be taken back
-- for weeks; an account whose every top-up is a card payment younger than 7 days (none paid by
-- transfer, none older) may spend at most $100 of it until the first one is 7 days old: the card
-- money above $100 (less what was already taken back) is held. Zero for every other account.
-- Runs as its caller (a user sees only their own top-ups); the ledger's functions ask it through
-- public.account_spendable_micro.
create or replace function public.account_card_held_micro(p_kind text, p_user uuid)
returns bigint
language sql stable set search_path = ''
as $$
  select greatest(0, coalesce(sum(t.amount_micro - coalesce((select sum(r.reversed_micro) from public.payment_reversals r
                                                               where r.top_up_id = t.id), 0)), 0) - 100000000)::bigint
  from public.top_ups t
  where t.user_id = p_user and t.account_kind = p_kind and t.status = 'paid' and t.rail = 'stripe' and t.paid_at > now() - interval '7 days'
    and not exists (select 1 from public.top_ups c
                    where c.user_id = p_user and c.account_kind = p_kind and c.status = 'paid'
                      and (c.rail <> 'stripe' or c.paid_at <= now() - interval '7 days'))
$$;

revoke all on function public.account_card_held_micro(text, uuid) from public, anon, sdk;
grant execute on function public.account_card_held_micro(text, uuid) to authenticated, service_role;
