import { describe, expect, it } from 'vitest';
import { micro, microToUsd, usdToMicro } from '../platform/kit/micro';
import { clickThroughRate, ecpmUsd, exactSumUsd, rpmUsd } from './figures';

describe('money, rounded once', () => {
  it('sums exactly and rounds the total once: many small amounts add up to what they earned', () => {
    // 10,000 impressions earning $0.0028 each: $28.00, though each rounds to $0.00.
    const amounts = Array.from({ length: 10_000 }, () => micro(2_800));
    expect(exactSumUsd(amounts)).toBe(28);
    expect(amounts.map(microToUsd).reduce((a, b) => a + b, 0)).toBe(0);
    // And amounts that each round up do not add up to more than they earned: 3 × $0.005 is $0.015, shown $0.02, not $0.03.
    expect(exactSumUsd([micro(5_000), micro(5_000), micro(5_000)])).toBe(0.02);
  });

  it('gives a placement’s revenue per 1,000 impressions in cents, 0 without impressions', () => {
    // $1,493.61 over 182,400 impressions: $8.1886… per 1,000, shown $8.19.
    expect(rpmUsd(usdToMicro(1_493.61), 182_400)).toBe(8.19);
    expect(rpmUsd(micro(2_800), 1)).toBe(2.8);
    expect(rpmUsd(micro(1_000_000), 0)).toBe(0);
  });

  it('gives an advertiser’s click-through rate as a fraction and their eCPM in cents, both 0 without impressions', () => {
    expect(clickThroughRate(150, 10_000)).toBe(0.015);
    expect(clickThroughRate(1, 3)).toBe(0.3333);
    expect(clickThroughRate(5, 0)).toBe(0);
    expect(clickThroughRate(12, 10)).toBe(1);
    // 10,000 impressions for $12.345678: $1.2345678 per 1,000, shown $1.23.
    expect(ecpmUsd(micro(12_345_678), 10_000)).toBe(1.23);
    expect(ecpmUsd(micro(2_800), 1)).toBe(2.8);
    expect(ecpmUsd(micro(1_000_000), 0)).toBe(0);
  });
});
