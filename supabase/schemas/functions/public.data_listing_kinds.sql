-- The kinds of record a listing sells (migration 20261209000000_data_buyers): AI-interaction rows,
-- UX-session recordings, or GB bundles of both; null for an unknown listing.
create or replace function public.data_listing_kinds(p_listing text)
returns text[]
language sql immutable
as $$
  select case p_listing
    when 'ai_interactions' then array['ai_interaction']
    when 'ux_sessions' then array['ux_session']
    when 'gb_bundles' then array['ai_interaction', 'ux_session']
  end
$$;

revoke all on function public.data_listing_kinds(text) from public, anon, sdk;
grant execute on function public.data_listing_kinds(text) to authenticated, service_role;
