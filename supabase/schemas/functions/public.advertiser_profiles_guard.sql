-- What may change of an advertiser's profile (migration 20261213000300_lows): a trigger before
-- each update, for every writer. The company is the advertiser's name on their ads: a campaign
-- takes it when it is sent to review, and the operator reviews the campaign with it
-- (public.campaigns_guard). So it does not change while a campaign of theirs is in review or
-- approved and not completed (`in_review`, `scheduled`, `active`, `paused`): the new name would
-- be one nobody reviewed on those ads. The billing details change freely.
create or replace function public.advertiser_profiles_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.company is distinct from old.company
     and exists (select 1 from public.campaigns c
                 where c.advertiser_id = old.user_id and c.status in ('in_review', 'scheduled', 'active', 'paused')) then
    raise exception 'the company name cannot change while a campaign is in review or approved'
      using errcode = 'check_violation', constraint = 'advertiser_profiles_company_reviewed';
  end if;
  return new;
end $$;

revoke all on function public.advertiser_profiles_guard() from public, anon, authenticated, sdk;
