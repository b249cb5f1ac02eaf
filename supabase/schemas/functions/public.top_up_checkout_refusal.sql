-- Why a card top-up (a Stripe Checkout session) of `p_amount_micro` for user `p_user`'s account of
-- kind `p_account_kind` would be refused, or null (migration 20261213000700_bounded_storage):
-- the rule of every rail (public.top_up_refusal), then `too_many_open_checkouts` when the account
-- has 5 card top-ups opened in the last 24 hours and not paid (a session lasts at most 24 hours at
-- Stripe; ADVERTISER_LIMITS in lib/ads/advertisers/schemas.ts). Asked by the console before Stripe is
-- called (lib/money/stripe/checkout.ts), never by the webhook: a session paid is credited whatever
-- this says.
create or replace function public.top_up_checkout_refusal(p_user uuid, p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_refusal json := public.top_up_refusal(p_user, p_amount_micro, p_account_kind);
begin
  if v_refusal is not null then
    return v_refusal;
  end if;
  if (select count(*) from public.top_ups t
      where t.user_id = p_user and t.account_kind = p_account_kind and t.rail = 'stripe' and t.status = 'requested'
        and t.requested_at > now() - interval '24 hours') >= 5 then
    return json_build_object('ok', false, 'error', 'too_many_open_checkouts', 'limit', 5);
  end if;
  return null;
end $$;

revoke all on function public.top_up_checkout_refusal(uuid, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_checkout_refusal(uuid, bigint, text) to service_role;
