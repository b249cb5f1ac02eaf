-- Why an event about a served ad, not a duplicate, is not counted: the first reason that applies,
-- in the one order of every reason (EVENT_REASONS, lib/schemas/sdk.ts; content/docs/sdk-integration.md,
-- Counting rules), or null when it counts. The reasons before these (the token's, checked in Node,
-- and `unknown_decision`) and the batch's (the hourly caps and an impression's budget, which
-- sdk_record_events decides among the impressions that pass here) come before and after them in
-- that order, so an event's answer is the first reason of the whole list.
-- Each argument is a fact the caller knows: the kind, whether the request is a robot's; for an
-- impression or a hide, whether it came from the client the ad was served to; for an impression, the seconds since the ad was
-- served on the server's clock, the format and the SDK's evidence; the ids the decision has
-- counted; whether the campaign is running now; for a click, whether the campaign's budget for
-- the day is spent (an impression's is the batch's: the caller passes false) and whether the
-- address clicked this ad in the last 3 hours; for a hide, the id of the hide the decision has
-- counted. A hide (migration 20261217000000_ad_hides) is refused only for a robot, another client
-- or a second hide of one ad: it bills nothing, and an ended campaign may start again. A click's repeat is its last reason, so a caller
-- may ask without it first and look it up only for a click that nothing else refuses.
-- A rule of the money path (migration 20261214000400_event_reasons): `language sql`, not security
-- definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls it.
-- Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_event_reason(p_kind text, p_bot boolean, p_impression_event_id text, p_click_event_id text,
                                                   p_campaign_running boolean, p_over_budget boolean,
                                                   p_same_client boolean default null, p_age_seconds numeric default null,
                                                   p_format text default null, p_share numeric default null, p_seconds numeric default null,
                                                   p_area bigint default null, p_repeat_click boolean default false,
                                                   p_hide_event_id text default null)
returns text
language sql immutable
as $$
  select case
    when p_bot then 'bot'
    when p_kind in ('impression', 'hide') and not coalesce(p_same_client, false) then 'other_client'
    when p_kind = 'impression' and p_age_seconds < public.sdk_view_seconds(p_format) then 'too_soon'
    when p_kind = 'impression' and p_age_seconds > 900 then 'too_late'
    when p_kind = 'impression' and coalesce(p_seconds, 0) > p_age_seconds then 'impossible_evidence'
    when p_kind = 'impression' and not public.sdk_viewable(p_format, p_share, p_seconds, p_area) then 'not_viewable'
    when public.sdk_already_counted(p_kind, p_impression_event_id, p_click_event_id, p_hide_event_id) then 'already_counted'
    when public.sdk_click_before_impression(p_kind, p_impression_event_id) then 'no_impression'
    when p_kind <> 'hide' and not coalesce(p_campaign_running, false) then 'campaign_ended'
    when p_over_budget then 'over_budget'
    when p_kind = 'click' and p_repeat_click then 'repeat_click'
  end
$$;

revoke all on function public.sdk_event_reason(text, boolean, text, text, boolean, boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, text)
  from public, anon, authenticated;
grant execute on function public.sdk_event_reason(text, boolean, text, text, boolean, boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, text)
  to sdk;
