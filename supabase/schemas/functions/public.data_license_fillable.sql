-- How many records a license of `p_quantity` rows or recordings could take under the share caps
-- (migration 20261213000400_data_market_trust), from what each app for sale has available for the
-- filter (`p_publishers`, `p_records`: one entry per app, its publisher and its records): per app at most the app cap,
-- per publisher (all its apps together) at most the publisher cap (public.data_license_share_cap).
-- A purchase spreads its records across apps and publishers exactly so (public.data_license_buy),
-- so it can be filled when this is at least `p_quantity`.
create or replace function public.data_license_fillable(p_publishers uuid[], p_records bigint[], p_quantity numeric)
returns bigint
language sql stable set search_path = ''
as $$
  select coalesce(sum(y.taken), 0)::bigint
  from (
    select least(sum(least(x.records, public.data_license_share_cap(p_quantity, s.data_license_max_app_share, s.data_license_min_share_records))),
                 public.data_license_share_cap(p_quantity, s.data_license_max_publisher_share, s.data_license_min_share_records)) as taken
    from unnest(p_publishers, p_records) as x(publisher_id, records)
    cross join public.pricing_settings s
    group by x.publisher_id, s.data_license_max_publisher_share, s.data_license_min_share_records
  ) y
$$;

revoke all on function public.data_license_fillable(uuid[], bigint[], numeric) from public, anon, authenticated, sdk, service_role;
