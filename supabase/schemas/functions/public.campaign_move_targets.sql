-- The moves an advertiser makes with a campaign, by name, and the status each asks for (migration
-- 20261214000200_campaign_moves): `submit` to review, `pause`, `resume`. public.campaign_move
-- reads it; whether the campaign may make the move now is public.campaigns_guard's to say. The
-- console's form knows the same names (CAMPAIGN_MOVES, lib/ads/advertisers/schemas.ts;
-- tests/integration/campaign-moves.test.ts holds the two equal).
create or replace function public.campaign_move_targets()
returns jsonb
language sql immutable set search_path = ''
as $$
  select jsonb_build_object('submit', 'in_review', 'pause', 'paused', 'resume', 'active')
$$;

revoke all on function public.campaign_move_targets() from public, anon, sdk;
grant execute on function public.campaign_move_targets() to authenticated, service_role;
