-- Erases a subject's records of an app (migration 20261209000000_data_buyers): every record of
-- theirs of `p_kinds` (all kinds: null), sold or not, deleted at once, so no listing, sample,
-- license or export has them from now on; and each buyer whose licenses (granted, or awaiting
-- review) covered any of them gets one deletion notice naming those records and licenses
-- (GDPR Art. 17 and 19); the files of the licenses' exports, which still hold them, are written
-- again without them. The license keeps a row for each, marked withdrawn.
-- A withdrawal within a license's claw-back window is clawed back (migration
-- 20261213000400_data_market_trust): before its `clawback_until`, the sale's date plus the
-- `data_clawback_days` in force when it was sold (migration
-- 20261213001200_clawback_window_per_license; the setting as it is now would reach sales made
-- under other terms, and claw back earnings a month close had already made final). Per license,
-- one `data_clawback` transaction (reference `<license>:<the first of its records withdrawn>`,
-- so written once however often the withdrawal is retried: the records are deleted once) refunds
-- the buyer the price of the records withdrawn, pro rata (by records, or bytes for a bundle: the
-- license's price times the share of it withdrawn so far, floored, less what earlier claw-backs
-- refunded), and takes it back from the publisher whose records they were (their part of the
-- sale, in the sale's proportion, never more than the refund) and from the platform's fee (the
-- rest). A withdrawal at or after the window's end leaves what the sale earned with its
-- publisher. Called in the withdrawal's transaction (lib/data/records.ts), by the app's SDK role for
-- its own app only. Answers how many records were deleted.
create or replace function public.data_records_erase(p_subject text, p_kinds text[], p_reason text)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_app uuid := public.sdk_app_id();
  v_deleted uuid[];
  v_licenses uuid[];
  v_claw record;
  v_before bigint;
  v_app_before bigint;
  v_refund bigint;
  v_publisher bigint;
  v_publishers_part bigint;
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
  -- Withdrawn from the licenses that hold them; a sale whose own window has not ended is clawed back.
  -- One withdrawal at a time per license: each claw-back counts what earlier ones refunded.
  perform 1 from public.data_licenses l
  where l.id in (select lr.license_id from public.data_license_records lr where lr.record_id = any(v_deleted))
  order by l.id for update;
  update public.data_license_records lr set withdrawn_at = now(),
    clawed_back = exists (select 1 from public.data_licenses l where l.id = lr.license_id and now() < l.clawback_until)
  where lr.record_id = any(v_deleted);
  for v_claw in
    select lr.license_id, l.buyer_id, l.price_micro, l.transaction_id, lr.app_id, lr.publisher_id,
           case when l.listing = 'gb_bundles' then l.bytes else l.records end as whole,
           sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end) as part,
           min(lr.record_id::text) as first_record
    from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
    where lr.record_id = any(v_deleted) and lr.clawed_back
    group by lr.license_id, l.buyer_id, l.price_micro, l.transaction_id, lr.app_id, lr.publisher_id, l.listing, l.bytes, l.records
    order by lr.license_id, lr.app_id
  loop
    -- What earlier withdrawals clawed back of this license, and of this app in it (by weight).
    select coalesce(sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end), 0),
           coalesce(sum(case when l.listing = 'gb_bundles' then lr.bytes else 1 end) filter (where lr.app_id = v_claw.app_id), 0)
    into v_before, v_app_before
    from public.data_license_records lr join public.data_licenses l on l.id = lr.license_id
    where lr.license_id = v_claw.license_id and lr.clawed_back and not (lr.record_id = any(v_deleted));
    select coalesce(sum(p.amount_micro), 0) into v_publishers_part
    from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
    where p.transaction_id = v_claw.transaction_id and a.kind = 'publisher';
    v_refund := floor(v_claw.price_micro::numeric * (v_before + v_claw.part) / v_claw.whole)::bigint
                - floor(v_claw.price_micro::numeric * v_before / v_claw.whole)::bigint;
    v_publisher := least(v_refund, floor(v_publishers_part::numeric * (v_app_before + v_claw.part) / v_claw.whole)::bigint
                                   - floor(v_publishers_part::numeric * v_app_before / v_claw.whole)::bigint);
    continue when v_refund <= 0;
    perform public.ledger_post('data_clawback', v_claw.license_id || ':' || v_claw.first_record, now(), p_reason,
      jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('buyer', v_claw.buyer_id), 'amount_micro', v_refund),
                        jsonb_build_object('account_id', public.ledger_account('publisher', v_claw.publisher_id), 'amount_micro', -v_publisher,
                                           'app_id', v_claw.app_id),
                        jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', -(v_refund - v_publisher))));
  end loop;
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
