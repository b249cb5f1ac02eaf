-- A data sale's claw-back window is the one in force when the license was sold (issue 39).
-- Migration 20261213000400_data_market_trust claws back a withdrawal within `data_clawback_days`
-- of a sale and holds the sale's publisher earnings until the month close after that window;
-- migration 20261213001100_pricing_data_settings let the operator change the setting. But the
-- withdrawal (public.data_records_erase) and the month close (public.ledger_close_months) read
-- the setting in force now for every sale, so a change reached back to sales made before it:
-- a longer window clawed back earnings a month close had already made final (and payable: the
-- publisher's held balance went below zero), a shorter one released earnings before the window
-- the sale was made under had ended. Pricing changes never reach back.
--
-- Now each license carries its own window's end, `clawback_until`, fixed when it is charged: the
-- charge (its `data_sale` transaction, dated now() in the same transaction) plus the
-- `data_clawback_days` in force then. A standard license is charged when it is bought
-- (public.data_license_buy); an exclusive one when the operator approves it
-- (public.staff_data_license_review), which is its sale: its window, like its term and its
-- revenue share, counts from then, and until then nothing is paid that could be clawed back.
-- A license never charged (awaiting review, rejected) has none. The withdrawal and the month
-- close read the license's window, never the setting.
--
-- Licenses already sold get the window in force now, counted from their sale: what the two
-- functions applied to them until today.

alter table public.data_licenses add column clawback_until timestamptz;

update public.data_licenses l
set clawback_until = t.occurred_at + make_interval(days => coalesce((select s.data_clawback_days from public.pricing_settings s), 30))
from public.ledger_transactions t
where t.id = l.transaction_id;

-- Charged exactly when it has a window.
alter table public.data_licenses add constraint data_licenses_clawback_window_when_charged
  check ((transaction_id is null) = (clawback_until is null));

-- A data buyer buys a license (migration 20261209000000_data_buyers), as themselves: available
-- records of a listing for a filter, `p_quantity` units (public.data_license_quote), spread across
-- the apps and publishers whose records are for sale, none supplying more than its cap (migration
-- 20261213000400_data_market_trust: public.data_apps_for_sale, public.data_license_share_cap),
-- standard or exclusive, paid from their balance, for no more than `p_max_price_micro` (the
-- price they were shown: if the pricing changed since, nothing is bought).
--
-- Standard: granted at once for a year, its export queued. One `data_sale` transaction (reference: the license)
-- debits the buyer the price and credits each publisher whose records it holds, per app, their
-- part of `publisher_data_revenue_share` of it, in proportion to the records (by bytes for a GB
-- bundle) they contributed, to the micro-dollar (largest remainders); the rest is the
-- platform's. Its records may be licensed to others too. Its claw-back window is fixed then:
-- `clawback_until`, the charge plus the `data_clawback_days` in force (migration
-- 20261213001200_clawback_window_per_license), which a later change of the setting never moves.
-- Exclusive: records never licensed before, held from that moment for this license alone (no
-- other listing, sample or license sees them), its price reserved from the balance
-- (public.buyer_funds); the operator approves it (charged then, as above, its claw-back window
-- fixed then, and held for its year) or rejects it (released, nothing charged) in public.staff_data_license_review.
--
-- The records are locked as they are taken, so a withdrawal at the same moment either erases
-- them first or finds them licensed (and sends its notice). Answers `{ok: true, license_id,
-- status, records, bytes, price_micro}` or `{ok: false, error}`: `not_a_buyer`, the quote's
-- refusals, `price_changed` (with the price now), `insufficient_funds` (with what is available),
-- `account_on_hold` (money the buyer paid was taken back: a refund, a dispute; nothing is bought
-- until the operator releases the account, migration 20261213000500_reversals).
-- `p_min_app_age_days`: only records of apps at least that many days old (null or 0: any age;
-- migration 20261213000602_data_min_app_age), kept in the license's filter.
create or replace function public.data_license_buy(p_listing text, p_categories text[], p_from date, p_to date, p_models text[],
                                                   p_quantity numeric, p_exclusive boolean, p_max_price_micro bigint,
                                                   p_min_app_age_days integer default null)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_buyer uuid := auth.uid();
  v_profile record;
  v_quote json;
  v_exclusive boolean := coalesce(p_exclusive, false);
  v_license uuid := gen_random_uuid();
  v_taken integer := 0;
  v_bytes bigint := 0;
  v_limit_bytes bigint;
  -- The one kind of a listing of rows or recordings; bundles take every kind.
  v_kind text := case p_listing when 'ai_interactions' then 'ai_interaction' when 'ux_sessions' then 'ux_session' end;
  v_record record;
  v_units numeric;
  v_price bigint;
  v_funds json;
  v_tx uuid;
  v_app_share numeric;
  v_publisher_share numeric;
  v_min_records integer;
  v_clawback_days integer;
  v_app_cap bigint;
  v_publisher_cap bigint;
  -- A bundle's bytes and records so far, per app and per publisher (keyed by id).
  v_app_bytes jsonb := '{}';
  v_app_records jsonb := '{}';
begin
  select * into v_profile from public.buyer_profiles b where b.user_id = v_buyer;
  if not found then
    return json_build_object('ok', false, 'error', 'not_a_buyer');
  end if;
  if public.account_held(v_buyer) then
    return json_build_object('ok', false, 'error', 'account_on_hold');
  end if;
  -- One purchase at a time per buyer: two at once cannot both spend the same balance.
  perform pg_advisory_xact_lock(hashtextextended('data_license_buy:' || v_buyer, 0));
  v_quote := public.data_license_quote(p_listing, p_categories, p_from, p_to, p_models, p_quantity, v_exclusive, p_min_app_age_days);
  if not (v_quote ->> 'ok')::boolean then
    return v_quote;
  end if;
  if (v_quote ->> 'price_micro')::bigint > coalesce(p_max_price_micro, 0) then
    return json_build_object('ok', false, 'error', 'price_changed', 'price_micro', (v_quote ->> 'price_micro')::bigint);
  end if;
  v_funds := public.buyer_funds(v_buyer);
  if (v_funds ->> 'available_micro')::bigint < (v_quote ->> 'price_micro')::bigint then
    return json_build_object('ok', false, 'error', 'insufficient_funds', 'available_micro', (v_funds ->> 'available_micro')::bigint,
                             'price_micro', (v_quote ->> 'price_micro')::bigint);
  end if;
  v_limit_bytes := case when p_listing = 'gb_bundles' then (p_quantity * 1000000000)::bigint end;
  select s.data_license_max_app_share, s.data_license_max_publisher_share, s.data_license_min_share_records, s.data_clawback_days
  into v_app_share, v_publisher_share, v_min_records, v_clawback_days
  from public.pricing_settings s;
  -- Spread, never newest first: each publisher's newest record, then each one's second, and so on
  -- (a publisher's apps taking turns), in an order drawn per license, while no app and no
  -- publisher supplies more than its cap; only apps for sale (public.data_apps_for_sale).
  if v_limit_bytes is null then
    v_app_cap := public.data_license_share_cap(p_quantity, v_app_share, v_min_records);
    v_publisher_cap := public.data_license_share_cap(p_quantity, v_publisher_share, v_min_records);
    with sellers as (
      select e.app_id, e.publisher_id from public.data_apps_for_sale(now()) e join public.apps a on a.id = e.app_id
      where (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
        and (coalesce(p_min_app_age_days, 0) <= 0 or a.created_at <= now() - make_interval(days => p_min_app_age_days))
    ),
    candidates as (
      -- Each app's newest, at most its cap (index data_records_app_newest).
      select x.id, x.app_id, x.user_id, x.received_at,
             row_number() over (partition by x.app_id order by x.received_at desc, x.id) as app_turn
      from sellers e cross join lateral (
        select r.id, r.app_id, r.user_id, r.received_at
        from public.data_records r
        where r.app_id = e.app_id and r.kind = v_kind
          and r.exclusive_license_id is null
          and (not v_exclusive or r.status = 'unsold')
          and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
          and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
          and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
        order by r.received_at desc, r.id
        limit v_app_cap
      ) x
    ),
    turns as (
      select c.id, c.user_id, row_number() over (partition by c.user_id order by c.app_turn, md5(c.app_id::text || v_license::text)) as publisher_turn
      from candidates c
    ),
    chosen as (
      select t.id, row_number() over (order by t.publisher_turn, md5(t.user_id::text || v_license::text)) as position
      from turns t where t.publisher_turn <= v_publisher_cap
      order by position
      limit p_quantity
    ),
    locked as (
      select r.id, r.app_id, r.user_id, r.bytes
      from public.data_records r join chosen c on c.id = r.id
      where r.exclusive_license_id is null and (not v_exclusive or r.status = 'unsold')
      for update of r skip locked
    )
    insert into public.data_license_records (license_id, position, record_id, app_id, publisher_id, bytes)
    select v_license, row_number() over (order by c.position), l.id, l.app_id, l.user_id, l.bytes from locked l join chosen c on c.id = l.id;
    get diagnostics v_taken = row_count;
    select coalesce(sum(lr.bytes), 0) into v_bytes from public.data_license_records lr where lr.license_id = v_license;
  else
    -- A bundle's caps are on bytes: an app or a publisher supplies at most its share of the size,
    -- or `data_license_min_share_records` records when that is more.
    v_app_cap := ceil(v_limit_bytes * v_app_share)::bigint;
    v_publisher_cap := ceil(v_limit_bytes * v_publisher_share)::bigint;
    for v_record in
      select x.id, x.app_id, x.user_id, x.bytes
      from (
        select r.id, r.app_id, r.user_id, r.bytes,
               row_number() over (partition by r.app_id order by r.received_at desc, r.id) as app_turn
        from public.data_records r
        join public.apps a on a.id = r.app_id
        join public.data_apps_for_sale(now()) e on e.app_id = r.app_id
        where r.exclusive_license_id is null
          and (not v_exclusive or r.status = 'unsold')
          and (cardinality(coalesce(p_categories, '{}')) = 0 or a.category && p_categories)
          and (p_from is null or r.received_at >= p_from::timestamp at time zone 'UTC')
          and (p_to is null or r.received_at < (p_to + 1)::timestamp at time zone 'UTC')
          and (cardinality(coalesce(p_models, '{}')) = 0 or r.model = any(p_models))
          and (coalesce(p_min_app_age_days, 0) <= 0 or a.created_at <= now() - make_interval(days => p_min_app_age_days))
      ) x
      order by x.app_turn, md5(x.app_id::text || v_license::text)
    loop
      continue when v_bytes + v_record.bytes > v_limit_bytes;
      continue when coalesce((v_app_bytes ->> v_record.app_id::text)::bigint, 0) + v_record.bytes > v_app_cap
                and coalesce((v_app_records ->> v_record.app_id::text)::bigint, 0) >= v_min_records;
      continue when coalesce((v_app_bytes ->> v_record.user_id::text)::bigint, 0) + v_record.bytes > v_publisher_cap
                and coalesce((v_app_records ->> v_record.user_id::text)::bigint, 0) >= v_min_records;
      -- Taken by another purchase a moment ago (locked, or held exclusively): not this one's.
      perform 1 from public.data_records r
      where r.id = v_record.id and r.exclusive_license_id is null and (not v_exclusive or r.status = 'unsold')
      for update of r skip locked;
      continue when not found;
      insert into public.data_license_records (license_id, position, record_id, app_id, publisher_id, bytes)
      values (v_license, v_taken + 1, v_record.id, v_record.app_id, v_record.user_id, v_record.bytes);
      v_taken := v_taken + 1;
      v_bytes := v_bytes + v_record.bytes;
      -- Apps and publishers are counted in one map each: their ids never collide.
      v_app_bytes := v_app_bytes || jsonb_build_object(v_record.app_id::text, coalesce((v_app_bytes ->> v_record.app_id::text)::bigint, 0) + v_record.bytes,
                                                       v_record.user_id::text, coalesce((v_app_bytes ->> v_record.user_id::text)::bigint, 0) + v_record.bytes);
      v_app_records := v_app_records || jsonb_build_object(v_record.app_id::text, coalesce((v_app_records ->> v_record.app_id::text)::bigint, 0) + 1,
                                                           v_record.user_id::text, coalesce((v_app_records ->> v_record.user_id::text)::bigint, 0) + 1);
      exit when v_limit_bytes - v_bytes < 1024;
    end loop;
  end if;
  if v_taken = 0 or (v_limit_bytes is null and v_taken < p_quantity) then
    -- Others took some of them a moment ago (locked, or held exclusively): nothing is bought.
    delete from public.data_license_records lr where lr.license_id = v_license;
    return json_build_object('ok', false, 'error', 'quantity_above_available', 'available_records', v_taken, 'available_bytes', v_bytes);
  end if;
  v_units := case when v_limit_bytes is null then v_taken else v_bytes / 1000000000.0 end;
  v_price := round((v_quote ->> 'unit_price_micro')::bigint * v_units * (v_quote ->> 'multiplier')::numeric)::bigint;
  if v_price <= 0 then
    delete from public.data_license_records lr where lr.license_id = v_license;
    return json_build_object('ok', false, 'error', 'not_for_sale');
  end if;
  if not v_exclusive then
    v_tx := public.data_license_grant(v_license, v_buyer, p_listing, v_price);
  end if;
  insert into public.data_licenses (id, buyer_id, listing, exclusive, filter, quantity, records, bytes, units, unit_price_micro, multiplier,
                                    price_micro, terms_version, term_days, status, starts_at, expires_at, transaction_id, clawback_until)
  values (v_license, v_buyer, p_listing, v_exclusive,
          jsonb_build_object('categories', coalesce(p_categories, '{}'), 'from', p_from, 'to', p_to, 'models', coalesce(p_models, '{}'),
                             'min_app_age_days', nullif(greatest(coalesce(p_min_app_age_days, 0), 0), 0)),
          p_quantity, v_taken, v_bytes, v_units, (v_quote ->> 'unit_price_micro')::bigint, (v_quote ->> 'multiplier')::numeric, v_price,
          v_profile.terms_version, 365, case when v_exclusive then 'pending_review' else 'active' end,
          case when v_exclusive then null else now() end, case when v_exclusive then null else now() + interval '365 days' end, v_tx,
          -- The sale's window, from the charge (dated now(), as the `data_sale` transaction is).
          case when v_exclusive then null else now() + make_interval(days => v_clawback_days) end);
  if v_exclusive then
    -- Held while the operator reviews it; a rejection releases them, an approval holds them for its term.
    update public.data_records r set exclusive_license_id = v_license, exclusive_until = now() + interval '30 days'
    from public.data_license_records lr where lr.license_id = v_license and r.id = lr.record_id;
  else
    update public.data_records r set status = 'sold'
    from public.data_license_records lr where lr.license_id = v_license and r.id = lr.record_id and r.status = 'unsold';
    -- Its files, written by the export job.
    insert into public.data_exports (license_id) values (v_license);
  end if;
  return json_build_object('ok', true, 'license_id', v_license, 'status', case when v_exclusive then 'pending_review' else 'active' end,
                           'records', v_taken, 'bytes', v_bytes, 'price_micro', v_price);
end $$;

revoke all on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint, integer) from public, anon, sdk, service_role;
grant execute on function public.data_license_buy(text, text[], date, date, text[], numeric, boolean, bigint, integer) to authenticated;

-- Staff review an exclusive license awaiting it (migration 20261209000000_data_buyers). Approved:
-- charged as a standard sale is (public.data_license_grant), active for its term from now, its
-- records held for that term and marked sold, its export queued. The approval is its sale: its
-- claw-back window (`clawback_until`) counts from the charge, for the `data_clawback_days` in
-- force then, and stays so whatever the setting becomes (migration
-- 20261213001200_clawback_window_per_license), as its revenue share is the one in force then. Refused when the buyer's balance no longer covers
-- it (`insufficient_funds`: the reservation should make that impossible; the check stays), and
-- while the buyer's account is on hold (`account_on_hold`).
-- Rejected: `rejected` with the reason the buyer reads, its records released, nothing charged.
-- Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_data_license_review(p_license uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_license record;
  v_tx uuid;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select * into v_license from public.data_licenses l where l.id = p_license for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_license.status <> 'pending_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_license.status);
  end if;
  if p_approve then
    -- A buyer whose card money was taken back is on hold (migration 20261213000500_reversals):
    -- nothing is sold to them until the operator releases the account.
    if exists (select 1 from public.account_holds h where h.user_id = v_license.buyer_id and h.released_at is null) then
      return json_build_object('ok', false, 'error', 'account_on_hold');
    end if;
    if public.ledger_balance_micro('buyer', v_license.buyer_id) < v_license.price_micro then
      return json_build_object('ok', false, 'error', 'insufficient_funds');
    end if;
    v_tx := public.data_license_grant(v_license.id, v_license.buyer_id, v_license.listing, v_license.price_micro);
    update public.data_licenses l set status = 'active', starts_at = now(), expires_at = now() + make_interval(days => l.term_days),
      transaction_id = v_tx, clawback_until = now() + make_interval(days => (select s.data_clawback_days from public.pricing_settings s)),
      reviewed_at = now(), reviewed_by = auth.uid()
    where l.id = v_license.id;
    update public.data_records r set exclusive_until = now() + make_interval(days => v_license.term_days), status = 'sold'
    where r.exclusive_license_id = v_license.id;
    insert into public.data_exports (license_id) values (v_license.id);
  else
    update public.data_licenses l set status = 'rejected', rejection_reason = btrim(p_reason), reviewed_at = now(), reviewed_by = auth.uid()
    where l.id = v_license.id;
    update public.data_records r set exclusive_license_id = null, exclusive_until = null where r.exclusive_license_id = v_license.id;
  end if;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'data_license.approved' else 'data_license.rejected' end, v_license.id::text,
          nullif(btrim(p_reason), ''), jsonb_build_object('buyer_id', v_license.buyer_id, 'price_micro', v_license.price_micro));
  return json_build_object('ok', true, 'status', case when p_approve then 'active' else 'rejected' end);
end $$;

revoke all on function public.staff_data_license_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_data_license_review(uuid, boolean, text) to authenticated;

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
-- publisher. Called in the withdrawal's transaction (lib/sdk/data.ts), by the app's SDK role for
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

-- The month close (migration 20261206000000_payouts): every calendar month whose final day has
-- come (public.ledger_month_final_at: the 5th of the next month) and that is not closed yet is
-- closed, oldest first. Closing a month moves, for each publisher, what the publisher's `publisher`
-- account (earned, not final) holds from before the month's end, into their `publisher_available`
-- account (final, payable): one `month_close` transaction per publisher and month (reference
-- `<user>:<YYYY-MM>`, dated the first instant of the next month), and one row in
-- `ledger_month_closes`. What it moves nets everything dated before the month's end and not moved
-- yet: the month's ad revenue and adjustments, and an adjustment posted late for a month already
-- closed; a balance that nets to zero or less waits for the next month's earnings. A data sale's
-- publisher postings, and its claw-backs, count from the end of the sale's own claw-back window,
-- the license's `clawback_until` (migration 20261213000400_data_market_trust; fixed when it was
-- sold, migration 20261213001200_clawback_window_per_license): held until the first close after
-- it, whatever `data_clawback_days` has become since. A month is closed only once its days are
-- all in the ledger (no count of it waits for the roll-up, no day of it is unposted: daily stats `posted_usd`, migration 20261207000000_advertisers). Runs twice, or twice at once, changes nothing: one run at a time (an advisory
-- lock), and each month and each transaction is written once. Called by the roll-up
-- (public.roll_up_ad_traffic), so it runs where the roll-up runs (the server's timer, or pg_cron);
-- staff can run it now (public.staff_close_months). `p_now` is the clock (the seed and tests move it).
-- Answers how many months it closed.
create or replace function public.ledger_close_months(p_now timestamptz default now(), p_by uuid default null)
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_month date;
  v_next date;
  v_row record;
  v_publishers integer;
  v_amount bigint;
  v_closed integer := 0;
begin
  -- Nothing to do, the common case, read without a lock.
  select coalesce(max(c.month) + interval '1 month',
                  (select min(date_trunc('month', t.occurred_at at time zone 'UTC'))
                   from public.ledger_transactions t where t.kind in ('ad_spend', 'ad_revenue', 'adjustment', 'data_sale', 'data_clawback')))::date
  into v_month
  from public.ledger_month_closes c;
  if v_month is null or public.ledger_month_final_at(v_month) > p_now then
    return 0;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('ledger_close_months', 0));
  -- Again, under the lock: another run may have closed it meanwhile.
  select coalesce(max(c.month) + interval '1 month', v_month)::date into v_month from public.ledger_month_closes c;

  while public.ledger_month_final_at(v_month) <= p_now loop
    v_next := (v_month + interval '1 month')::date;
    if exists (select 1 from public.ad_traffic_counts c where c.day < v_next)
       or exists (select 1 from public.daily_stats s where s.revenue_usd <> s.posted_usd and s.day < v_next) then
      exit;
    end if;
    v_publishers := 0;
    v_amount := 0;
    for v_row in
      select a.user_id, sum(p.amount_micro)::bigint as amount
      from public.ledger_accounts a
      join public.ledger_postings p on p.account_id = a.id
      join public.ledger_transactions t on t.id = p.transaction_id
      where a.kind = 'publisher'
        and case when t.kind in ('data_sale', 'data_clawback')
                 -- Both kinds' references start with the license's id.
                 then (select l.clawback_until from public.data_licenses l where l.id = split_part(t.reference, ':', 1)::uuid)
                 else t.occurred_at end < v_next::timestamp at time zone 'UTC'
      group by a.user_id
      having sum(p.amount_micro) > 0
      order by a.user_id
    loop
      perform public.ledger_post('month_close', v_row.user_id || ':' || to_char(v_month, 'YYYY-MM'), v_next::timestamp at time zone 'UTC', null,
        jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('publisher', v_row.user_id), 'amount_micro', -v_row.amount),
                          jsonb_build_object('account_id', public.ledger_account('publisher_available', v_row.user_id), 'amount_micro', v_row.amount)));
      v_publishers := v_publishers + 1;
      v_amount := v_amount + v_row.amount;
    end loop;
    insert into public.ledger_month_closes (month, closed_at, closed_by, publishers, amount_micro)
    values (v_month, p_now, p_by, v_publishers, v_amount);
    v_closed := v_closed + 1;
    v_month := v_next;
  end loop;
  return v_closed;
end $$;

revoke all on function public.ledger_close_months(timestamptz, uuid) from public, anon, authenticated, sdk;
grant execute on function public.ledger_close_months(timestamptz, uuid) to service_role;
