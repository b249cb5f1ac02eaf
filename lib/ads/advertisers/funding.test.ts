import { describe, expect, it } from 'vitest';
import { micro } from '../../platform/kit/micro';
import { dayShortfall } from './funding';

const campaign = (lifetime: number | null, cap: number | null, spent = 0) => ({
  lifetime_budget_micro: lifetime === null ? null : micro(lifetime),
  daily_cap_micro: cap === null ? null : micro(cap),
  spent_micro: micro(spent),
});

describe('whether a balance pays for a day of a campaign', () => {
  it('compares the balance with the daily cap', () => {
    expect(dayShortfall(micro(0), campaign(500_000_000, 50_000_000))).toEqual({ day_micro: 50_000_000 });
    expect(dayShortfall(micro(49_999_999), campaign(500_000_000, 50_000_000))).toEqual({ day_micro: 50_000_000 });
    expect(dayShortfall(micro(50_000_000), campaign(500_000_000, 50_000_000))).toBeNull();
  });

  it('never asks for more than is left of the budget, and nothing once it is spent', () => {
    expect(dayShortfall(micro(10_000_000), campaign(500_000_000, 50_000_000, 480_000_000))).toEqual({ day_micro: 20_000_000 });
    expect(dayShortfall(micro(20_000_000), campaign(500_000_000, 50_000_000, 480_000_000))).toBeNull();
    expect(dayShortfall(micro(0), campaign(500_000_000, 50_000_000, 500_000_000))).toBeNull();
  });

  it('takes the whole budget for a day without a cap, and only an empty balance without either', () => {
    expect(dayShortfall(micro(99_000_000), campaign(100_000_000, null))).toEqual({ day_micro: 100_000_000 });
    expect(dayShortfall(micro(0), campaign(null, null))).toEqual({ day_micro: null });
    expect(dayShortfall(micro(1), campaign(null, null))).toBeNull();
    expect(dayShortfall(micro(0), campaign(null, 5_000_000))).toEqual({ day_micro: 5_000_000 });
  });
});
