-- An advertiser asks for a top-up by the manual rail (migration 20261207000000_advertisers), or a
-- data buyer of their own account (`p_account_kind` 'buyer', migration 20261209000000_data_buyers): a
-- `requested` top-up of `p_amount_micro` with its invoice number, which the operator marks paid
-- when the money arrives (public.staff_top_up_record). Refused as public.top_up_refusal says
-- (no advertiser profile, outside the published range), and past ten open requests. Answers `{ok, top_up_id, invoice_number}` or
-- `{ok: false, error}`. Security definer: `top_ups` is written only by the money's functions.
create or replace function public.top_up_request(p_amount_micro bigint, p_account_kind text default 'advertiser')
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_user uuid := auth.uid();
  v_refusal json;
  v_id uuid;
  v_invoice text;
begin
  v_refusal := public.top_up_refusal(v_user, p_amount_micro, p_account_kind);
  if v_refusal is not null then
    return v_refusal;
  end if;
  perform pg_advisory_xact_lock(hashtextextended('top_up_request:' || v_user, 0));
  if (select count(*) from public.top_ups t where t.user_id = v_user and t.status = 'requested') >= 10 then
    return json_build_object('ok', false, 'error', 'too_many_open');
  end if;
  v_invoice := 'INV-' || to_char(now() at time zone 'UTC', 'YYYYMMDD') || '-' || upper(substr(md5(gen_random_uuid()::text), 1, 8));
  insert into public.top_ups (user_id, amount_micro, rail, status, invoice_number, account_kind)
  values (v_user, p_amount_micro, 'manual', 'requested', v_invoice, p_account_kind)
  returning id into v_id;
  return json_build_object('ok', true, 'top_up_id', v_id, 'invoice_number', v_invoice);
end $$;

revoke all on function public.top_up_request(bigint, text) from public, anon, sdk;
grant execute on function public.top_up_request(bigint, text) to authenticated;
