-- Where a payout in status `p_status` may go next (migration 20261214000300_payout_marks): the one
-- list of a payout's moves. public.payout_transition refuses any other, and public.staff_overview
-- answers it with each payout, so the operator console offers exactly these and never restates
-- them:
--   pending    → processing (being sent), paid, failed, canceled
--   processing → paid, failed
-- and nothing from paid, failed or canceled.
create or replace function public.payout_next_statuses(p_status text)
returns text[]
language sql immutable set search_path = ''
as $$
  select case p_status
    when 'pending' then array['processing', 'paid', 'failed', 'canceled']
    when 'processing' then array['paid', 'failed']
    else array[]::text[]
  end
$$;

revoke all on function public.payout_next_statuses(text) from public, anon, authenticated, sdk;
grant execute on function public.payout_next_statuses(text) to service_role;
