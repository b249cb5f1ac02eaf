-- What the server reads an ad request's conversation against (lib/ads/serving/market.ts), with
-- the version it was read at (public.ad_market): the active campaigns that have hints, each with
-- its hints and excluded phrases, and the apps' excluded topics. One statement, so the version
-- is the one these rows were read at. The service's alone: an app's key sees only its own app,
-- and every app's topics are read here (the server keeps them in memory; the SDK never sees them).
create or replace function public.sdk_ad_market()
returns json
language sql stable security invoker set search_path = ''
as $$
  select json_build_object(
    'version', (select m.version from public.ad_market m),
    'campaigns', (select coalesce(json_agg(json_build_object('id', c.id, 'hints', c.context_hints, 'excluded', c.excluded_phrases) order by c.id), '[]')
                  from public.campaigns c where c.status = 'active' and cardinality(c.context_hints) > 0),
    'topics', (select coalesce(json_agg(json_build_object('app_id', a.id, 'topics', a.excluded_topics) order by a.id), '[]')
               from public.apps a where cardinality(a.excluded_topics) > 0 and a.archived_at is null))
$$;

revoke all on function public.sdk_ad_market() from public, anon, authenticated, sdk;
grant execute on function public.sdk_ad_market() to service_role;
