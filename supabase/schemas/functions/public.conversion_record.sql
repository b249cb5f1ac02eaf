-- Records one conversion (as service_role, for the conversions API and the tag): the caller has
-- found the advertiser (by its key or its tag) and checked the click id's signature, passing the
-- decision it names, or null when it is not one we signed. The first reason that applies, in order:
--   revoked_key        the API key was revoked (the caller knows; the conversion is kept, invalid);
--   invalid_click_id   the click id is not one we signed;
--   unknown_click      no such decision with an ad (never served, or swept after 35 days);
--   foreign_click      the click was on another advertiser's campaign;
--   click_not_counted  the click itself was not counted (refused by the click rules, or never made);
--   outside_window     the conversion occurred more than five minutes before its click (clocks
--                      differ), after the campaign's attribution window, or more than five minutes
--                      in the future (`p_occurred_at` null: now, the tag's);
--   already_converted  this click already has a valid conversion of this name;
--   too_many_for_click this click already has five valid conversions (of other names).
-- Answers `recorded`, `duplicate` (this advertiser's event id was recorded before: nothing
-- changes, whatever it says now) or `invalid` with the reason. A valid conversion adds to its
-- campaign's daily figures in the same transaction. The click's campaign, creative and app are
-- kept only when the click is the advertiser's own: another's are not theirs to read.
create or replace function public.conversion_record(p_advertiser uuid, p_source text, p_key_id uuid, p_key_revoked boolean, p_event_id text,
                                                    p_decision uuid, p_signed boolean, p_name text, p_value_micro bigint,
                                                    p_occurred_at timestamptz)
returns table (outcome text, reason text, conversion_id uuid)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_click record;
  v_reason text;
  v_id uuid;
  v_valid boolean;
  v_ours boolean;
  v_occurred timestamptz;
begin
  if exists (select 1 from public.conversions c where c.advertiser_id = p_advertiser and c.event_id = p_event_id) then
    return query select 'duplicate'::text, null::text, (select c.id from public.conversions c where c.advertiser_id = p_advertiser and c.event_id = p_event_id);
    return;
  end if;
  -- No row (an unsigned id names nothing): every field null. The click's decision is locked, so
  -- that its conversions are counted one at a time (once per name, at most five).
  select d.id, d.campaign_id, d.creative_id, d.app_id, d.click_event_id, d.clicked_at, c.advertiser_id, c.attribution_window_days
  into v_click
  from public.ad_decisions d join public.campaigns c on c.id = d.campaign_id
  where p_signed and d.id = p_decision and d.creative_id is not null
  for update of d;
  v_ours := v_click.id is not null and v_click.advertiser_id = p_advertiser;
  v_occurred := coalesce(p_occurred_at, now());
  v_reason := case
    when p_key_revoked then 'revoked_key'
    when not p_signed then 'invalid_click_id'
    when v_click.id is null then 'unknown_click'
    when v_click.advertiser_id is distinct from p_advertiser then 'foreign_click'
    when v_click.click_event_id is null then 'click_not_counted'
    when v_occurred < v_click.clicked_at - interval '5 minutes'
         or v_occurred > v_click.clicked_at + make_interval(days => v_click.attribution_window_days)
         or v_occurred > now() + interval '5 minutes' then 'outside_window'
  end;
  if v_reason is null
     and exists (select 1 from public.conversions c where c.decision_id = v_click.id and c.name = p_name and c.valid) then
    v_reason := 'already_converted';
  end if;
  if v_reason is null and (select count(*) from public.conversions c where c.decision_id = v_click.id and c.valid) >= 5 then
    v_reason := 'too_many_for_click';
  end if;
  v_valid := v_reason is null;
  insert into public.conversions (advertiser_id, event_id, source, key_id, decision_id, campaign_id, creative_id, app_id, name, value_micro,
                                  occurred_at, valid, invalid_reason)
  values (p_advertiser, p_event_id, p_source, p_key_id, case when p_signed then p_decision end,
          case when v_ours then v_click.campaign_id end, case when v_ours then v_click.creative_id end, case when v_ours then v_click.app_id end,
          p_name, greatest(coalesce(p_value_micro, 0), 0), v_occurred, v_valid, v_reason)
  on conflict do nothing
  returning id into v_id;
  if v_id is null then
    -- A concurrent report of the same event id, or of the same click and name, committed first.
    if exists (select 1 from public.conversions c where c.advertiser_id = p_advertiser and c.event_id = p_event_id) then
      return query select 'duplicate'::text, null::text, (select c.id from public.conversions c where c.advertiser_id = p_advertiser and c.event_id = p_event_id);
      return;
    end if;
    v_reason := 'already_converted';
    v_valid := false;
    insert into public.conversions (advertiser_id, event_id, source, key_id, decision_id, campaign_id, creative_id, app_id, name, value_micro,
                                    occurred_at, valid, invalid_reason)
    values (p_advertiser, p_event_id, p_source, p_key_id, p_decision, v_click.campaign_id, v_click.creative_id, v_click.app_id,
            p_name, greatest(coalesce(p_value_micro, 0), 0), v_occurred, false, v_reason)
    on conflict (advertiser_id, event_id) do nothing
    returning id into v_id;
    if v_id is null then
      return query select 'duplicate'::text, null::text, (select c.id from public.conversions c where c.advertiser_id = p_advertiser and c.event_id = p_event_id);
      return;
    end if;
  end if;
  if v_valid then
    insert into public.campaign_daily_stats as s (campaign_id, creative_id, app_id, day, conversions, conversion_value_micro)
    values (v_click.campaign_id, v_click.creative_id, v_click.app_id, (v_occurred at time zone 'UTC')::date, 1,
            greatest(coalesce(p_value_micro, 0), 0))
    on conflict (campaign_id, day, creative_id, app_id) do update
      set conversions = s.conversions + 1, conversion_value_micro = s.conversion_value_micro + excluded.conversion_value_micro;
  end if;
  if p_key_id is not null then
    update public.conversion_keys set last_used_at = now()
    where id = p_key_id and (last_used_at is null or last_used_at < now() - interval '1 minute');
  end if;
  return query select case when v_valid then 'recorded' else 'invalid' end, v_reason, v_id;
end $$;
revoke all on function public.conversion_record(uuid, text, uuid, boolean, text, uuid, boolean, text, bigint, timestamptz)
  from public, anon, authenticated, sdk;
grant execute on function public.conversion_record(uuid, text, uuid, boolean, text, uuid, boolean, text, bigint, timestamptz) to service_role;
