-- A ledger transaction balances (migration 20261204000000_ledger): at the commit of the database
-- transaction that wrote it (a deferred constraint trigger on `ledger_postings` and on
-- `ledger_transactions`), its postings sum to zero and there are at least two of them. Security
-- definer (migration 20261206000000_payouts): a deferred trigger runs as whoever commits, and a
-- publisher requesting a payout commits a transaction whose other posting is on a platform
-- account their row-level security hides; the check must see every posting.
create or replace function public.ledger_check_balanced()
returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  -- The column that names the transaction: the trigger's argument (`transaction_id` or `id`).
  v_transaction uuid := (to_jsonb(new) ->> tg_argv[0])::uuid;
  v_sum numeric;
  v_count integer;
begin
  select coalesce(sum(p.amount_micro), 0), count(*) into v_sum, v_count
  from public.ledger_postings p where p.transaction_id = v_transaction;
  if v_sum <> 0 or v_count < 2 then
    raise exception 'ledger transaction % does not balance: % postings summing to % micro-dollars', v_transaction, v_count, v_sum
      using errcode = 'check_violation';
  end if;
  return null;
end $$;

revoke all on function public.ledger_check_balanced() from public, anon, authenticated;
