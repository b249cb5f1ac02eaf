-- The moves an advertiser may ask for with a campaign in status `p_status`, paused for
-- `p_pause_reason` (migration 20261214002000_campaign_moves_open): the one list of them, by the
-- names of public.campaign_move_targets.
--   draft             → submit (to review; public.campaigns_guard also asks for a creative)
--   scheduled, active → pause
--   paused            → resume, when the advertiser paused it (a campaign paused without a
--                       reason was paused by its owner, as the trigger writes it)
-- and nothing from in_review, completed, rejected, nor a pause for want of funds or for a payment
-- taken back (a top-up or the operator resumes those). public.campaigns_guard refuses any other
-- move an advertiser makes, and the console's campaign reads answer it with each campaign
-- (lib/ads/advertisers/account.ts), so the buttons offer exactly these and never restate them.
-- A plain SQL expression, without settings of its own, so PostgreSQL inlines it into the read.
create or replace function public.campaign_moves_open(p_status text, p_pause_reason text)
returns text[]
language sql immutable
as $$
  select case
    when p_status = 'draft' then array['submit']
    when p_status in ('scheduled', 'active') then array['pause']
    when p_status = 'paused' and coalesce(p_pause_reason, 'advertiser') = 'advertiser' then array['resume']
    else array[]::text[]
  end
$$;

revoke all on function public.campaign_moves_open(text, text) from public, anon, sdk;
grant execute on function public.campaign_moves_open(text, text) to authenticated, service_role;
