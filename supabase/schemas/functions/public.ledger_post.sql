-- Writes one ledger transaction, once: of kind `p_kind`, caused by `p_reference` (what it is
-- for: `<app>:<day>` for a day's ad revenue, a payout's id), that happened at `p_occurred_at`,
-- with a reason (`p_memo`: an adjustment's, a failed payout's), and its postings
-- (`p_postings`: `[{account_id, amount_micro, app_id?, campaign_id?}]`, integers that sum to zero). A kind and
-- reference are written once: asked again (a retry, a rerun, two runs at once), it writes
-- nothing and answers null; otherwise the new transaction's id. That the postings balance is
-- checked at the commit (public.ledger_check_balanced).
create or replace function public.ledger_post(p_kind text, p_reference text, p_occurred_at timestamptz, p_memo text, p_postings jsonb)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  insert into public.ledger_transactions (kind, reference, occurred_at, memo, created_by)
  values (p_kind, p_reference, p_occurred_at, p_memo, auth.uid())
  on conflict (kind, reference) do nothing
  returning id into v_id;
  if v_id is null then
    return null;
  end if;
  insert into public.ledger_postings (transaction_id, account_id, amount_micro, app_id, campaign_id)
  select v_id, p.account_id, p.amount_micro, p.app_id, p.campaign_id
  from jsonb_to_recordset(p_postings) as p(account_id uuid, amount_micro bigint, app_id uuid, campaign_id uuid)
  where p.amount_micro <> 0;
  return v_id;
end $$;

revoke all on function public.ledger_post(text, text, timestamptz, text, jsonb) from public, anon, authenticated, sdk;
grant execute on function public.ledger_post(text, text, timestamptz, text, jsonb) to service_role;
