-- Why an impression of a served ad, not a duplicate, is invalid traffic, or null when it may be
-- billed (the counters decide the rest: sdk_record_events), in the documented order
-- (content/docs/sdk-integration.md, Counting rules). Each argument is a fact the caller knows:
-- whether the request is a robot's, whether it came from the client the ad was served to, the
-- seconds since the ad was served on the server's clock, the format and the SDK's evidence,
-- whether the ad has its impression (or an earlier one of this batch took it), and whether its
-- campaign is running now.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_impression_reason(p_bot boolean, p_same_client boolean, p_age_seconds numeric, p_format text,
                                                        p_share numeric, p_seconds numeric, p_area bigint, p_counted boolean,
                                                        p_campaign_running boolean)
returns text
language sql immutable
as $$
  select case
    when p_bot then 'bot'
    when not coalesce(p_same_client, false) then 'other_client'
    when p_age_seconds < public.sdk_view_seconds(p_format) then 'too_soon'
    when p_age_seconds > 900 then 'too_late'
    when coalesce(p_seconds, 0) > p_age_seconds then 'impossible_evidence'
    when not public.sdk_viewable(p_format, p_share, p_seconds, p_area) then 'not_viewable'
    when p_counted then 'already_counted'
    when not coalesce(p_campaign_running, false) then 'campaign_ended'
  end
$$;

revoke all on function public.sdk_impression_reason(boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, boolean)
  from public, anon, authenticated;
grant execute on function public.sdk_impression_reason(boolean, boolean, numeric, text, numeric, numeric, bigint, boolean, boolean) to sdk;
