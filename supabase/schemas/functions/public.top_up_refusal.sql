-- Why a top-up of `p_amount_micro` for user `p_user`'s account of kind `p_account_kind` would be
-- refused, or null when it would not (migration 20261207000000_advertisers; the buyer's account,
-- migration 20261209000000_data_buyers): `not_an_advertiser` without an advertiser profile, or
-- `not_a_buyer` without a buyer profile;
-- `amount_out_of_range` below the published minimum (`pricing_settings.min_top_up_micro`, answered
-- as `minimum_micro`), above a million dollars or not in whole cents. The one rule for every rail:
-- public.top_up_request (an invoice), public.top_up_open_checkout and the console before it asks
-- Stripe for a session (lib/money/stripe/checkout.ts).
create or replace function public.top_up_refusal(p_user uuid, p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql stable security definer set search_path = ''
as $$
declare
  v_minimum bigint;
begin
  if p_account_kind = 'buyer' then
    if p_user is null or not exists (select 1 from public.buyer_profiles p where p.user_id = p_user) then
      return json_build_object('ok', false, 'error', 'not_a_buyer');
    end if;
  elsif p_account_kind is distinct from 'advertiser' or p_user is null
        or not exists (select 1 from public.advertiser_profiles p where p.user_id = p_user) then
    return json_build_object('ok', false, 'error', 'not_an_advertiser');
  end if;
  select s.min_top_up_micro into v_minimum from public.pricing_settings s;
  if p_amount_micro is null or p_amount_micro < coalesce(v_minimum, 0) or p_amount_micro > 1000000000000 or p_amount_micro % 10000 <> 0 then
    return json_build_object('ok', false, 'error', 'amount_out_of_range', 'minimum_micro', v_minimum);
  end if;
  return null;
end $$;

revoke all on function public.top_up_refusal(uuid, bigint, text) from public, anon, authenticated, sdk;
grant execute on function public.top_up_refusal(uuid, bigint, text) to service_role;
