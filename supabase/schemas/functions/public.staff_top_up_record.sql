-- Staff record that a manual top-up's payment was received (migration
-- 20261207000000_advertisers), with the bank's reference: the advertiser is credited once
-- (public.top_up_credit); or cancel a request that will not be paid (`p_paid` false, with the
-- reason). Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_top_up_record(p_top_up uuid, p_paid boolean, p_reference text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_answer json;
  v_user uuid;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if coalesce(btrim(p_reference), '') = '' then
    return json_build_object('ok', false, 'error', 'reference_required');
  end if;
  select t.user_id into v_user from public.top_ups t where t.id = p_top_up;
  if v_user is null then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if p_paid then
    v_answer := public.top_up_credit(p_top_up, btrim(p_reference), auth.uid());
  else
    update public.top_ups t set status = 'canceled', payment_reference = btrim(p_reference), recorded_by = auth.uid()
    where t.id = p_top_up and t.status = 'requested';
    v_answer := case when found then json_build_object('ok', true, 'already', false)
                     else json_build_object('ok', false, 'error', 'not_open') end;
  end if;
  if (v_answer ->> 'ok')::boolean and not coalesce((v_answer ->> 'already')::boolean, false) then
    insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
    values (auth.uid(), case when p_paid then 'top_up.paid' else 'top_up.canceled' end, p_top_up::text, btrim(p_reference),
            jsonb_build_object('user_id', v_user, 'transaction_id', v_answer ->> 'transaction_id'));
  end if;
  return v_answer;
end $$;

revoke all on function public.staff_top_up_record(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_top_up_record(uuid, boolean, text) to authenticated;
