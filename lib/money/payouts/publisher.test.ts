import { describe, expect, it } from 'vitest';
import { micro, type Micro } from '../../platform/kit/micro';
import { PAYOUT_REFUSALS } from './publisher';

// Whether a payout may be requested is the database's to say (public.payout_eligibility; both
// engines: tests/integration/payout-preview.test.ts). These are the words for its answer.
const belowMinimum = PAYOUT_REFUSALS.below_minimum as (r: { available_micro: Micro; minimum_micro: Micro }) => string;

describe('the words for a payout refused', () => {
  it('says how much is missing, from what a payout in whole cents would take', () => {
    expect(belowMinimum({ available_micro: micro(12_340_000), minimum_micro: micro(50_000_000) })).toBe(
      'Your available balance is $12.34; the minimum payout is $50.00: $37.66 to go.',
    );
    // $49.999999 is $49.99 in whole cents: one cent short.
    expect(belowMinimum({ available_micro: micro(49_999_999), minimum_micro: micro(50_000_000) })).toBe(
      'Your available balance is $49.99; the minimum payout is $50.00: $0.01 to go.',
    );
  });

  it('says when nothing is available yet, even with no minimum', () => {
    expect(belowMinimum({ available_micro: micro(9_999), minimum_micro: micro(0) })).toMatch(/^Nothing is available to pay out yet/);
  });

  it('says what to do about the method', () => {
    expect(PAYOUT_REFUSALS.no_method).toMatch(/add a payout method/);
    expect(PAYOUT_REFUSALS.method_not_ready).toMatch(/not ready yet/);
  });
});
