-- The money path of the SDK surface (`/functions/v1/*`, content/docs/sdk-integration.md):
-- advertisers' campaigns and creatives, one decision row per ad request, impressions and clicks
-- recorded against their decision, consents and consented data, and the roll-up that turns the
-- raw rows into the placement and daily figures every report reads (ARCHITECTURE.md, Money path).
--
-- SDK requests run as the role `sdk`, with the key's app in `request.jwt.claims`
-- (`{"role": "sdk", "app_id": …, "user_id": …}`, lib/sdk/access.ts). Its policies below let it
-- see and write exactly its own app's rows, whatever the application code asks for.

-- ── The role and its claims ────────────────────────────────────────────────────────────────
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'sdk') then
    create role sdk nologin noinherit;
  end if;
end
$$;

-- The connection's own role must be able to `set local role sdk` (as for the Supabase roles).
do $$
begin
  execute format('grant sdk to %I', current_user);
exception when others then
  null;
end
$$;

grant usage on schema public to sdk;

-- The app the request's key (or decision token) belongs to, and the app's owner.
create function public.sdk_app_id() returns uuid
language sql stable
as $$
  select nullif(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'app_id', '')::uuid
$$;

create function public.sdk_user_id() returns uuid
language sql stable
as $$
  select nullif(nullif(current_setting('request.jwt.claims', true), '')::json ->> 'user_id', '')::uuid
$$;

revoke all on function public.sdk_app_id(), public.sdk_user_id() from public, anon, authenticated;
grant execute on function public.sdk_app_id(), public.sdk_user_id() to sdk, service_role;

-- The key lookup also answers the app's owner and allowed origins, so that one lookup is all a
-- request needs before its own work (lib/sdk/keys.ts). Same rules as before: one row or none.
drop function public.sdk_key(text);
create function public.sdk_key(p_key_hash text)
returns table (
  id               uuid,
  name             text,
  environment      text,
  status           text,
  key_prefix       text,
  key_last4        text,
  app_id           uuid,
  app_name         text,
  app_archived     boolean,
  user_id          uuid,
  allowed_origins  text[]
)
language sql stable security definer set search_path = ''
as $$
  select k.id, k.name, k.environment, k.status, k.key_prefix, k.key_last4,
         a.id, a.name, a.archived_at is not null, a.user_id, a.allowed_origins
  from public.api_keys k
  join public.apps a on a.id = k.app_id and a.user_id = k.user_id
  where k.key_hash = p_key_hash
$$;
revoke all on function public.sdk_key(text) from public, anon, authenticated, service_role;
grant execute on function public.sdk_key(text) to anon, authenticated;

-- ── Fills: the share of ad requests that got an ad ─────────────────────────────────────────
-- fill_rate = fills / ad_requests. Before this migration every impression had been a fill.
alter table public.placements add column fills bigint not null default 0 check (fills >= 0);
alter table public.daily_stats add column fills bigint not null default 0 check (fills >= 0);
update public.placements set fills = least(impressions, ad_requests) where fills = 0;
update public.daily_stats set fills = least(impressions, ad_requests) where fills = 0;
-- Lets decisions and events reference (placement, app), so a row's app can never differ from its placement's.
alter table public.placements add constraint placements_id_app_unique unique (id, app_id);

-- ── Advertisers ────────────────────────────────────────────────────────────────────────────
-- A campaign pays the pricing table's CPM for its creatives' format, read when each impression
-- is recorded; its daily budget is spent no faster than the day passes (pacing, lib/sdk/ads.ts).
create table public.campaigns (
  id                uuid primary key default gen_random_uuid(),
  advertiser        text not null check (length(advertiser) between 1 and 100),
  name              text not null check (length(name) between 1 and 100),
  status            text not null default 'active' check (status in ('active', 'paused', 'ended')),
  daily_budget_usd  numeric(12, 2) not null check (daily_budget_usd > 0),
  -- Ads of the campaign one SDK session may be shown per 24 hours.
  frequency_cap     integer not null default 3 check (frequency_cap between 1 and 100),
  keywords          text[] not null default '{}',
  starts_at         timestamptz not null default now(),
  ends_at           timestamptz,
  created_at        timestamptz not null default now()
);

create table public.creatives (
  id           uuid primary key default gen_random_uuid(),
  campaign_id  uuid not null references public.campaigns (id) on delete cascade,
  format       text not null check (format in ('floating_video', 'tooltip', 'sponsored_card', 'inline_text')),
  status       text not null default 'active' check (status in ('active', 'paused')),
  headline     text not null check (length(headline) between 1 and 90),
  body         text not null default '' check (length(body) <= 280),
  cta          text not null default 'Learn more' check (length(cta) between 1 and 30),
  -- Media on https, or a path on this service (the demo advertisers' files under public/).
  image_url    text check (image_url ~ '^(https://|/)'),
  video_url    text check (video_url ~ '^(https://|/)'),
  -- Where a click goes: the click endpoint redirects here and nowhere else.
  landing_url  text not null check (landing_url ~ '^https://'),
  created_at   timestamptz not null default now()
);
create index creatives_campaign_id on public.creatives (campaign_id);
create index creatives_active_format on public.creatives (format) where status = 'active';

-- What each campaign spent per day (UTC), kept by the roll-up; pacing reads it.
create table public.campaign_daily_spend (
  campaign_id  uuid not null references public.campaigns (id) on delete cascade,
  day          date not null,
  impressions  bigint not null default 0 check (impressions >= 0),
  clicks       bigint not null default 0 check (clicks >= 0),
  spent_usd    numeric(14, 6) not null default 0 check (spent_usd >= 0),
  primary key (campaign_id, day)
);

-- ── Decisions: one row per ad request ──────────────────────────────────────────────────────
-- Filled or not: the roll-up counts ad requests and fills from here. The decision's id is the
-- nonce its token names, so its impression and its click count once.
create table public.ad_decisions (
  id            uuid primary key default gen_random_uuid(),
  app_id        uuid not null,
  placement_id  uuid not null,
  -- No foreign key: a key is never deleted while its app lives, and the lookup is not worth a
  -- second index probe on every ad request.
  api_key_id    uuid,
  session_id    text check (length(session_id) between 1 and 64),
  campaign_id   uuid references public.campaigns (id) on delete set null,
  creative_id   uuid references public.creatives (id) on delete set null,
  created_at    timestamptz not null default now(),
  rolled_up     boolean not null default false,
  foreign key (placement_id, app_id) references public.placements (id, app_id) on delete cascade
);
create index ad_decisions_to_roll_up on public.ad_decisions (created_at) where not rolled_up;
create index ad_decisions_placement_id on public.ad_decisions (placement_id);
-- The frequency cap counts a session's filled decisions per campaign.
create index ad_decisions_session on public.ad_decisions (app_id, session_id, campaign_id, created_at)
  where session_id is not null and campaign_id is not null;

-- ── Events: impressions and clicks against their decision ──────────────────────────────────
-- The table holds the seeded demo events of earlier versions; they were never counted in any
-- figure, so they are marked rolled up and stay out of the totals.
alter table public.ad_events
  add column app_id          uuid,
  add column decision_id     uuid references public.ad_decisions (id) on delete cascade,
  add column campaign_id     uuid,
  add column creative_id     uuid,
  -- What the advertiser pays for it (the format's CPM / 1000 for an impression), and
  -- `revenue_usd` the publisher's share of that, both as priced when it was recorded.
  add column cost_usd        numeric(14, 6) not null default 0 check (cost_usd >= 0),
  add column billable        boolean not null default true,
  add column invalid_reason  text,
  -- A keyed SHA-256 of the client's address (lib/sdk/events.ts), never the address itself.
  add column ip_hash         text,
  add column rolled_up       boolean not null default false,
  add constraint ad_events_reason_when_invalid check (billable = (invalid_reason is null));
update public.ad_events set rolled_up = true;
alter table public.ad_events
  add constraint ad_events_placement_app foreign key (placement_id, app_id) references public.placements (id, app_id) on delete cascade;
create index ad_events_to_roll_up on public.ad_events (occurred_at) where not rolled_up;
create index ad_events_decision_id on public.ad_events (decision_id);
-- An impression and a click bill once per decision; a concurrent duplicate waits and conflicts.
create unique index ad_events_one_impression_per_decision on public.ad_events (decision_id) where kind = 'impression' and billable;
create unique index ad_events_one_click_per_decision on public.ad_events (decision_id) where kind = 'click' and billable;
-- A billable click per address and ad within 3 hours.
create index ad_events_recent_clicks on public.ad_events (creative_id, ip_hash, occurred_at) where kind = 'click' and billable;

-- ── Consented data ─────────────────────────────────────────────────────────────────────────
-- A subject is the app's own user, named by a SHA-256 (64 hex digits) the app computed: we never
-- learn who it is. One current consent per subject and app; a new one replaces it.
create table public.data_consents (
  id              uuid primary key default gen_random_uuid(),
  app_id          uuid not null,
  user_id         uuid not null,
  subject_hash    text not null check (subject_hash ~ '^[0-9a-f]{64}$'),
  purposes        text[] not null check (cardinality(purposes) > 0 and purposes <@ array['ai_interactions', 'ux_sessions']),
  policy_version  text not null check (length(policy_version) between 1 and 64),
  consented_at    timestamptz not null,
  recorded_at     timestamptz not null default now(),
  withdrawn_at    timestamptz,
  foreign key (app_id, user_id) references public.apps (id, user_id) on delete cascade
);
create unique index data_consents_current on public.data_consents (app_id, subject_hash) where withdrawn_at is null;

create table public.data_records (
  id            uuid primary key default gen_random_uuid(),
  app_id        uuid not null,
  user_id       uuid not null,
  consent_id    uuid not null references public.data_consents (id) on delete cascade,
  subject_hash  text not null,
  kind          text not null check (kind in ('ai_interaction', 'ux_session')),
  -- The app's id for the record: a retried submission is stored once.
  record_id     text not null check (length(record_id) between 1 and 100),
  payload       jsonb not null,
  bytes         integer not null check (bytes > 0),
  status        text not null default 'unsold' check (status in ('unsold', 'sold')),
  received_at   timestamptz not null default now(),
  constraint data_records_once unique (app_id, kind, record_id),
  foreign key (app_id, user_id) references public.apps (id, user_id) on delete cascade
);
create index data_records_subject on public.data_records (app_id, subject_hash);

-- ── Row-level security for the SDK role ────────────────────────────────────────────────────
alter table public.campaigns            enable row level security;
alter table public.campaigns            force row level security;
alter table public.creatives            enable row level security;
alter table public.creatives            force row level security;
alter table public.campaign_daily_spend enable row level security;
alter table public.campaign_daily_spend force row level security;
alter table public.ad_decisions         enable row level security;
alter table public.ad_decisions         force row level security;
alter table public.data_consents        enable row level security;
alter table public.data_consents        force row level security;
alter table public.data_records         enable row level security;
alter table public.data_records         force row level security;

grant select (id, user_id, name, allowed_origins, archived_at) on public.apps to sdk;
grant select (id, app_id, user_id, format, status) on public.placements to sdk;
grant select on public.campaigns, public.creatives, public.campaign_daily_spend, public.pricing_settings to sdk;
grant select, insert on public.ad_decisions, public.ad_events to sdk;
grant select, insert, update (purposes, policy_version, consented_at, recorded_at, withdrawn_at) on public.data_consents to sdk;
grant select, insert, delete on public.data_records to sdk;
grant select on public.campaigns, public.creatives, public.campaign_daily_spend, public.ad_decisions,
  public.data_consents, public.data_records to service_role;
grant insert, update, delete on public.campaigns, public.creatives, public.campaign_daily_spend, public.ad_decisions,
  public.data_consents, public.data_records to service_role;
grant select on public.data_consents to authenticated;

create policy "Apps read their own row through the SDK"
  on public.apps for select to sdk
  using (id = (select public.sdk_app_id()));
create policy "Apps read their own placements through the SDK"
  on public.placements for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps read every campaign through the SDK"
  on public.campaigns for select to sdk using (true);
create policy "Apps read every creative through the SDK"
  on public.creatives for select to sdk using (true);
create policy "Apps read what campaigns spent through the SDK"
  on public.campaign_daily_spend for select to sdk using (true);
create policy "Apps read the pricing settings through the SDK"
  on public.pricing_settings for select to sdk using (true);
create policy "Apps read their own decisions through the SDK"
  on public.ad_decisions for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps record their own decisions through the SDK"
  on public.ad_decisions for insert to sdk
  with check (app_id = (select public.sdk_app_id()));
create policy "Apps read their own events through the SDK"
  on public.ad_events for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps record their own events through the SDK"
  on public.ad_events for insert to sdk
  with check (app_id = (select public.sdk_app_id()) and user_id = (select public.sdk_user_id()));
create policy "Apps read their own consents through the SDK"
  on public.data_consents for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps record their own consents through the SDK"
  on public.data_consents for insert to sdk
  with check (app_id = (select public.sdk_app_id()) and user_id = (select public.sdk_user_id()));
create policy "Apps withdraw their own consents through the SDK"
  on public.data_consents for update to sdk
  using (app_id = (select public.sdk_app_id())) with check (app_id = (select public.sdk_app_id()));
create policy "Apps read their own consented data through the SDK"
  on public.data_records for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps submit their own consented data through the SDK"
  on public.data_records for insert to sdk
  with check (app_id = (select public.sdk_app_id()) and user_id = (select public.sdk_user_id()));
create policy "Apps delete their own unsold data through the SDK"
  on public.data_records for delete to sdk
  using (app_id = (select public.sdk_app_id()) and status = 'unsold');
create policy "Publishers can read the consents their apps recorded"
  on public.data_consents for select to authenticated
  using (user_id = (select auth.uid()));

-- ── Serving an ad ──────────────────────────────────────────────────────────────────────────
-- One call per ad request, as `sdk`: the placement (only the app's own are visible), the
-- eligible creatives of its format, one weighted draw, and the decision row, in one round trip.
-- Eligible: campaign and creative active and running; spent today below the paced budget (the
-- day's budget times the share of the UTC day gone by, plus an hour's worth, so a campaign can
-- start serving after midnight); fewer than `frequency_cap` fills for this session in 24 hours.
-- The draw: weight = daily budget, tripled when a campaign keyword is in the request's keywords;
-- `-ln(1 - random()) / weight` is the smallest for each campaign with probability weight / total.
create function public.sdk_serve_ad(p_placement_id uuid, p_session_id text, p_keywords text[], p_api_key_id uuid)
returns table (
  found        boolean,
  decision_id  uuid,
  format       text,
  creative_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_placement record;
  v_pick record;
  v_day_share numeric := extract(epoch from (now() - date_trunc('day', now(), 'UTC'))) / 86400;
  v_decision uuid;
begin
  select p.id, p.format, p.status into v_placement from public.placements p where p.id = p_placement_id;
  if not found then
    return query select false, null::uuid, null::text, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
    return;
  end if;
  -- Nothing picked unless the placement is active and a creative is eligible.
  select null::uuid as id, null::uuid as campaign_id into v_pick;
  if v_placement.status = 'active' then
    select cr.id, cr.campaign_id, c.advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url into v_pick
    from public.creatives cr
    join public.campaigns c on c.id = cr.campaign_id
    left join public.campaign_daily_spend s on s.campaign_id = c.id and s.day = (now() at time zone 'UTC')::date
    where cr.format = v_placement.format and cr.status = 'active' and c.status = 'active'
      and c.starts_at <= now() and (c.ends_at is null or c.ends_at > now())
      and coalesce(s.spent_usd, 0) < c.daily_budget_usd * least(1, v_day_share + 1.0 / 24)
      and (p_session_id is null or (
        select count(*) from public.ad_decisions d
        where d.app_id = v_app and d.session_id = p_session_id and d.campaign_id = c.id
          and d.created_at > now() - interval '24 hours') < c.frequency_cap)
    order by -ln(1 - random()) / (c.daily_budget_usd * case when c.keywords && coalesce(p_keywords, '{}') then 3 else 1 end)
    limit 1;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  if v_pick.id is null then
    return query select true, v_decision, v_placement.format, null::uuid, null::text, null::text, null::text, null::text, null::text, null::text;
  else
    return query select true, v_decision, v_placement.format, v_pick.id, v_pick.advertiser, v_pick.headline, v_pick.body,
                        v_pick.cta, v_pick.image_url, v_pick.video_url;
  end if;
end $$;
revoke all on function public.sdk_serve_ad(uuid, text, text[], uuid) from public, anon, authenticated;
grant execute on function public.sdk_serve_ad(uuid, text, text[], uuid) to sdk;

-- ── Recording impressions and clicks ───────────────────────────────────────────────────────
-- One call per batch, as `sdk`. The caller has checked each event's token (signature, expiry,
-- app) and passes the decision it names; this decides the rest, in the order the rules are
-- documented (content/docs/sdk-integration.md, Counting rules). Each event is
-- `{n, id, kind, decision_id, visible_share, visible_seconds, area_px}` (the last three: the SDK's
-- viewability evidence, for impressions). Impressions go before clicks, so
-- a batch holding both for one decision counts both. Each event answers one outcome:
--   recorded    billable, counted;
--   duplicate   its id was recorded before (a retry): nothing changes;
--   invalid     recorded as invalid traffic, never billed, with the reason.
create function public.sdk_record_events(p_events jsonb, p_ip_hash text, p_bot boolean)
returns table (n integer, event_id text, outcome text, reason text)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_user uuid := public.sdk_user_id();
  v_pricing record;
  v_event record;
  v_decision record;
  v_reason text;
  v_cost numeric;
  v_id bigint;
begin
  select * into v_pricing from public.pricing_settings;
  for v_event in
    select e.n, e.id, e.kind, e.decision_id, e.visible_share, e.visible_seconds, coalesce(e.area_px, 0) as area_px
    from jsonb_to_recordset(p_events) as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
    order by e.kind = 'click', e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, p.format into v_decision
    from public.ad_decisions d join public.placements p on p.id = d.placement_id
    where d.id = v_event.decision_id;
    if not found or v_decision.creative_id is null then
      -- A token names a decision that filled; anything else is not an ad of this app.
      return query select v_event.n, v_event.id, 'invalid'::text, 'unknown_decision'::text;
      continue;
    end if;
    if exists (select 1 from public.ad_events x where x.placement_id = v_decision.placement_id and x.event_id = v_event.id) then
      return query select v_event.n, v_event.id, 'duplicate'::text, null::text;
      continue;
    end if;

    v_reason := null;
    if p_bot then
      v_reason := 'bot';
    elsif v_event.kind = 'impression' and not coalesce(
        v_event.visible_seconds >= case when v_decision.format = 'floating_video' then 2 else 1 end
        and v_event.visible_share >= case when v_decision.format <> 'floating_video' and v_event.area_px >= 242500 then 0.3 else 0.5 end,
        false) then
      -- The Media Rating Council's rule: 50% of the pixels for one continuous second, 30% for
      -- ads of 242,500 pixels or more, and 50% for two seconds of playback for video.
      v_reason := 'not_viewable';
    elsif exists (select 1 from public.ad_events x where x.decision_id = v_decision.id and x.kind = v_event.kind and x.billable) then
      v_reason := 'already_counted';
    elsif v_event.kind = 'click' and not exists (
      select 1 from public.ad_events x where x.decision_id = v_decision.id and x.kind = 'impression' and x.billable) then
      v_reason := 'no_impression';
    elsif v_event.kind = 'click' then
      -- One billable click per address and ad in 3 hours; the lock makes the check and the insert
      -- one step for concurrent clicks of the same address on the same ad.
      perform pg_advisory_xact_lock(hashtextextended(coalesce(p_ip_hash, '') || v_decision.creative_id::text, 0));
      if exists (select 1 from public.ad_events x
                 where x.creative_id = v_decision.creative_id and x.ip_hash = p_ip_hash and x.kind = 'click'
                   and x.billable and x.occurred_at > now() - interval '3 hours') then
        v_reason := 'repeat_click';
      end if;
    end if;

    v_cost := case
      when v_event.kind <> 'impression' then 0
      when v_decision.format = 'floating_video' then v_pricing.cpm_floating_video_usd
      when v_decision.format = 'tooltip' then v_pricing.cpm_tooltip_usd
      when v_decision.format = 'sponsored_card' then v_pricing.cpm_sponsored_card_usd
      else v_pricing.cpm_inline_text_usd
    end / 1000;

    v_id := null;
    if v_reason is null then
      -- A second event for a decision already counted conflicts on the one-per-decision index.
      insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                    cost_usd, revenue_usd, ip_hash)
      values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
              v_event.kind, round(v_cost, 6), round(v_cost * v_pricing.publisher_ad_revenue_share, 6), p_ip_hash)
      on conflict do nothing
      returning id into v_id;
      if v_id is not null then
        return query select v_event.n, v_event.id, 'recorded'::text, null::text;
        continue;
      end if;
      if exists (select 1 from public.ad_events x where x.placement_id = v_decision.placement_id and x.event_id = v_event.id) then
        return query select v_event.n, v_event.id, 'duplicate'::text, null::text;
        continue;
      end if;
      v_reason := 'already_counted';
    end if;

    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            v_event.kind, false, v_reason, p_ip_hash)
    on conflict do nothing
    returning id into v_id;
    if v_id is null then
      return query select v_event.n, v_event.id, 'duplicate'::text, null::text;
    else
      return query select v_event.n, v_event.id, 'invalid'::text, v_reason;
    end if;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, boolean) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, boolean) to sdk;

-- ── The roll-up ────────────────────────────────────────────────────────────────────────────
-- Adds the decisions and events not yet counted to the placements' totals, the daily stats, the
-- campaigns' daily spend and the keys' last use, and marks them counted, in one transaction:
-- every row is counted exactly once. Rows still uncommitted when it runs are simply left for the
-- next run. One run at a time across instances (the advisory lock); the server runs it every few
-- seconds (lib/sdk/rollup.ts), and on Supabase pg_cron can call it instead.
create function public.roll_up_ad_traffic(p_limit integer default 100000)
returns table (decisions bigint, events bigint)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_decisions bigint := 0;
  v_events bigint := 0;
begin
  if not pg_try_advisory_xact_lock(hashtextextended('public.roll_up_ad_traffic', 0)) then
    return query select 0::bigint, 0::bigint;
    return;
  end if;

  -- What this run takes, grouped; dropped when the transaction ends.
  create temporary table if not exists roll_up_decisions (placement_id uuid, day date, requests bigint, fills bigint, key_id uuid, last_at timestamptz) on commit drop;
  create temporary table if not exists roll_up_events (placement_id uuid, campaign_id uuid, day date, impressions bigint, clicks bigint, revenue numeric, cost numeric) on commit drop;
  truncate pg_temp.roll_up_decisions, pg_temp.roll_up_events;

  with taken as (
    update public.ad_decisions d set rolled_up = true
    where d.id in (select x.id from public.ad_decisions x where not x.rolled_up order by x.created_at limit p_limit for update skip locked)
    returning d.placement_id, (d.created_at at time zone 'UTC')::date as day, d.campaign_id, d.api_key_id, d.created_at
  )
  insert into pg_temp.roll_up_decisions
  select t.placement_id, t.day, count(*), count(t.campaign_id), t.api_key_id, max(t.created_at)
  from taken t group by t.placement_id, t.day, t.api_key_id;
  get diagnostics v_decisions = row_count;

  with taken as (
    update public.ad_events e set rolled_up = true
    where e.id in (select x.id from public.ad_events x where not x.rolled_up order by x.occurred_at limit p_limit for update skip locked)
    returning e.placement_id, e.campaign_id, (e.occurred_at at time zone 'UTC')::date as day, e.kind, e.billable, e.revenue_usd, e.cost_usd
  )
  insert into pg_temp.roll_up_events
  select t.placement_id, t.campaign_id, t.day,
         count(*) filter (where t.kind = 'impression' and t.billable),
         count(*) filter (where t.kind = 'click' and t.billable),
         coalesce(sum(t.revenue_usd) filter (where t.billable), 0),
         coalesce(sum(t.cost_usd) filter (where t.billable), 0)
  from taken t group by t.placement_id, t.campaign_id, t.day;
  get diagnostics v_events = row_count;

  insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, revenue_usd)
  select c.placement_id, p.user_id, c.day, sum(c.requests), sum(c.fills), sum(c.impressions), sum(c.clicks), sum(c.revenue)
  from (select r.placement_id, r.day, r.requests, r.fills, 0 as impressions, 0 as clicks, 0 as revenue from pg_temp.roll_up_decisions r
        union all
        select e.placement_id, e.day, 0, 0, e.impressions, e.clicks, e.revenue from pg_temp.roll_up_events e) c
  join public.placements p on p.id = c.placement_id
  group by c.placement_id, p.user_id, c.day
  on conflict (placement_id, day) do update set
    ad_requests = s.ad_requests + excluded.ad_requests,
    fills       = s.fills + excluded.fills,
    impressions = s.impressions + excluded.impressions,
    clicks      = s.clicks + excluded.clicks,
    revenue_usd = s.revenue_usd + excluded.revenue_usd;

  update public.placements p set
    ad_requests = p.ad_requests + c.requests,
    fills       = p.fills + c.fills,
    impressions = p.impressions + c.impressions,
    clicks      = p.clicks + c.clicks,
    revenue_usd = p.revenue_usd + c.revenue
  from (select x.placement_id, sum(x.requests) requests, sum(x.fills) fills, sum(x.impressions) impressions,
               sum(x.clicks) clicks, sum(x.revenue) revenue
        from (select r.placement_id, r.requests, r.fills, 0 as impressions, 0 as clicks, 0 as revenue from pg_temp.roll_up_decisions r
              union all
              select e.placement_id, 0, 0, e.impressions, e.clicks, e.revenue from pg_temp.roll_up_events e) x
        group by x.placement_id) c
  where p.id = c.placement_id;

  insert into public.campaign_daily_spend as s (campaign_id, day, impressions, clicks, spent_usd)
  select e.campaign_id, e.day, sum(e.impressions), sum(e.clicks), sum(e.cost)
  from pg_temp.roll_up_events e where e.campaign_id is not null
  group by e.campaign_id, e.day
  on conflict (campaign_id, day) do update set
    impressions = s.impressions + excluded.impressions,
    clicks      = s.clicks + excluded.clicks,
    spent_usd   = s.spent_usd + excluded.spent_usd;

  update public.api_keys k set last_used_at = greatest(k.last_used_at, r.last_at)
  from (select key_id, max(last_at) last_at from pg_temp.roll_up_decisions where key_id is not null group by key_id) r
  where k.id = r.key_id;

  return query select (select coalesce(sum(requests), 0)::bigint from pg_temp.roll_up_decisions),
                      (select coalesce(sum(impressions + clicks), 0)::bigint from pg_temp.roll_up_events);
end $$;
revoke all on function public.roll_up_ad_traffic(integer) from public, anon, authenticated, sdk;
grant execute on function public.roll_up_ad_traffic(integer) to service_role;

-- ── Account reads gain fills ───────────────────────────────────────────────────────────────
create or replace function public.account_apps() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'apps', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                     from (select id, name, slug, description, category, allowed_origins, created_at
                           from public.apps where archived_at is null) r),
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select p.id, p.app_id, p.name, p.format, p.status, p.impressions, p.clicks, p.revenue_usd,
                                        p.ad_requests, p.fills, p.created_at
                                 from public.placements p join public.apps a on a.id = p.app_id
                                 where a.archived_at is null) r))
          from public.users u);
end $$;

create or replace function public.account_earnings() returns json
language plpgsql stable security invoker set search_path = ''
as $$
begin
  return (select json_build_object(
            'id', u.id,
            'placements', (select coalesce(json_agg(r order by r.created_at, r.id), '[]')
                           from (select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, fills, created_at
                                 from public.placements) r),
            'payouts', (select coalesce(json_agg(r order by r.period desc), '[]')
                        from (select period, amount_usd, status, paid_at, requested_at from public.payouts) r))
          from public.users u);
end $$;
