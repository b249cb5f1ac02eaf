-- Erases a subject's records of an app (migration 20261209000000_data_buyers): every record of
-- theirs of `p_kinds` (all kinds: null), sold or not, deleted at once, so no listing, sample,
-- license or export has them from now on; and each buyer whose licenses (granted, or awaiting
-- review) covered any of them gets one deletion notice naming those records and licenses
-- (GDPR Art. 17 and 19); the files of the licenses' exports, which still hold them, are written
-- again without them. What the sale earned its publisher stays theirs. Called in the
-- withdrawal's transaction (lib/sdk/data.ts), by the app's SDK role for its own app only.
-- Answers how many records were deleted.
create or replace function public.data_records_erase(p_subject text, p_kinds text[], p_reason text)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_deleted uuid[];
  v_licenses uuid[];
begin
  if v_app is null then
    raise exception 'the SDK role of an app only' using errcode = 'insufficient_privilege';
  end if;
  with gone as (
    delete from public.data_records r
    where r.app_id = v_app and r.subject_hash = p_subject and (p_kinds is null or r.kind = any(p_kinds))
    returning r.id
  )
  select coalesce(array_agg(g.id), '{}') into v_deleted from gone g;
  insert into public.data_deletion_notices (buyer_id, reason, record_ids, license_ids)
  select l.buyer_id, p_reason, array_agg(distinct lr.record_id order by lr.record_id), array_agg(distinct l.id order by l.id)
  from public.data_license_records lr
  join public.data_licenses l on l.id = lr.license_id
  where lr.record_id = any(v_deleted) and l.status in ('active', 'expired', 'pending_review')
  group by l.buyer_id;
  -- Files already written still hold them: each active license's export is superseded by a new one.
  select coalesce(array_agg(distinct lr.license_id), '{}') into v_licenses
  from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
  where lr.record_id = any(v_deleted) and l.status = 'active';
  update public.data_exports e set status = 'superseded', lease_until = null
  where e.license_id = any(v_licenses) and e.status <> 'superseded';
  insert into public.data_exports (license_id) select unnest(v_licenses);
  return cardinality(v_deleted);
end $$;

revoke all on function public.data_records_erase(text, text[], text) from public, anon, authenticated, service_role;
grant execute on function public.data_records_erase(text, text[], text) to sdk;
