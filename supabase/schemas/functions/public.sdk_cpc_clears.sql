-- Whether a cost-per-click campaign may draw on a placement by its price (migration
-- 20261221000300_cost_per_click): when its bid per click is at least the floor in the pricing
-- settings and its expected earnings per impression there, the bid times its estimated click rate,
-- reach the format's price per impression, so a publisher never earns less per impression from it
-- than from a CPM ad. The estimated click rate is the campaign's on this placement
-- (`campaign_placement_stats`, kept by the roll-up) smoothed toward the published prior, 1%
-- weighted as 1,000 impressions: (clicks + 10) / (impressions + 1,000). In integers:
-- bid × (clicks + 10) ≥ price per impression × (impressions + 1,000). One row, `clears`.
-- A rule of the money path: `language sql`, a table function so that PostgreSQL inlines it into
-- public.sdk_serve_ad, which asks it only of a campaign with a bid (a CPM campaign's is null).
create or replace function public.sdk_cpc_clears(p_campaign uuid, p_placement uuid, p_bid bigint, p_format text)
returns table (clears boolean)
language sql stable
as $$
  select p_bid >= s.cpc_floor_micro
         and p_bid::numeric * (coalesce(t.clicks, 0) + 10)
             >= public.sdk_cost_per_impression(p_format, s)::numeric * (coalesce(t.impressions, 0) + 1000)
  from public.pricing_settings s
  left join public.campaign_placement_stats t on t.campaign_id = p_campaign and t.placement_id = p_placement
$$;

revoke all on function public.sdk_cpc_clears(uuid, uuid, bigint, text) from public, anon, authenticated;
grant execute on function public.sdk_cpc_clears(uuid, uuid, bigint, text) to sdk, service_role;
