-- Conversions (issue 44): an advertiser learns what its clicks became, first-party only.
--
-- A click through an ad's click URL lands with a signed click id (`mclid`, lib/ads/conversions/
-- click-id.ts) naming the click's decision. The advertiser reports a conversion with that id, from
-- its server (`POST /functions/v1/conversions`, with a conversions key made in its console) or
-- from its pages (the conversion tag, which names the advertiser's public tag id). Each is kept
-- here once per advertiser and event id, valid or invalid with its reason; only valid ones are
-- counted in the campaign's daily figures. Nothing about the person is kept beyond the click's
-- own decision row: the conversion names the decision, its name, value and time.

-- How long after its click a conversion counts, per campaign.
alter table public.campaigns add column attribution_window_days integer not null default 7
  constraint campaigns_attribution_window_days_check check (attribution_window_days between 1 and 30);

-- An advertiser's conversions keys (`ck_live_…`): secrets of its server, shown once, kept as a
-- SHA-256 of the whole key (190 random bits need no slow hash), with a lookup prefix and the last
-- four characters to tell them apart. Revoked, never deleted: a conversion keeps the key it came with.
create table public.conversion_keys (
  id uuid not null default gen_random_uuid(),
  advertiser_id uuid not null references public.users (id) on delete cascade,
  name text not null constraint conversion_keys_name_check check (length(name) between 1 and 100),
  key_prefix text not null,
  key_last4 text not null constraint conversion_keys_key_last4_check check (length(key_last4) = 4),
  key_hash text not null,
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  constraint conversion_keys_pkey primary key (id),
  constraint conversion_keys_hash_unique unique (key_hash),
  constraint conversion_keys_prefix_unique unique (key_prefix)
);
create index conversion_keys_advertiser on public.conversion_keys (advertiser_id, created_at desc);

alter table public.conversion_keys enable row level security;
alter table public.conversion_keys force row level security;
create policy "Advertisers read their own conversions keys" on public.conversion_keys
  as permissive for select to authenticated using (advertiser_id = auth.uid());
create policy "Advertisers make conversions keys for themselves" on public.conversion_keys
  as permissive for insert to authenticated
  with check (advertiser_id = auth.uid() and revoked_at is null
              and exists (select 1 from public.advertiser_profiles p where p.user_id = auth.uid()));
create policy "Advertisers revoke their own conversions keys" on public.conversion_keys
  as permissive for update to authenticated using (advertiser_id = auth.uid()) with check (advertiser_id = auth.uid());
create policy "The service reads conversions keys and notes their use" on public.conversion_keys
  as permissive for all to service_role using (true) with check (true);
revoke all on public.conversion_keys from public, anon, authenticated, sdk, service_role;
grant select, insert on public.conversion_keys to authenticated;
grant update (revoked_at) on public.conversion_keys to authenticated;
grant select, update (last_used_at) on public.conversion_keys to service_role;

-- A key once revoked stays revoked, and nothing but its revocation and last use ever changes.
create or replace function public.conversion_keys_guard()
returns trigger
language plpgsql set search_path = ''
as $$
begin
  if old.revoked_at is not null and new.revoked_at is distinct from old.revoked_at then
    raise exception 'a revoked conversions key stays revoked' using errcode = 'check_violation';
  end if;
  if (new.id, new.advertiser_id, new.name, new.key_prefix, new.key_last4, new.key_hash, new.created_at)
     is distinct from (old.id, old.advertiser_id, old.name, old.key_prefix, old.key_last4, old.key_hash, old.created_at) then
    raise exception 'only a conversions key''s revocation and last use change' using errcode = 'check_violation';
  end if;
  return new;
end $$;
revoke all on function public.conversion_keys_guard() from public, anon, authenticated, sdk;
create trigger conversion_keys_guard before update on public.conversion_keys
  for each row execute function public.conversion_keys_guard();

-- An advertiser's conversion tag id (`ct_…`): public, in its pages' markup. It only says whose
-- tag it is: a click id of another advertiser's campaign sent with it is a foreign click.
create table public.conversion_tags (
  advertiser_id uuid not null references public.users (id) on delete cascade,
  tag text not null constraint conversion_tags_tag_check check (tag ~ '^ct_[A-Za-z0-9]{24}$'),
  created_at timestamptz not null default now(),
  constraint conversion_tags_pkey primary key (advertiser_id),
  constraint conversion_tags_tag_unique unique (tag)
);
alter table public.conversion_tags enable row level security;
alter table public.conversion_tags force row level security;
create policy "Advertisers read their own conversion tag" on public.conversion_tags
  as permissive for select to authenticated using (advertiser_id = auth.uid());
create policy "Advertisers make their own conversion tag" on public.conversion_tags
  as permissive for insert to authenticated
  with check (advertiser_id = auth.uid() and exists (select 1 from public.advertiser_profiles p where p.user_id = auth.uid()));
create policy "The service reads conversion tags" on public.conversion_tags
  as permissive for select to service_role using (true);
revoke all on public.conversion_tags from public, anon, authenticated, sdk, service_role;
grant select, insert on public.conversion_tags to authenticated;
grant select on public.conversion_tags to service_role;

-- Every conversion reported, once per advertiser and event id: valid, or invalid with the first
-- reason that applies (public.conversion_record). `decision_id` is the click's decision, kept
-- without a foreign key: decisions are swept after 35 days and the conversion stays.
create table public.conversions (
  id uuid not null default public.time_ordered_uuid(),
  advertiser_id uuid not null references public.users (id) on delete cascade,
  event_id text not null constraint conversions_event_id_check check (length(event_id) between 1 and 200),
  source text not null constraint conversions_source_check check (source in ('api', 'tag')),
  key_id uuid references public.conversion_keys (id) on delete set null,
  decision_id uuid,
  campaign_id uuid references public.campaigns (id) on delete cascade,
  creative_id uuid,
  app_id uuid,
  name text not null constraint conversions_name_check check (length(name) between 1 and 100),
  value_micro bigint not null default 0 constraint conversions_value_micro_check check (value_micro >= 0),
  occurred_at timestamptz not null,
  received_at timestamptz not null default now(),
  valid boolean not null,
  invalid_reason text constraint conversions_invalid_reason_check
    check (invalid_reason in ('invalid_click_id', 'unknown_click', 'foreign_click', 'click_not_counted', 'outside_window',
                              'already_converted', 'too_many_for_click', 'revoked_key')),
  constraint conversions_pkey primary key (id),
  constraint conversions_event_unique unique (advertiser_id, event_id),
  constraint conversions_invalid_says_why check (valid = (invalid_reason is null)),
  constraint conversions_valid_names_its_click check (not valid or (decision_id is not null and campaign_id is not null))
);
-- One valid conversion per click and name: a second "signup" of one click is `already_converted`.
create unique index conversions_once_per_click on public.conversions (decision_id, name) where valid;
create index conversions_campaign on public.conversions (campaign_id, occurred_at) where campaign_id is not null;

alter table public.conversions enable row level security;
alter table public.conversions force row level security;
create policy "Advertisers read their own conversions" on public.conversions
  as permissive for select to authenticated using (advertiser_id = auth.uid());
create policy "The service keeps conversions" on public.conversions
  as permissive for all to service_role using (true) with check (true);
revoke all on public.conversions from public, anon, authenticated, sdk, service_role;
grant select on public.conversions to authenticated;
grant select, insert on public.conversions to service_role;

-- Conversions are written once: no role changes or deletes one, except as the cascade of its
-- advertiser's (or key's, or campaign's) deletion.
create or replace function public.conversions_refuse_change()
returns trigger
language plpgsql set search_path = ''
as $$
begin
  if pg_trigger_depth() > 1 then
    return case when tg_op = 'DELETE' then old else new end;
  end if;
  raise exception 'conversions are written once: % refused', lower(tg_op) using errcode = 'insufficient_privilege';
end $$;
revoke all on function public.conversions_refuse_change() from public, anon, authenticated, sdk;
create trigger conversions_written_once before update or delete on public.conversions
  for each row execute function public.conversions_refuse_change();

-- The campaigns' daily figures gain their valid conversions, counted on the day they occurred (UTC).
alter table public.campaign_daily_stats
  add column conversions bigint not null default 0 constraint campaign_daily_stats_conversions_check check (conversions >= 0),
  add column conversion_value_micro bigint not null default 0
    constraint campaign_daily_stats_conversion_value_micro_check check (conversion_value_micro >= 0);

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

-- The advertiser sets its campaign's window in the console.
grant insert (attribution_window_days), update (attribution_window_days) on public.campaigns to authenticated;
