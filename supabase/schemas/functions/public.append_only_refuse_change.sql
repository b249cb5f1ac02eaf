-- An append-only table (the staff audit log, migration 20261206000000_payouts): a trigger that
-- refuses every update, delete and truncate, whoever asks, the table's owner too.
create or replace function public.append_only_refuse_change()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  raise exception '% is append-only: % refused', tg_table_name, tg_op using errcode = 'insufficient_privilege';
end $$;

revoke all on function public.append_only_refuse_change() from public, anon, authenticated;
