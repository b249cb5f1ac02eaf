-- A data buyer sets the webhook their deletion notices are sent to, or replaces its URL
-- (migration 20261211000000_deletion_webhooks). The URL arrives checked by the server (https, a
-- public host, lib/data/buyers/webhook-settings.ts) and the table checks it again. The signing
-- secret arrives sealed by the server with the data encryption key (`p_secret_ciphertext`),
-- with its masked form (`p_secret_hint`); the buyer's role can never read the sealed value back.
-- A new webhook stores the secret given; an existing one keeps its own (only rotating changes
-- it), so replacing the URL does not break the buyer's signature checks, and `secret_stored`
-- says whether the secret given is the one now in force (the console shows it only then).
-- Without a secret (null), only an existing webhook's URL is replaced. Pending deliveries go to
-- the new URL on their next attempt. Answers `{ok, id, secret_stored}`, or `{ok: false, error}`:
-- `not_a_buyer`, `no_webhook` (no secret given and none set).
create or replace function public.data_buyer_webhook_set(p_url text, p_secret_ciphertext text, p_secret_hint text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_id uuid;
  v_stored boolean := false;
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  if not exists (select 1 from public.buyer_profiles b where b.user_id = auth.uid()) then
    return json_build_object('ok', false, 'error', 'not_a_buyer');
  end if;
  if p_secret_ciphertext is not null and p_secret_hint is not null then
    insert into public.data_buyer_webhooks as w (buyer_id, url, secret_ciphertext, secret_hint)
    values (auth.uid(), p_url, p_secret_ciphertext, p_secret_hint)
    on conflict (buyer_id) do update set url = excluded.url, updated_at = now()
    returning w.id, w.secret_ciphertext = p_secret_ciphertext into v_id, v_stored;
  else
    update public.data_buyer_webhooks w set url = p_url, updated_at = now()
    where w.buyer_id = auth.uid()
    returning w.id into v_id;
    if v_id is null then
      return json_build_object('ok', false, 'error', 'no_webhook');
    end if;
  end if;
  return json_build_object('ok', true, 'id', v_id, 'secret_stored', v_stored);
end $$;

revoke all on function public.data_buyer_webhook_set(text, text, text) from public, anon, sdk, service_role;
grant execute on function public.data_buyer_webhook_set(text, text, text) to authenticated;
