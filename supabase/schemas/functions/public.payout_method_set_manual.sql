-- The caller's payout method becomes the manual rail (migration 20261206000000_payouts): the
-- operator sends the money to the details the publisher gave, which arrive here already
-- encrypted by the server (`p_ciphertext`, lib/money/payouts/details.ts) with the masked form shown to
-- the publisher and to staff (`p_masked`). Ready at once.
create or replace function public.payout_method_set_manual(p_ciphertext text, p_masked text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'no user' using errcode = 'insufficient_privilege';
  end if;
  insert into public.payout_methods as m (user_id, rail, details_ciphertext, masked, stripe_account_id, ready, status_note, updated_at)
  values (auth.uid(), 'manual', p_ciphertext, p_masked, null, true, null, now())
  on conflict (user_id) do update set rail = 'manual', details_ciphertext = excluded.details_ciphertext, masked = excluded.masked,
                                      stripe_account_id = null, ready = true, status_note = null, updated_at = now();
  return json_build_object('ok', true);
end $$;

revoke all on function public.payout_method_set_manual(text, text) from public, anon, sdk;
grant execute on function public.payout_method_set_manual(text, text) to authenticated;
