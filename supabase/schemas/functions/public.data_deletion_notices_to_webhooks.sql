-- Queues a deletion notice for the buyer's webhook (migration 20261211000000_deletion_webhooks):
-- statement-level, after notices are written (public.data_records_erase, in the withdrawal's
-- transaction), one delivery per new notice whose buyer has a webhook, pending at once. So a
-- notice and its delivery commit together or not at all, and the delivery worker
-- (lib/data/buyers/webhooks.ts) never misses one nor sends one for a notice rolled back. A
-- webhook being removed at that moment (its row locked by public.data_buyer_webhook_remove) is
-- skipped rather than waited for: the withdrawal never fails or stalls because of a buyer's
-- webhook, and the notice stays in the console, which is the record.
create or replace function public.data_deletion_notices_to_webhooks()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  insert into public.data_deletion_deliveries (notice_id, buyer_id, webhook_id)
  select a.id, a.buyer_id, w.id
  from added a join public.data_buyer_webhooks w on w.buyer_id = a.buyer_id
  for key share of w skip locked;
  return null;
end $$;

revoke all on function public.data_deletion_notices_to_webhooks() from public, anon, authenticated, sdk, service_role;
