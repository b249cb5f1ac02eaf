-- The ledger account of kind `p_kind` of user `p_user_id` (created the first time it is asked
-- for), or the platform's account of that kind when `p_user_id` is null. Security definer: the
-- ledger's tables are written by its functions only (migration 20261204000000_ledger).
create or replace function public.ledger_account(p_kind text, p_user_id uuid)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  if p_user_id is null then
    select a.id into v_id from public.ledger_accounts a where a.kind = p_kind and a.user_id is null;
    if v_id is null then
      raise exception 'no platform ledger account of kind %', p_kind using errcode = 'no_data_found';
    end if;
    return v_id;
  end if;
  insert into public.ledger_accounts (kind, user_id) values (p_kind, p_user_id) on conflict do nothing;
  select a.id into v_id from public.ledger_accounts a where a.kind = p_kind and a.user_id = p_user_id;
  return v_id;
end $$;

revoke all on function public.ledger_account(text, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_account(text, uuid) to service_role;
