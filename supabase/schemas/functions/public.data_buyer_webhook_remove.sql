-- A data buyer removes their webhook (migration 20261211000000_deletion_webhooks): its sealed
-- secret is deleted with it, and the notices still waiting to be delivered to it end `failed`,
-- saying why (the console remains their record). The webhook's row is locked first, so a
-- withdrawal writing a notice at this moment either queued its delivery before (and it is
-- failed here) or skips this webhook (public.data_deletion_notices_to_webhooks). Answers
-- `{ok, failed}` (how many pending deliveries ended) or `{ok: false, error: 'not_found'}`.
create or replace function public.data_buyer_webhook_remove()
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
  v_failed integer;
begin
  select w.id into v_id from public.data_buyer_webhooks w where w.buyer_id = auth.uid() for update;
  if v_id is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  update public.data_deletion_deliveries d
  set status = 'failed', leased_until = null, last_error = 'The webhook was removed before this notice was delivered.'
  where d.webhook_id = v_id and d.status = 'pending';
  get diagnostics v_failed = row_count;
  delete from public.data_buyer_webhooks w where w.id = v_id;
  return json_build_object('ok', true, 'failed', v_failed);
end $$;

revoke all on function public.data_buyer_webhook_remove() from public, anon, sdk, service_role;
grant execute on function public.data_buyer_webhook_remove() to authenticated;
