-- An advertiser moves their campaign `p_campaign` (migration 20261214000200_campaign_moves):
-- `p_move` is one of public.campaign_move_targets (`submit` to review, `pause`, `resume`). Runs as
-- the caller: row-level security keeps them to their own campaigns, and public.campaigns_guard,
-- the one judge of an advertiser's moves, allows the move or refuses it. Answers `{ok: true,
-- status}` with the status the campaign took (a resumed campaign may be `scheduled`, or `paused`
-- for want of funds), or `{ok: false, error}` with `error` `not_found` (none of theirs), `unchanged`
-- (it has that status already: no move), or the constraint the guard named:
-- `campaigns_status_move`, `campaigns_resume_not_theirs`, `campaigns_review_needs_creative`,
-- `campaigns_completed_unchanged`.
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
