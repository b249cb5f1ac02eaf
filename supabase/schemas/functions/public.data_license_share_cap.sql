-- The most records one app, or one publisher, may contribute to a license of `p_quantity` records
-- (migration 20261213000400_data_market_trust): its share of the license (`p_share`, the pricing
-- settings' `data_license_max_app_share` or `data_license_max_publisher_share`), rounded up, and
-- never fewer than `p_min_records` (`data_license_min_share_records`), so that a small license
-- can still be filled from a small market: a license of at most that many records may come from
-- one app. A purchase (public.data_license_buy) and its quote (public.data_license_quote) use it.
create or replace function public.data_license_share_cap(p_quantity numeric, p_share numeric, p_min_records integer)
returns bigint
language sql immutable set search_path = ''
as $$
  select greatest(ceil(p_quantity * p_share), p_min_records)::bigint
$$;

revoke all on function public.data_license_share_cap(numeric, numeric, integer) from public, anon, sdk;
grant execute on function public.data_license_share_cap(numeric, numeric, integer) to authenticated, service_role;
