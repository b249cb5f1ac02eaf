-- Licenses and holds as time passes (migration 20261209000000_data_buyers), run with the traffic
-- roll-up: a license past its expiry is `expired` (its downloads end); an exclusive license whose
-- review waited 30 days is rejected (nothing was charged; its reservation ends); and the records an
-- exclusive license held are released when its term ends or its review ended so. Answers how many
-- licenses and records changed.
create or replace function public.data_licenses_advance(p_now timestamptz)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_expired integer;
  v_unreviewed integer;
  v_released integer;
begin
  update public.data_licenses l set status = 'expired' where l.status = 'active' and l.expires_at <= p_now;
  get diagnostics v_expired = row_count;
  update public.data_licenses l set status = 'rejected', reviewed_at = p_now,
    rejection_reason = 'No operator reviewed it within 30 days: nothing was charged, and its records were released.'
  where l.status = 'pending_review' and l.requested_at <= p_now - interval '30 days';
  get diagnostics v_unreviewed = row_count;
  update public.data_records r set exclusive_license_id = null, exclusive_until = null
  where r.exclusive_license_id is not null and r.exclusive_until <= p_now;
  get diagnostics v_released = row_count;
  return json_build_object('expired_licenses', v_expired, 'unreviewed_licenses', v_unreviewed, 'released_records', v_released);
end $$;

revoke all on function public.data_licenses_advance(timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.data_licenses_advance(timestamptz) to service_role;
