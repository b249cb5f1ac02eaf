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

-- ── Decisions: one row per ad request, and what became of it ───────────────────────────────
-- Filled or not. The decision's id is the nonce its token names. Its billable impression and
-- click are kept on the row itself (the event's id, when, the evidence, the money), so "once per
-- decision" is one conditional update, `where impression_event_id is null`, and a retry is
-- recognised by its event id. Campaign, creative and key are plain ids, not foreign keys: each
-- would cost an index probe on every ad request, and a decision outlives none of them in use
-- (campaigns end rather than disappear; a key lives as long as its app). The counts go to
-- `ad_traffic_counts` below. Pages keep room for the two updates, so they stay on the page
-- without touching an index (heap-only tuples).
-- Decision ids are time-ordered (the layout of UUID version 7: milliseconds first, then random
-- bits): new ids go to the right edge of the primary key, and an event, which comes for an ad
-- served moments before, finds its decision among the index pages just written. Random ids
-- scattered each insert and each lookup over the whole index: on a table larger than memory,
-- a disk read per event (`npm run bench`).
create function public.time_ordered_uuid() returns uuid
language sql volatile
as $$
  select (substr(t, 1, 8) || '-' || substr(t, 9, 4) || '-7' || substr(r, 16, 3) || substr(r, 19))::uuid
  from (select lpad(to_hex(floor(extract(epoch from clock_timestamp()) * 1000)::bigint), 12, '0') as t,
               gen_random_uuid()::text as r) as parts
$$;

create table public.ad_decisions (
  id                   uuid primary key default public.time_ordered_uuid(),
  app_id               uuid not null,
  placement_id         uuid not null,
  api_key_id           uuid,
  session_id           text check (length(session_id) between 1 and 64),
  campaign_id          uuid,
  creative_id          uuid,
  created_at           timestamptz not null default now(),
  -- The billable impression: the SDK's id for it, when, its viewability evidence, and what it
  -- earned (`revenue_usd`, the publisher's share) of what the advertiser pays (`cost_usd`).
  impression_event_id  text,
  impressed_at         timestamptz,
  visible_share        numeric(5, 4),
  visible_seconds      numeric(10, 3),
  cost_usd             numeric(14, 6) not null default 0 check (cost_usd >= 0),
  revenue_usd          numeric(14, 6) not null default 0 check (revenue_usd >= 0),
  -- The billable click, and the keyed hash of the address it came from (lib/sdk/traffic.ts).
  click_event_id       text,
  clicked_at           timestamptz,
  click_ip_hash        text,
  constraint ad_decisions_impression_whole check ((impression_event_id is null) = (impressed_at is null)),
  constraint ad_decisions_click_after_impression check (clicked_at is null or impressed_at is not null),
  foreign key (placement_id, app_id) references public.placements (id, app_id) on delete cascade
) with (fillfactor = 70);
create index ad_decisions_placement_id on public.ad_decisions (placement_id);
-- The frequency cap counts a session's filled decisions per campaign.
create index ad_decisions_session on public.ad_decisions (app_id, session_id, campaign_id, created_at)
  where session_id is not null and campaign_id is not null;
-- A billable click per address and ad within 3 hours.
create index ad_decisions_recent_clicks on public.ad_decisions (creative_id, click_ip_hash, clicked_at) where clicked_at is not null;

-- ── Invalid traffic ────────────────────────────────────────────────────────────────────────
-- `ad_events` keeps what was sent about an ad and not billed, with the reason: an impression not
-- viewable, a second one, a click before its impression, a bot. Billable impressions and clicks
-- are on their decision (above). The demo events earlier versions seeded are billable rows with
-- no decision; no figure ever counted them.
alter table public.ad_events
  add column app_id          uuid,
  add column decision_id     uuid,
  add column campaign_id     uuid,
  add column creative_id     uuid,
  add column billable        boolean not null default true,
  add column invalid_reason  text,
  -- A keyed SHA-256 of the client's address (lib/sdk/traffic.ts), never the address itself.
  add column ip_hash         text,
  add constraint ad_events_reason_when_invalid check (billable = (invalid_reason is null));
-- One foreign key: the placement and app (deleting a placement deletes its events). The owner is
-- pinned by the SDK role's insert policy; events name no key (a beacon has none).
alter table public.ad_events
  drop constraint ad_events_placement_id_user_id_fkey,
  drop constraint ad_events_api_key_id_fkey,
  add constraint ad_events_placement_app foreign key (placement_id, app_id) references public.placements (id, app_id) on delete cascade;
-- No read path lists a user's raw events (reports read the rolled-up tables).
drop index public.ad_events_user_id;

-- ── Counts waiting for the roll-up ─────────────────────────────────────────────────────────
-- Every ad request adds a row (1 request, 0 or 1 fill), every event batch a row per placement
-- and campaign it billed, in the same transaction as the decision or events they count. The
-- roll-up deletes the rows it adds to the totals, so each is counted once; rows of a transaction
-- not yet committed are invisible to it and wait for the next run.
create table public.ad_traffic_counts (
  id            bigint generated always as identity primary key,
  app_id        uuid not null,
  placement_id  uuid not null,
  campaign_id   uuid,
  api_key_id    uuid,
  day           date not null,
  requests      integer not null default 0 check (requests >= 0),
  fills         integer not null default 0 check (fills >= 0 and fills <= requests),
  impressions   integer not null default 0 check (impressions >= 0),
  clicks        integer not null default 0 check (clicks >= 0),
  revenue_usd   numeric(14, 6) not null default 0 check (revenue_usd >= 0),
  cost_usd      numeric(14, 6) not null default 0 check (cost_usd >= 0),
  at            timestamptz not null default now()
);

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
alter table public.ad_traffic_counts    enable row level security;
alter table public.ad_traffic_counts    force row level security;
alter table public.data_consents        enable row level security;
alter table public.data_consents        force row level security;
alter table public.data_records         enable row level security;
alter table public.data_records         force row level security;

grant select (id, user_id, name, allowed_origins, archived_at) on public.apps to sdk;
grant select (id, app_id, user_id, format, status) on public.placements to sdk;
grant select on public.campaigns, public.creatives, public.campaign_daily_spend, public.pricing_settings to sdk;
grant select, insert on public.ad_events to sdk;
-- A decision is written as served: what became of it only through the update below.
grant select, insert (app_id, placement_id, api_key_id, session_id, campaign_id, creative_id) on public.ad_decisions to sdk;
-- What happened to the app's own decisions (policy below), and nothing else of them.
grant update (impression_event_id, impressed_at, visible_share, visible_seconds, cost_usd, revenue_usd,
              click_event_id, clicked_at, click_ip_hash) on public.ad_decisions to sdk;
grant insert on public.ad_traffic_counts to sdk;
grant select, insert, update (purposes, policy_version, consented_at, recorded_at, withdrawn_at) on public.data_consents to sdk;
grant select, insert, delete on public.data_records to sdk;
grant select on public.campaigns, public.creatives, public.campaign_daily_spend, public.ad_decisions,
  public.ad_traffic_counts, public.data_consents, public.data_records to service_role;
grant insert, update, delete on public.campaigns, public.creatives, public.campaign_daily_spend, public.ad_decisions,
  public.ad_traffic_counts, public.data_consents, public.data_records to service_role;
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
create policy "Apps record what became of their own decisions through the SDK"
  on public.ad_decisions for update to sdk
  using (app_id = (select public.sdk_app_id())) with check (app_id = (select public.sdk_app_id()));
create policy "Apps read their own decisions through the SDK"
  on public.ad_decisions for select to sdk
  using (app_id = (select public.sdk_app_id()));
create policy "Apps record their own decisions through the SDK"
  on public.ad_decisions for insert to sdk
  with check (app_id = (select public.sdk_app_id()));
create policy "Apps count their own traffic through the SDK"
  on public.ad_traffic_counts for insert to sdk
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
-- The request is counted (`ad_traffic_counts`) whether or not it filled.
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
    -- One creative per eligible campaign, at random, then one campaign by weight: a campaign
    -- with more creatives does not win more often.
    select e.* into v_pick
    from (
      select distinct on (c.id) cr.id, cr.campaign_id, c.advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url,
             c.daily_budget_usd * case when c.keywords && coalesce(p_keywords, '{}') then 3 else 1 end as weight
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
      order by c.id, random()
    ) as e
    order by -ln(1 - random()) / e.weight
    limit 1;
  end if;
  insert into public.ad_decisions (app_id, placement_id, api_key_id, session_id, campaign_id, creative_id)
  values (v_app, v_placement.id, p_api_key_id, p_session_id, v_pick.campaign_id, v_pick.id)
  returning id into v_decision;
  insert into public.ad_traffic_counts (app_id, placement_id, api_key_id, day, requests, fills)
  values (v_app, v_placement.id, p_api_key_id, (now() at time zone 'UTC')::date, 1, case when v_pick.id is null then 0 else 1 end);
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
-- viewability evidence, for impressions). Each event answers its `n` and one outcome:
--   recorded    billable, counted, on its decision;
--   duplicate   its id was recorded before (a retry): nothing changes;
--   invalid     recorded in `ad_events` as invalid traffic, never billed, with the reason
--               (`unknown_decision` alone is answered without a row: there is no ad to name).
--
-- What a batch mostly holds, first impressions that meet the viewability rule, is recorded in
-- one statement: each decision takes its impression only `where impression_event_id is null`,
-- which a concurrent batch for the same decision waits on and then finds taken. Everything else
-- (clicks, retries, invalid traffic) is decided one event at a time, impressions before clicks,
-- so a batch holding both for one decision counts both. The counts billed go to
-- `ad_traffic_counts` in the same transaction.

-- The format's CPM / 1000, from the pricing settings in force.
create function public.sdk_cost_per_impression(p_format text, p_pricing public.pricing_settings)
returns numeric
language sql immutable
as $$
  select round(case p_format
                 when 'floating_video' then p_pricing.cpm_floating_video_usd
                 when 'tooltip' then p_pricing.cpm_tooltip_usd
                 when 'sponsored_card' then p_pricing.cpm_sponsored_card_usd
                 else p_pricing.cpm_inline_text_usd
               end / 1000, 6)
$$;

-- The Media Rating Council's rule: 50% of the pixels for one continuous second, 30% for ads of
-- 242,500 pixels or more, and 50% for two seconds of playback for video.
create function public.sdk_viewable(p_format text, p_share numeric, p_seconds numeric, p_area bigint)
returns boolean
language sql immutable
as $$
  select coalesce(
    p_seconds >= case when p_format = 'floating_video' then 2 else 1 end
    and p_share >= case when p_format <> 'floating_video' and coalesce(p_area, 0) >= 242500 then 0.3 else 0.5 end,
    false)
$$;

create function public.sdk_record_events(p_events jsonb, p_ip_hash text, p_bot boolean)
returns table (n integer, outcome text, reason text)
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_user uuid := public.sdk_user_id();
  v_today date := (now() at time zone 'UTC')::date;
  v_pricing public.pricing_settings;
  v_recorded integer[] := '{}';
  v_event record;
  v_decision record;
  v_reason text;
  v_cost numeric;
  v_taken boolean;
begin
  select * into v_pricing from public.pricing_settings;

  -- The common case, in one statement.
  if not p_bot then
    with input as (
      select e.n, e.id, e.decision_id, e.visible_share, e.visible_seconds, e.area_px,
             row_number() over (partition by e.id order by e.n) as nth_of_id,
             row_number() over (partition by e.decision_id order by e.n) as nth_of_decision
      from jsonb_to_recordset(p_events)
           as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
      where e.kind = 'impression'
    ), impressed as (
      update public.ad_decisions d set
        impression_event_id = i.id, impressed_at = now(),
        visible_share = least(i.visible_share, 1), visible_seconds = least(i.visible_seconds, 86400),
        cost_usd = public.sdk_cost_per_impression(p.format, v_pricing),
        revenue_usd = round(public.sdk_cost_per_impression(p.format, v_pricing) * v_pricing.publisher_ad_revenue_share, 6)
      from input i, public.placements p
      where d.id = i.decision_id and i.nth_of_id = 1 and i.nth_of_decision = 1
        and d.creative_id is not null and d.impression_event_id is null and p.id = d.placement_id
        and d.click_event_id is distinct from i.id
        and public.sdk_viewable(p.format, i.visible_share, i.visible_seconds, i.area_px)
        -- An id already recorded as invalid traffic stays what it was: the slow path answers `duplicate`.
        and not exists (select 1 from public.ad_events x where x.placement_id = d.placement_id and x.event_id = i.id)
      returning i.n, d.placement_id, d.campaign_id, d.revenue_usd, d.cost_usd
    ), counted as (
      insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, revenue_usd, cost_usd)
      select v_app, m.placement_id, m.campaign_id, v_today, count(*), sum(m.revenue_usd), sum(m.cost_usd)
      from impressed m group by m.placement_id, m.campaign_id
    )
    select coalesce(array_agg(m.n), '{}') into v_recorded from impressed m;
  end if;
  if cardinality(v_recorded) > 0 then
    return query select recorded, 'recorded'::text, null::text from unnest(v_recorded) as recorded;
  end if;
  if cardinality(v_recorded) = jsonb_array_length(p_events) then
    return;
  end if;

  -- Everything else, one at a time.
  for v_event in
    select e.n, e.id, e.kind, e.decision_id, e.visible_share, e.visible_seconds, e.area_px
    from jsonb_to_recordset(p_events)
         as e(n integer, id text, kind text, decision_id uuid, visible_share numeric, visible_seconds numeric, area_px bigint)
    where not (e.n = any(v_recorded))
    order by e.kind = 'click', e.n
  loop
    select d.id, d.placement_id, d.campaign_id, d.creative_id, d.impression_event_id, d.click_event_id, p.format
    into v_decision
    from public.ad_decisions d join public.placements p on p.id = d.placement_id
    where d.id = v_event.decision_id;
    if not found or v_decision.creative_id is null then
      -- A token names a decision that filled; anything else is not an ad of this app.
      return query select v_event.n, 'invalid'::text, 'unknown_decision'::text;
      continue;
    end if;
    if v_event.id in (v_decision.impression_event_id, v_decision.click_event_id)
       or exists (select 1 from public.ad_events x where x.placement_id = v_decision.placement_id and x.event_id = v_event.id) then
      return query select v_event.n, 'duplicate'::text, null::text;
      continue;
    end if;

    v_reason := null;
    if p_bot then
      v_reason := 'bot';
    elsif v_event.kind = 'impression'
          and not public.sdk_viewable(v_decision.format, v_event.visible_share, v_event.visible_seconds, v_event.area_px) then
      v_reason := 'not_viewable';
    elsif (v_event.kind = 'impression' and v_decision.impression_event_id is not null)
          or (v_event.kind = 'click' and v_decision.click_event_id is not null) then
      v_reason := 'already_counted';
    elsif v_event.kind = 'click' and v_decision.impression_event_id is null then
      v_reason := 'no_impression';
    elsif v_event.kind = 'click' then
      -- One billable click per address and ad in 3 hours; the lock makes the check and the
      -- update one step for concurrent clicks of the same address on the same ad.
      perform pg_advisory_xact_lock(hashtextextended(coalesce(p_ip_hash, '') || v_decision.creative_id::text, 0));
      if exists (select 1 from public.ad_decisions x
                 where x.creative_id = v_decision.creative_id and x.click_ip_hash = p_ip_hash
                   and x.clicked_at > now() - interval '3 hours') then
        v_reason := 'repeat_click';
      end if;
    end if;

    if v_reason is null then
      v_cost := case when v_event.kind = 'impression' then public.sdk_cost_per_impression(v_decision.format, v_pricing) else 0 end;
      if v_event.kind = 'impression' then
        update public.ad_decisions set
          impression_event_id = v_event.id, impressed_at = now(),
          visible_share = least(v_event.visible_share, 1), visible_seconds = least(v_event.visible_seconds, 86400),
          cost_usd = v_cost, revenue_usd = round(v_cost * v_pricing.publisher_ad_revenue_share, 6)
        where id = v_decision.id and impression_event_id is null
        returning true into v_taken;
      else
        update public.ad_decisions set click_event_id = v_event.id, clicked_at = now(), click_ip_hash = p_ip_hash
        where id = v_decision.id and click_event_id is null and impression_event_id is not null
        returning true into v_taken;
      end if;
      if coalesce(v_taken, false) then
        v_taken := null;
        insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, clicks, revenue_usd, cost_usd)
        values (v_app, v_decision.placement_id, v_decision.campaign_id, v_today,
                case when v_event.kind = 'impression' then 1 else 0 end, case when v_event.kind = 'click' then 1 else 0 end,
                round(v_cost * v_pricing.publisher_ad_revenue_share, 6), v_cost);
        return query select v_event.n, 'recorded'::text, null::text;
        continue;
      end if;
      -- A concurrent batch took it first (it waited on the row): the same event, or another.
      if exists (select 1 from public.ad_decisions x where x.id = v_decision.id
                 and v_event.id = case when v_event.kind = 'impression' then x.impression_event_id else x.click_event_id end) then
        return query select v_event.n, 'duplicate'::text, null::text;
        continue;
      end if;
      v_reason := 'already_counted';
    end if;

    insert into public.ad_events (event_id, placement_id, user_id, app_id, decision_id, campaign_id, creative_id, kind,
                                  billable, invalid_reason, ip_hash)
    values (v_event.id, v_decision.placement_id, v_user, v_app, v_decision.id, v_decision.campaign_id, v_decision.creative_id,
            v_event.kind, false, v_reason, p_ip_hash)
    on conflict do nothing
    returning true into v_taken;
    if coalesce(v_taken, false) then
      v_taken := null;
      return query select v_event.n, 'invalid'::text, v_reason;
    else
      return query select v_event.n, 'duplicate'::text, null::text;
    end if;
  end loop;
end $$;
revoke all on function public.sdk_record_events(jsonb, text, boolean) from public, anon, authenticated;
grant execute on function public.sdk_record_events(jsonb, text, boolean) to sdk;

-- ── The roll-up ────────────────────────────────────────────────────────────────────────────
-- Takes up to `p_limit` rows of `ad_traffic_counts` (deleting them) and adds them to the
-- placements' totals, the daily stats, the campaigns' daily spend and the keys' last use, in one
-- transaction: every count is added exactly once. Rows of transactions still open are invisible
-- here and wait for the next run; `skip locked` lets two runs share the work without waiting.
-- The server runs it every few seconds (lib/sdk/rollup.ts); on Supabase pg_cron can instead.
create function public.roll_up_ad_traffic(p_limit integer default 200000)
returns table (decisions bigint, events bigint)
language plpgsql volatile security invoker set search_path = ''
as $$
begin
  return query
  with taken as (
    delete from public.ad_traffic_counts c
    where c.id in (select x.id from public.ad_traffic_counts x order by x.id limit p_limit for update skip locked)
    returning c.*
  ), by_day as (
    select t.placement_id, t.day, sum(t.requests) as requests, sum(t.fills) as fills, sum(t.impressions) as impressions,
           sum(t.clicks) as clicks, sum(t.revenue_usd) as revenue
    from taken t group by t.placement_id, t.day
  ), daily as (
    insert into public.daily_stats as s (placement_id, user_id, day, ad_requests, fills, impressions, clicks, revenue_usd)
    select b.placement_id, p.user_id, b.day, b.requests, b.fills, b.impressions, b.clicks, b.revenue
    from by_day b join public.placements p on p.id = b.placement_id
    on conflict (placement_id, day) do update set
      ad_requests = s.ad_requests + excluded.ad_requests,
      fills       = s.fills + excluded.fills,
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      revenue_usd = s.revenue_usd + excluded.revenue_usd
  ), totals as (
    update public.placements p set
      ad_requests = p.ad_requests + c.requests,
      fills       = p.fills + c.fills,
      impressions = p.impressions + c.impressions,
      clicks      = p.clicks + c.clicks,
      revenue_usd = p.revenue_usd + c.revenue
    from (select b.placement_id, sum(b.requests) requests, sum(b.fills) fills, sum(b.impressions) impressions,
                 sum(b.clicks) clicks, sum(b.revenue) revenue
          from by_day b group by b.placement_id) c
    where p.id = c.placement_id
  ), spend as (
    insert into public.campaign_daily_spend as s (campaign_id, day, impressions, clicks, spent_usd)
    select t.campaign_id, t.day, sum(t.impressions), sum(t.clicks), sum(t.cost_usd)
    -- A campaign deleted since its ad was served has no spend to keep (and must not stop the run).
    from taken t where (t.impressions > 0 or t.clicks > 0) and exists (select 1 from public.campaigns c where c.id = t.campaign_id)
    group by t.campaign_id, t.day
    on conflict (campaign_id, day) do update set
      impressions = s.impressions + excluded.impressions,
      clicks      = s.clicks + excluded.clicks,
      spent_usd   = s.spent_usd + excluded.spent_usd
  ), used as (
    update public.api_keys k set last_used_at = greatest(k.last_used_at, u.last_at)
    from (select t.api_key_id, max(t.at) as last_at from taken t where t.api_key_id is not null group by t.api_key_id) u
    where k.id = u.api_key_id
  )
  select coalesce(sum(t.requests), 0)::bigint, coalesce(sum(t.impressions + t.clicks), 0)::bigint from taken t;
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
