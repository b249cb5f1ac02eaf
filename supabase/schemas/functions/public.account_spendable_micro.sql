-- What user `p_user` may spend from their account of kind `p_kind` now (migration
-- 20261213000500_reversals): its balance less the card money not cleared yet
-- (public.account_card_held_micro). Campaigns pause when it is gone (public.ledger_post_ad_spend)
-- and resume only when there is some (public.campaigns_advance, public.campaigns_funds_guard); a
-- buyer's available funds are counted from it (public.buyer_funds). Micro-dollars.
create or replace function public.account_spendable_micro(p_kind text, p_user uuid)
returns bigint
language sql stable security definer set search_path = ''
as $$
  select public.ledger_balance_micro(p_kind, p_user) - public.account_card_held_micro(p_kind, p_user)
$$;

revoke all on function public.account_spendable_micro(text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.account_spendable_micro(text, uuid) to service_role;
