-- Lays `campaign_draw` out anew from the campaigns as they are now: for each format, every
-- active campaign that buys it (or buys every format), end to end in the order of their ids, each
-- as long as its daily budget (migration 20261212000000_ad_draw; the draw is public.sdk_serve_ad's).
-- Run by the triggers on `campaigns` when a statement changed what the layout reads. One at a time
-- (a transaction-scoped advisory lock): two layouts written at once would both stay. Each
-- statement here reads what was committed before it, so the second of two runs lays out the
-- first's changes too.
create or replace function public.campaign_draw_rebuild()
returns void
language plpgsql volatile security definer set search_path = ''
as $$
begin
  perform pg_advisory_xact_lock(hashtext('public.campaign_draw'));
  delete from public.campaign_draw;
  insert into public.campaign_draw (format, lo, hi, campaign_id)
  select f.format, sum(c.daily_budget_micro) over w - c.daily_budget_micro, sum(c.daily_budget_micro) over w, c.id
  from public.campaigns c
  cross join unnest(array['floating_video', 'tooltip', 'sponsored_card', 'inline_text', 'sponsored_follow_up']) as f (format)
  where c.status = 'active' and (cardinality(c.formats) = 0 or f.format = any(c.formats))
  window w as (partition by f.format order by c.id rows between unbounded preceding and current row);
end $$;

revoke all on function public.campaign_draw_rebuild() from public, anon, authenticated, sdk, service_role;
