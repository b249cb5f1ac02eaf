-- The money of a data sale (migration 20261209000000_data_buyers): one `data_sale` transaction,
-- referenced by the license, of `p_price_micro` from buyer `p_buyer` to the publishers whose
-- records the license holds and to the platform. The publishers' part, `publisher_data_revenue_share`
-- of the price rounded once, is split per publisher and app in proportion to the records each
-- contributed (bytes, for a GB bundle), floored, and the micro-dollars left over go one each to
-- the largest remainders; the platform's part is the rest, so the postings sum to zero exactly.
-- Called by public.data_license_buy and public.staff_data_license_review; nobody else.
create or replace function public.data_license_grant(p_license uuid, p_buyer uuid, p_listing text, p_price_micro bigint)
returns uuid
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_share numeric;
  v_publishers bigint;
  v_postings jsonb;
begin
  select s.publisher_data_revenue_share into v_share from public.pricing_settings s;
  v_publishers := round(p_price_micro * v_share)::bigint;
  with parts as (
    select lr.publisher_id, lr.app_id, sum(case when p_listing = 'gb_bundles' then lr.bytes else 1 end)::numeric as weight
    from public.data_license_records lr where lr.license_id = p_license
    group by lr.publisher_id, lr.app_id
  ),
  exact as (
    select p.*, v_publishers * p.weight / sum(p.weight) over () as owed from parts p
  ),
  floored as (
    select e.*, floor(e.owed)::bigint as base,
           row_number() over (order by e.owed - floor(e.owed) desc, e.app_id, e.publisher_id) as rank
    from exact e
  ),
  paid as (
    select f.publisher_id, f.app_id,
           f.base + case when f.rank <= v_publishers - sum(f.base) over () then 1 else 0 end as micro
    from floored f
  )
  select jsonb_agg(jsonb_build_object('account_id', public.ledger_account('publisher', p.publisher_id), 'amount_micro', p.micro, 'app_id', p.app_id))
  into v_postings
  from paid p;
  v_postings := v_postings
    || jsonb_build_array(jsonb_build_object('account_id', public.ledger_account('buyer', p_buyer), 'amount_micro', -p_price_micro),
                         jsonb_build_object('account_id', public.ledger_account('platform_fees', null), 'amount_micro', p_price_micro - v_publishers));
  return public.ledger_post('data_sale', p_license::text, now(), null, v_postings);
end $$;

revoke all on function public.data_license_grant(uuid, uuid, text, bigint) from public, anon, authenticated, sdk, service_role;
