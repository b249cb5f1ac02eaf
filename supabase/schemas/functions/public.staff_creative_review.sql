-- Staff review a creative (migration 20261207000000_advertisers): approved, it is `active` and
-- may be served while its campaign runs; rejected, `rejected` with the reason its advertiser
-- reads (who may edit it, which sends it to review again). Only a creative in review is
-- reviewed. Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_creative_review(p_creative uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_creative record;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select cr.id, cr.status, cr.campaign_id into v_creative from public.creatives cr where cr.id = p_creative for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_creative.status <> 'in_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_creative.status);
  end if;
  update public.creatives cr set status = case when p_approve then 'active' else 'rejected' end,
    rejection_reason = case when p_approve then null else btrim(p_reason) end,
    reviewed_at = now(), reviewed_by = auth.uid(), updated_at = now()
  where cr.id = p_creative;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'creative.approved' else 'creative.rejected' end, p_creative::text, nullif(btrim(p_reason), ''),
          jsonb_build_object('campaign_id', v_creative.campaign_id));
  return json_build_object('ok', true, 'status', case when p_approve then 'active' else 'rejected' end);
end $$;

revoke all on function public.staff_creative_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_creative_review(uuid, boolean, text) to authenticated;
