-- Ad requests per placement and day, so that a placement's fill rate (ARCHITECTURE.md: a fraction
-- from 0 to 1) is impressions / ad requests: the share of GET /functions/v1/ads calls that
-- returned an ad. Existing rows start at 0 requests; a fill rate over 0 requests is reported as 0.
alter table public.placements add column ad_requests bigint not null default 0 check (ad_requests >= 0);
alter table public.daily_stats add column ad_requests bigint not null default 0 check (ad_requests >= 0);
