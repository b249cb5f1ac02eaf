-- What the roll-up costs (ARCHITECTURE.md, Payouts): a run with nothing to do, and a run over
-- 50,000 count rows (what 50,000 event batches of 50 impressions leave), the ledger's posting and
-- the month close included. Writes into the database it runs on: use a seeded one you can throw
-- away, e.g.
--   createdb -h 127.0.0.1 -U postgres rollup_cost
--   DATABASE_URL=postgres://postgres@127.0.0.1:5432/rollup_cost npm run db:reset
--   psql -h 127.0.0.1 -U postgres -d rollup_cost -f scripts/bench/rollup-cost.sql
\timing on
-- Quiet ticks: nothing to roll up, no day to post, no month due (the first pays for the plans).
select * from public.roll_up_ad_traffic();
select * from public.roll_up_ad_traffic();
-- 50,000 count rows of today over the demo's active placements and campaigns.
insert into public.ad_traffic_counts (app_id, placement_id, campaign_id, day, impressions, revenue_micro, cost_micro)
select p.app_id, p.id, c.id, (now() at time zone 'UTC')::date, 50, 140000, 200000
from generate_series(1, 50000) i
join lateral (select id, app_id from public.placements where status = 'active' order by id offset (i % 5) limit 1) p on true
join lateral (select id from public.campaigns order by id offset (i % 3) limit 1) c on true;
select * from public.roll_up_ad_traffic();
select * from public.roll_up_ad_traffic();
