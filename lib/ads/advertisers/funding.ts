import { micro, type Micro } from '../../platform/kit/micro';

/**
 * Whether an advertiser's balance can pay for a day of a campaign: what the campaign may spend in
 * a day is its daily cap, no more than what is left of its budget (the whole budget without a cap).
 * A campaign without either has no day's figure: only an empty balance cannot pay for it. Answers
 * the day's spend the balance falls short of, or null when it covers it. The console warns with
 * it before the campaign goes to review, and while it waits or runs: approved, it would not serve.
 */
export function dayShortfall(
  balance: Micro,
  campaign: { lifetime_budget_micro: Micro | null; daily_cap_micro: Micro | null; spent_micro: Micro },
): { day_micro: Micro | null } | null {
  const left = campaign.lifetime_budget_micro === null ? null : Math.max(campaign.lifetime_budget_micro - campaign.spent_micro, 0);
  const day = campaign.daily_cap_micro === null ? left : left === null ? campaign.daily_cap_micro : Math.min(campaign.daily_cap_micro, left);
  if (day === null) return balance <= 0 ? { day_micro: null } : null;
  return balance < day ? { day_micro: micro(day) } : null;
}
