-- After a statement on `campaigns` or `apps`: moves the market's version (public.ad_market) when
-- what the server reads conversations against changed: an active campaign with hints added or
-- removed; a campaign with hints (before or after) whose status, hints or excluded phrases
-- changed while it was or became active; an app's excluded topics, or its archiving, changed.
-- Other changes (spend, a name, a review, a campaign without hints) leave it, so the roll-up's
-- updates of campaigns do not make every server read the market again.
create or replace function public.ad_market_changed()
returns trigger
language plpgsql volatile security definer set search_path = ''
as $$
begin
  if tg_table_name = 'apps' then
    if tg_op = 'INSERT' then
      if not exists (select 1 from added a where cardinality(a.excluded_topics) > 0) then return null; end if;
    elsif not exists (select 1 from added a join removed r on r.id = a.id
                      where (a.excluded_topics, a.archived_at is null) is distinct from (r.excluded_topics, r.archived_at is null)) then
      return null;
    end if;
  elsif tg_op = 'INSERT' then
    if not exists (select 1 from added a where a.status = 'active' and cardinality(a.context_hints) > 0) then return null; end if;
  elsif tg_op = 'DELETE' then
    if not exists (select 1 from removed r where r.status = 'active' and cardinality(r.context_hints) > 0) then return null; end if;
  elsif not exists (select 1 from added a join removed r on r.id = a.id
                    where (a.status, a.context_hints, a.excluded_phrases) is distinct from (r.status, r.context_hints, r.excluded_phrases)
                      and 'active' in (a.status, r.status)
                      and cardinality(a.context_hints) + cardinality(r.context_hints) > 0) then
    return null;
  end if;
  update public.ad_market set version = version + 1;
  return null;
end $$;

revoke all on function public.ad_market_changed() from public, anon, authenticated, sdk, service_role;
