-- What an advertiser may do to a campaign directly (migration 20261207000000_advertisers): a
-- trigger before each insert and update made as `authenticated` (row-level security has already
-- kept them to their own campaigns). A new campaign is a `draft`. Its advertiser moves it only by
-- the moves public.campaign_moves_open lists from its status (migration
-- 20261214002000_campaign_moves_open): the status asked for names the move
-- (public.campaign_move_targets), and a move that list does not open is refused. A draft goes to
-- review with a creative; a resume lands on `scheduled` before its start, or `paused` for want of
-- funds when the balance is gone. Review, rejection and completion are the operator's and the
-- roll-up's (security definer functions, which this leaves alone). It is the one judge of those
-- moves: public.campaign_move, the console's, asks it, and says why it refused by the constraint
-- it names (`campaigns_status_move`: not a move from this status; `campaigns_resume_not_theirs`:
-- a move open had the advertiser paused it, but another reason paused it;
-- `campaigns_review_needs_creative`; `campaigns_completed_unchanged`). Editing a rejected campaign
-- makes it a draft again; a completed one is not edited. For every writer: a campaign paused
-- without a reason was paused by its owner (and one no longer paused has none, nor one no longer
-- rejected a rejection); the advertiser's
-- name, shown with the ads, comes from their profile while the campaign is made, a draft or
-- rejected, so it is the name the campaign is sent to review with, and it stays that name once
-- reviewed (migration 20261213000300_lows: it was copied at every write, so a rename reached
-- approved ads at their next edit or roll-up, unreviewed; public.advertiser_profiles_guard
-- refuses a rename while a campaign is in review or approved); and the day's spending limit
-- (`daily_budget_micro`) follows the daily cap and budget, recomputed from what is left by the
-- next roll-up (public.campaigns_advance).
create or replace function public.campaigns_guard()
returns trigger
language plpgsql
set search_path = ''
as $$
declare
  v_company text;
  v_move text;
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
  if tg_op = 'INSERT' or new.daily_cap_micro is distinct from old.daily_cap_micro or new.lifetime_budget_micro is distinct from old.lifetime_budget_micro then
    new.daily_budget_micro := coalesce(least(new.daily_cap_micro, new.lifetime_budget_micro), new.daily_budget_micro);
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
    -- The move is the one asking for this status; whether it is open from where the campaign is,
    -- public.campaign_moves_open alone says.
    select t.key into v_move from jsonb_each_text(public.campaign_move_targets()) t where t.value = new.status;
    if v_move is null or not v_move = any(public.campaign_moves_open(old.status, old.pause_reason)) then
      if v_move = any(public.campaign_moves_open(old.status, 'advertiser')) then
        -- Paused for want of funds, or for a payment taken back: a top-up or the operator resumes it.
        raise exception 'a campaign paused (%) is not resumed by its advertiser', old.pause_reason
          using errcode = 'check_violation', constraint = 'campaigns_resume_not_theirs';
      end if;
      raise exception 'a campaign cannot go from % to % here', old.status, new.status using errcode = 'check_violation', constraint = 'campaigns_status_move';
    end if;
    if v_move = 'submit' then
      if not exists (select 1 from public.creatives c where c.campaign_id = new.id) then
        raise exception 'a campaign goes to review with at least one creative' using errcode = 'check_violation', constraint = 'campaigns_review_needs_creative';
      end if;
      new.submitted_at := now();
    elsif v_move = 'pause' then
      new.pause_reason := 'advertiser';
    else
      -- Resumed: to `scheduled` before its start, or paused for want of funds when the balance is gone.
      new.pause_reason := null;
      if new.starts_at > now() then
        new.status := 'scheduled';
      elsif coalesce((select sum(p.amount_micro) from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
                      where a.kind = 'advertiser' and a.user_id = new.advertiser_id), 0) <= 0 then
        new.status := 'paused';
        new.pause_reason := 'out_of_funds';
      end if;
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
