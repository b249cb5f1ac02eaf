-- Staff review a campaign sent for review (migration 20261207000000_advertisers): approved, it
-- is `scheduled` (the roll-up makes it `active` at its start, public.campaigns_advance) or, when
-- its advertiser has no funds, `paused` until a top-up; rejected, it is `rejected` with the reason
-- its advertiser reads. Its creatives are reviewed one by one (public.staff_creative_review).
-- Refused to anyone but staff (public.is_staff); audited.
create or replace function public.staff_campaign_review(p_campaign uuid, p_approve boolean, p_reason text)
returns json
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_campaign record;
  v_status text;
begin
  if not public.is_staff() then
    raise exception 'staff only' using errcode = 'insufficient_privilege';
  end if;
  if not p_approve and coalesce(btrim(p_reason), '') = '' then
    return json_build_object('ok', false, 'error', 'reason_required');
  end if;
  select * into v_campaign from public.campaigns c where c.id = p_campaign for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_campaign.status <> 'in_review' then
    return json_build_object('ok', false, 'error', 'not_in_review', 'status', v_campaign.status);
  end if;
  v_status := case when not p_approve then 'rejected'
                   when v_campaign.advertiser_id is not null and public.ledger_balance_micro('advertiser', v_campaign.advertiser_id) <= 0 then 'paused'
                   when v_campaign.starts_at <= now() then 'active'
                   else 'scheduled' end;
  update public.campaigns c set status = v_status,
    pause_reason = case when v_status = 'paused' then 'out_of_funds' end,
    rejection_reason = case when p_approve then null else btrim(p_reason) end,
    reviewed_at = now(), reviewed_by = auth.uid(), updated_at = now()
  where c.id = p_campaign;
  insert into public.staff_audit_log (staff_user_id, action, subject, reason, details)
  values (auth.uid(), case when p_approve then 'campaign.approved' else 'campaign.rejected' end, p_campaign::text, nullif(btrim(p_reason), ''),
          jsonb_build_object('advertiser_id', v_campaign.advertiser_id, 'status', v_status));
  return json_build_object('ok', true, 'status', v_status);
end $$;

revoke all on function public.staff_campaign_review(uuid, boolean, text) from public, anon, sdk;
grant execute on function public.staff_campaign_review(uuid, boolean, text) to authenticated;
