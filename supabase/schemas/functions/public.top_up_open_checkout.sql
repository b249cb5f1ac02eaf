-- A top-up by Stripe Checkout (migration 20261207000000_advertisers): the `requested` top-up of
-- Checkout session `p_session` for advertiser `p_user` (or the buyer account, `p_account_kind`) and `p_amount_micro`, made once per
-- session (asked again, by the console after creating the session or by the webhook that finds
-- none, it answers the same top-up). Refused as a manual one is (public.top_up_refusal). The webhook credits it (public.top_up_credit) when
-- Stripe says the session is paid. Answers `{ok, top_up_id}` or `{ok: false, error}`. Called by
-- the service only (the console's action and the webhook).
create or replace function public.top_up_open_checkout(p_user uuid, p_amount_micro bigint, p_session text, p_account_kind text default 'advertiser')
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_refusal json;
  v_id uuid;
begin
  select t.id into v_id from public.top_ups t where t.checkout_session_id = p_session;
  if v_id is not null then
    return json_build_object('ok', true, 'top_up_id', v_id);
  end if;
  v_refusal := public.top_up_refusal(p_user, p_amount_micro, p_account_kind);
  if v_refusal is not null then
    return v_refusal;
  end if;
  insert into public.top_ups (user_id, amount_micro, rail, status, checkout_session_id, account_kind)
  values (p_user, p_amount_micro, 'stripe', 'requested', p_session, p_account_kind)
  on conflict (checkout_session_id) do nothing
  returning id into v_id;
  if v_id is null then
    select t.id into v_id from public.top_ups t where t.checkout_session_id = p_session;
  end if;
  return json_build_object('ok', true, 'top_up_id', v_id);
end $$;

revoke all on function public.top_up_open_checkout(uuid, bigint, text, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_open_checkout(uuid, bigint, text, text) to service_role;
