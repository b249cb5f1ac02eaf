-- What a campaign the draw reached shows, if it may fill now: one of its approved creatives of the
-- format, at random (a campaign with more creatives does not win more often), when it has paced
-- budget left today (sdk_day_share, sdk_paced_budget_left), counting what it was billed today
-- (its `budget:` counter) and what the ads it served in the impression window may still bill
-- (its `served:` less its `billed:` counters of the last 15 minutes, which the roll-up keeps),
-- and the client's network is under the campaign's frequency cap (sdk_network_fills,
-- sdk_under_frequency_cap). The fills are counted up to the allowance and no further: an index
-- read of at most `frequency_cap` × `p_network_factor` entries, none when the factor is 0.
-- The window's counters are read on the counters' key, (name, period) from the window's first
-- slot (a row comparison, which only that index can answer): written as `period >= …`, the
-- planner could pick the index on period alone when its statistics lagged, and then read every
-- campaign's counters of the window to sum one's, 850 rows and 2.5 ms a decision in the bench
-- (migration 20261218000000_serving_speed).
-- Nothing otherwise. The campaign's checks name none of the creative's columns: PostgreSQL runs
-- them once, before it reads a creative.
-- A rule of the money path (migration 20261129000000_rules_one_by_one): `language sql`, not
-- security definer, no `set` clause, so that PostgreSQL inlines it into the statement that calls
-- it. Executable by `sdk`, the role the compositions run as, and nobody else.
create or replace function public.sdk_campaign_creative(p_campaign_id uuid, p_advertiser text, p_daily_budget bigint, p_frequency_cap integer,
                                                        p_format text, p_app_id uuid, p_network_hash text, p_network_factor integer,
                                                        p_at timestamptz)
returns table (
  id           uuid,
  campaign_id  uuid,
  advertiser   text,
  headline     text,
  body         text,
  cta          text,
  image_url    text,
  video_url    text
)
language sql stable
as $$
  select cr.id, cr.campaign_id, p_advertiser, cr.headline, cr.body, cr.cta, cr.image_url, cr.video_url
  from public.creatives cr
  where cr.campaign_id = p_campaign_id and cr.format = p_format and cr.status = 'active'
    and public.sdk_paced_budget_left(
          (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
           where k.name = 'budget:' || p_campaign_id and k.period = date_trunc('day', p_at, 'UTC'))
          + greatest(0, (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                         where k.name = 'served:' || p_campaign_id
                           and (k.name, k.period) >= ('served:' || p_campaign_id, public.sdk_promise_slot(p_at - interval '15 minutes')))
                        - (select coalesce(sum(k.used), 0)::bigint from public.sdk_counters k
                           where k.name = 'billed:' || p_campaign_id
                             and (k.name, k.period) >= ('billed:' || p_campaign_id, public.sdk_promise_slot(p_at - interval '15 minutes')))),
          p_daily_budget, public.sdk_day_share(p_at))
    and public.sdk_under_frequency_cap((select count(*) from (select from public.sdk_network_fills(p_app_id, p_network_hash, p_campaign_id, p_at)
                                                               limit p_frequency_cap::bigint * p_network_factor) f),
                                       p_frequency_cap, p_network_factor)
  order by random()
  limit 1
$$;

revoke all on function public.sdk_campaign_creative(uuid, text, bigint, integer, text, uuid, text, integer, timestamptz) from public, anon, authenticated;
grant execute on function public.sdk_campaign_creative(uuid, text, bigint, integer, text, uuid, text, integer, timestamptz) to sdk;
