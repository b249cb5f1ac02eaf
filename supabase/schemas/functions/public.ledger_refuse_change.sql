-- The ledger is append-only (migration 20261204000000_ledger): a trigger on its tables that
-- refuses every update, delete and truncate, whoever asks, the tables' owner too (the privileges
-- are revoked from every role as well). A correction is a new transaction.
create or replace function public.ledger_refuse_change()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception 'the ledger is append-only: % on % refused; a correction is a new transaction', tg_op, tg_table_name
    using errcode = 'insufficient_privilege';
end $$;

revoke all on function public.ledger_refuse_change() from public, anon, authenticated;
