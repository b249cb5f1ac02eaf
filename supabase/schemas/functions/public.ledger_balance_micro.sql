-- The balance of user `p_user`'s ledger account of kind `p_kind` (an advertiser's prepaid funds,
-- a publisher's earnings), in micro-dollars: the sum of its postings, never stored apart
-- (migration 20261207000000_advertisers). Zero for an account not opened yet. Security definer,
-- for the ledger's own functions and the service; a user reads their own postings directly.
create or replace function public.ledger_balance_micro(p_kind text, p_user uuid)
returns bigint
language sql stable security definer set search_path = ''
as $$
  select coalesce(sum(p.amount_micro), 0)::bigint
  from public.ledger_accounts a join public.ledger_postings p on p.account_id = a.id
  where a.kind = p_kind and a.user_id = p_user
$$;

revoke all on function public.ledger_balance_micro(text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_balance_micro(text, uuid) to service_role;
