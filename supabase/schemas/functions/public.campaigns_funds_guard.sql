-- A campaign starts or resumes only for an advertiser who may spend (migration
-- 20261213000500_reversals): a trigger (`campaigns_hold_and_funds`) after public.campaigns_guard on
-- every update that makes a campaign `scheduled` or `active`, whoever makes it (its advertiser
-- resuming it, review, the roll-up's clock, a top-up). On an account on hold (public.account_held:
-- money it was paid was taken back) the campaign stays `paused` (`payment_reversed`) until the
-- operator releases it (public.staff_account_release); one made `active` with nothing to spend
-- (public.account_spendable_micro: the balance, less card money not cleared yet) is `paused`
-- for want of funds. Security definer: it reads the hold and the ledger whoever writes.
create or replace function public.campaigns_funds_guard()
returns trigger
language plpgsql
security definer
set search_path = ''
as $$
begin
  if public.account_held(new.advertiser_id) then
    new.status := 'paused';
    new.pause_reason := 'payment_reversed';
  elsif new.status = 'active' and public.account_spendable_micro('advertiser', new.advertiser_id) <= 0 then
    new.status := 'paused';
    new.pause_reason := 'out_of_funds';
  end if;
  return new;
end $$;

revoke all on function public.campaigns_funds_guard() from public, anon, authenticated, sdk, service_role;
