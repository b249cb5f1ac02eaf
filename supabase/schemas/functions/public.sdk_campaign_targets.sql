-- A running campaign may serve on this placement of this app: it buys the placement's format (or
-- every format), includes one of the app's categories (or targets none), excludes none of them,
-- and has not excluded the app (migration 20261207000000_advertisers).
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_campaign_targets(p_formats text[], p_include_categories text[], p_exclude_categories text[],
                                                       p_excluded_apps uuid[], p_format text, p_app_categories text[], p_app_id uuid)
returns boolean
language sql immutable
as $$
  select (cardinality(p_formats) = 0 or p_format = any(p_formats))
     and (cardinality(p_include_categories) = 0 or p_include_categories && p_app_categories)
     and not (p_exclude_categories && p_app_categories)
     and not (p_app_id = any(p_excluded_apps))
$$;

revoke all on function public.sdk_campaign_targets(text[], text[], text[], uuid[], text, text[], uuid) from public, anon, authenticated;
grant execute on function public.sdk_campaign_targets(text[], text[], text[], uuid[], text, text[], uuid) to sdk;
