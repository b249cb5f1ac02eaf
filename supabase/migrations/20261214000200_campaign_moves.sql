-- Campaign moves in one home (issue 40). Which status moves an advertiser may make was decided by
-- the trigger public.campaigns_guard, and again in TypeScript (MOVES, lib/ads/advertisers/account.ts),
-- which wrote the move only from the statuses it listed and otherwise answered that the campaign
-- could not make it. Now public.campaign_move makes the move as the advertiser and the trigger
-- alone judges it; the function answers why it refused by the constraint the trigger named. So the
-- console keeps its words, the trigger names its two kinds of refusal apart: a move this status
-- does not make (`campaigns_status_move`, as before) and a campaign paused, but not by its
-- advertiser, that they try to resume (`campaigns_resume_not_theirs`, new). And it judges the move
-- before the review columns: a move from `rejected` was refused as a change of the rejection
-- reason (which the trigger itself clears when the status leaves `rejected`), and is now refused
-- as the move it is. The move names and the status each asks for are
-- public.campaign_move_targets.

create or replace function public.campaigns_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_company text;
begin
  if new.status = 'paused' and new.pause_reason is null then
    new.pause_reason := 'advertiser';
  elsif new.status <> 'paused' then
    new.pause_reason := null;
  end if;
  if new.status <> 'rejected' then
    new.rejection_reason := null;
  end if;
  if tg_op = 'INSERT' or old.status in ('draft', 'rejected') then
    select p.company into v_company from public.advertiser_profiles p where p.user_id = new.advertiser_id;
    new.advertiser := coalesce(v_company, new.advertiser);
  else
    new.advertiser := old.advertiser;
  end if;
  if tg_op = 'INSERT' or new.daily_cap_usd is distinct from old.daily_cap_usd or new.lifetime_budget_usd is distinct from old.lifetime_budget_usd then
    new.daily_budget_usd := coalesce(least(new.daily_cap_usd, new.lifetime_budget_usd), new.daily_budget_usd);
    new.budget_day := null;
  end if;
  if current_user <> 'authenticated' then
    return new;
  end if;
  if tg_op = 'INSERT' then
    new.status := 'draft';
    new.pause_reason := null;
    new.rejection_reason := null;
    return new;
  end if;
  if old.status = 'completed' then
    raise exception 'a completed campaign cannot be changed' using errcode = 'check_violation', constraint = 'campaigns_completed_unchanged';
  end if;
  if new.status is distinct from old.status then
    if old.status = 'draft' and new.status = 'in_review' then
      if not exists (select 1 from public.creatives c where c.campaign_id = new.id) then
        raise exception 'a campaign goes to review with at least one creative' using errcode = 'check_violation', constraint = 'campaigns_review_needs_creative';
      end if;
      new.submitted_at := now();
    elsif old.status in ('scheduled', 'active') and new.status = 'paused' then
      new.pause_reason := 'advertiser';
    elsif old.status = 'paused' and old.pause_reason = 'advertiser' and new.status = 'active' then
      new.pause_reason := null;
      if new.starts_at > now() then
        new.status := 'scheduled';
      elsif coalesce((select sum(p.amount_micro) from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                      where a.kind = 'advertiser' and a.user_id = new.advertiser_id), 0) <= 0 then
        new.status := 'paused';
        new.pause_reason := 'out_of_funds';
      end if;
    elsif old.status = 'paused' and new.status = 'active' then
      -- Paused for want of funds, or for a payment taken back: a top-up or the operator resumes it.
      raise exception 'a campaign paused (%) is not resumed by its advertiser', old.pause_reason
        using errcode = 'check_violation', constraint = 'campaigns_resume_not_theirs';
    else
      raise exception 'a campaign cannot go from % to % here', old.status, new.status using errcode = 'check_violation', constraint = 'campaigns_status_move';
    end if;
  end if;
  -- After the move is judged: a move from `rejected` is refused as a move (above), not for the
  -- rejection reason this trigger clears when the status leaves `rejected`.
  if new.rejection_reason is distinct from old.rejection_reason
     or new.completed_at is distinct from old.completed_at or new.reviewed_at is distinct from old.reviewed_at then
    raise exception 'review and pausing are not set directly' using errcode = 'insufficient_privilege';
  end if;
  if new.status is not distinct from old.status and old.status = 'rejected' then
    new.status := 'draft';
    new.rejection_reason := null;
  end if;
  new.updated_at := now();
  return new;
end $$;

revoke all on function public.campaigns_guard() from public, anon, authenticated, sdk;

create or replace function public.campaign_move_targets()
returns jsonb
language sql immutable set search_path = ''
as $$
  select jsonb_build_object('submit', 'in_review', 'pause', 'paused', 'resume', 'active')
$$;

revoke all on function public.campaign_move_targets() from public, anon, sdk;
grant execute on function public.campaign_move_targets() to authenticated, service_role;

create or replace function public.campaign_move(p_campaign uuid, p_move text)
returns json
language plpgsql volatile security invoker set search_path = ''
as $$
declare
  v_to text := public.campaign_move_targets() ->> p_move;
  v_from text;
  v_status text;
  v_constraint text;
begin
  if v_to is null then
    raise exception 'no campaign move %', p_move using errcode = 'invalid_parameter_value';
  end if;
  select c.status into v_from from public.campaigns c where c.id = p_campaign for update;
  if not found then
    return json_build_object('ok', false, 'error', 'not_found');
  end if;
  if v_from = v_to then
    return json_build_object('ok', false, 'error', 'unchanged');
  end if;
  begin
    update public.campaigns c set status = v_to where c.id = p_campaign returning c.status into v_status;
  exception when check_violation then
    get stacked diagnostics v_constraint = constraint_name;
    return json_build_object('ok', false, 'error', v_constraint);
  end;
  return json_build_object('ok', true, 'status', v_status);
end $$;

revoke all on function public.campaign_move(uuid, text) from public, anon, sdk;
grant execute on function public.campaign_move(uuid, text) to authenticated;
