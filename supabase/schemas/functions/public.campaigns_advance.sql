-- Campaigns move on by the clock, their budgets and their advertisers' funds (migration
-- 20261207000000_advertisers); the roll-up calls this every run (`p_now`: the clock; tests move
-- it). Approved and started, a `scheduled` campaign becomes `active` (or `paused`, out of funds,
-- when its advertiser has none); one paused because its advertiser's funds ran out
-- (public.ledger_post_ad_spend pauses them as it bills) resumes once they are back
-- (public.top_up_credit resumes them at once), funds being what may be spent now (migration
-- 20261213000500_reversals: the balance less card money not cleared yet,
-- public.account_spendable_micro; an account on hold starts nothing: public.campaigns_funds_guard); a campaign with a hard stop is `completed` at its
-- end (one whose budget is spent is completed as it is billed); and, as a day begins, the most each campaign may spend that day
-- (`daily_budget_micro`, which pacing and billing read) is its daily cap, or its whole budget
-- without one, but never more than what its budget has left after the days before: billing
-- refuses what goes past it (public.sdk_take_budget). Answers how many campaigns it changed.
create or replace function public.campaigns_advance(p_now timestamptz default now())
returns integer
language plpgsql volatile security definer set search_path = ''
as $$
declare
  v_changed integer := 0;
  v_count integer;
  v_today date := (p_now at time zone 'UTC')::date;
begin
  update public.campaigns c set
    status = case when c.advertiser_id is null or public.account_spendable_micro('advertiser', c.advertiser_id) > 0 then 'active' else 'paused' end,
    pause_reason = case when c.advertiser_id is null or public.account_spendable_micro('advertiser', c.advertiser_id) > 0 then null else 'out_of_funds' end,
    updated_at = p_now
  where c.status = 'scheduled' and c.starts_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = 'completed', completed_at = p_now, updated_at = p_now
  where c.status in ('scheduled', 'active', 'paused') and c.hard_stop and c.ends_at is not null and c.ends_at <= p_now;
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  update public.campaigns c set status = case when c.starts_at <= p_now then 'active' else 'scheduled' end, pause_reason = null, updated_at = p_now
  where c.status = 'paused' and c.pause_reason = 'out_of_funds' and public.account_spendable_micro('advertiser', c.advertiser_id) > 0
    and not public.account_held(c.advertiser_id);
  get diagnostics v_count = row_count;
  v_changed := v_changed + v_count;

  -- Once a day (when `budget_day` is behind): today's limit from the budget left.
  with left_today as (
    select c.id, c.lifetime_budget_micro - coalesce((select sum(s.spent_micro) from public.campaign_daily_spend s
                                                      where s.campaign_id = c.id and s.day < v_today), 0)::bigint as budget_left
    from public.campaigns c
    where c.status in ('scheduled', 'active', 'paused') and c.budget_day is distinct from v_today
  ), limited as (
    update public.campaigns c set
      daily_budget_micro = greatest(10000, least(c.daily_cap_micro, l.budget_left) / 10000 * 10000),
      budget_day = v_today
    from left_today l
    where c.id = l.id and (c.lifetime_budget_micro is not null or c.daily_cap_micro is not null)
    returning 1
  )
  select count(*) into v_count from limited;
  update public.campaigns c set budget_day = v_today where c.budget_day is distinct from v_today and c.lifetime_budget_micro is null and c.daily_cap_micro is null;

  return v_changed;
end $$;

revoke all on function public.campaigns_advance(timestamptz) from public, anon, authenticated, sdk;
grant execute on function public.campaigns_advance(timestamptz) to service_role;
