-- The frequency cap. The decisions the campaign filled for this session of the app in the 24
-- hours before `p_at` (none for a request without a session). Index: ad_decisions_session.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_session_fills(p_app_id uuid, p_session_id text, p_campaign_id uuid, p_at timestamptz)
returns setof uuid
language sql stable
as $$
  select d.id from public.ad_decisions d
  where d.app_id = p_app_id and d.session_id = p_session_id and d.campaign_id = p_campaign_id
    and d.created_at > p_at - interval '24 hours'
$$;

revoke all on function public.sdk_session_fills(uuid, text, uuid, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_session_fills(uuid, text, uuid, timestamptz) to sdk;
