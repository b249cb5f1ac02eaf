-- The app's filled decisions of the campaign for the client's network (`network_hash`: a keyed
-- hash of its /24 or /64, lib/platform/http/client-ip.ts) in the 24 hours before `p_at`, for the
-- frequency cap (index ad_decisions_network). Per network and not per browser: a client is
-- whatever user agent it sends, and a new one per request would otherwise reset the cap.
-- Set-returning, so that it is inlined as a subquery where it is called; it runs as its caller,
-- under the SDK role's policies.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_network_fills(p_app_id uuid, p_network_hash text, p_campaign_id uuid, p_at timestamptz)
returns setof uuid
language sql stable
as $$
  select d.id from public.ad_decisions d
  where d.app_id = p_app_id and d.network_hash = p_network_hash and d.campaign_id = p_campaign_id
    and d.created_at > p_at - interval '24 hours'
$$;

revoke all on function public.sdk_network_fills(uuid, text, uuid, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_network_fills(uuid, text, uuid, timestamptz) to sdk;
