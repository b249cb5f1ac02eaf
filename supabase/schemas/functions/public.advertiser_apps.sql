-- The apps the caller's campaigns ran on, by name (migration 20261207000000_advertisers): "where
-- did my ads run". An advertiser reads no app under row-level security (apps are their
-- publishers'); this names only those their own campaigns' daily figures mention, nothing more
-- of them. Runs for signed-in callers only.
create or replace function public.advertiser_apps()
returns table (id uuid, name text)
language sql stable security definer set search_path = ''
as $$
  select a.id, a.name from public.apps a
  where a.id in (select s.app_id from public.campaign_daily_stats s join public.campaigns c on c.id = s.campaign_id
                 where c.advertiser_id = auth.uid())
$$;

revoke all on function public.advertiser_apps() from public, anon, sdk;
grant execute on function public.advertiser_apps() to authenticated;
