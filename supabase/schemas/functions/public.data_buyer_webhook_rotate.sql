-- A data buyer replaces their webhook's signing secret (migration 20261211000000_deletion_webhooks):
-- sealed by the server as for public.data_buyer_webhook_set. The old secret stops at once:
-- every later attempt, pending retries included, is signed with the new one. Answers
-- `{ok, id}` or `{ok: false, error: 'not_found'}` (no webhook set).
create or replace function public.data_buyer_webhook_rotate(p_secret_ciphertext text, p_secret_hint text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
begin
  update public.data_buyer_webhooks w
  set secret_ciphertext = p_secret_ciphertext, secret_hint = p_secret_hint, secret_rotated_at = now(), updated_at = now()
  where w.buyer_id = auth.uid()
  returning w.id into v_id;
  if v_id is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  return json_build_object('ok', true, 'id', v_id);
end $$;

revoke all on function public.data_buyer_webhook_rotate(text, text) from public, anon, sdk, service_role;
grant execute on function public.data_buyer_webhook_rotate(text, text) to authenticated;
