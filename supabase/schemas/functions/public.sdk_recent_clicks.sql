-- One click per address and ad in 3 hours: the decisions whose billable click came from this
-- address (its keyed hash, lib/ads/serving/traffic.ts) on this creative in the 3 hours before `p_at`.
-- Index: ad_decisions_recent_clicks.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_recent_clicks(p_creative_id uuid, p_ip_hash text, p_at timestamptz)
returns setof uuid
language sql stable
as $$
  select x.id from public.ad_decisions x
  where x.creative_id = p_creative_id and x.click_ip_hash = p_ip_hash and x.clicked_at > p_at - interval '3 hours'
$$;

revoke all on function public.sdk_recent_clicks(uuid, text, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_recent_clicks(uuid, text, timestamptz) to sdk;
