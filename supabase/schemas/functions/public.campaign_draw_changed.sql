-- After a statement on `campaigns`: lays the draw out anew (public.campaign_draw_rebuild) when it
-- added or removed an active campaign, or changed a campaign's status, daily budget or formats.
-- Other changes (a name, a review, spend) leave the layout as it is, so the roll-up's updates of
-- campaigns rewrite nothing here unless a campaign paused, resumed or ended
-- (migration 20261212000000_ad_draw).
create or replace function public.campaign_draw_changed()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    if exists (select 1 from added a where a.status = 'active') then perform public.campaign_draw_rebuild(); end if;
  elsif tg_op = 'DELETE' then
    if exists (select 1 from removed r where r.status = 'active') then perform public.campaign_draw_rebuild(); end if;
  elsif exists (select 1 from added a join removed r on r.id = a.id
                where (a.status, a.daily_budget_micro, a.formats) is distinct from (r.status, r.daily_budget_micro, r.formats)
                  and 'active' in (a.status, r.status)) then
    perform public.campaign_draw_rebuild();
  end if;
  return null;
end $$;

revoke all on function public.campaign_draw_changed() from public, anon, authenticated, sdk, service_role;
