-- Payout methods on Stripe Connect (migration 20261206000000_payouts), written by the server as
-- the service role, never by the publisher: when it creates the publisher's Express account
-- (`p_user` given: the method becomes that account, not ready until Stripe says so), and when
-- Stripe's `account.updated` webhook says whether the account can receive payouts (`p_user`
-- null: found by its account id; an unknown account changes nothing). Answers whether a method
-- changed.
create or replace function public.payout_method_set_stripe(p_user uuid, p_account_id text, p_masked text, p_ready boolean, p_note text)
returns boolean
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if p_user is not null then
    insert into public.payout_methods as m (user_id, rail, details_ciphertext, masked, stripe_account_id, ready, status_note, updated_at)
    values (p_user, 'stripe', null, p_masked, p_account_id, coalesce(p_ready, false), p_note, now())
    on conflict (user_id) do update set rail = 'stripe', details_ciphertext = null, masked = excluded.masked,
                                        stripe_account_id = excluded.stripe_account_id, ready = excluded.ready,
                                        status_note = excluded.status_note, updated_at = now();
    return true;
  end if;
  update public.payout_methods m set ready = coalesce(p_ready, false), status_note = p_note, updated_at = now()
  where m.stripe_account_id = p_account_id and m.rail = 'stripe';
  return found;
end $$;

revoke all on function public.payout_method_set_stripe(uuid, text, text, boolean, text) from public, anon, authenticated, sdk;
grant execute on function public.payout_method_set_stripe(uuid, text, text, boolean, text) to service_role;
