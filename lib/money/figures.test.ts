import { describe, expect, it } from 'vitest';
import { clickThroughRate, ecpmUsd, exactSumUsd, microToUsd, roundUsd, toMicro } from './figures';

describe('money, rounded once', () => {
  it('keeps amounts to the millionth exactly in micro-dollars', () => {
    expect(toMicro(0.000001)).toBe(1);
    expect(toMicro(1493.612345)).toBe(1_493_612_345);
    // 0.1 + 0.2 in dollars is not 0.3 in floating point; in micro-dollars it is.
    expect(toMicro(0.1) + toMicro(0.2)).toBe(toMicro(0.3));
  });

  it('rounds micro-dollars to the cent half away from zero', () => {
    expect(microToUsd(4_999)).toBe(0);
    expect(microToUsd(5_000)).toBe(0.01);
    expect(microToUsd(1_004_999)).toBe(1);
    expect(microToUsd(1_005_000)).toBe(1.01);
    expect(microToUsd(-5_000)).toBe(-0.01);
    expect(microToUsd(-4_999)).toBe(0);
    expect(roundUsd(1.005)).toBe(1.01);
  });

  it('sums exactly and rounds the total once: many small amounts add up to what they earned', () => {
    // 10,000 impressions earning $0.0028 each: $28.00, though each rounds to $0.00.
    const amounts = Array.from({ length: 10_000 }, () => 0.0028);
    expect(exactSumUsd(amounts)).toBe(28);
    expect(amounts.map(roundUsd).reduce((a, b) => a + b, 0)).toBe(0);
    // And amounts that each round up do not add up to more than they earned: 3 × $0.005 is $0.015, shown $0.02, not $0.03.
    expect(exactSumUsd([0.005, 0.005, 0.005])).toBe(0.02);
  });

  it('gives an advertiser’s click-through rate as a fraction and their eCPM in cents, both 0 without impressions', () => {
    expect(clickThroughRate(150, 10_000)).toBe(0.015);
    expect(clickThroughRate(1, 3)).toBe(0.3333);
    expect(clickThroughRate(5, 0)).toBe(0);
    expect(clickThroughRate(12, 10)).toBe(1);
    // 10,000 impressions for $12.345678: $1.2345678 per 1,000, shown $1.23.
    expect(ecpmUsd(12_345_678, 10_000)).toBe(1.23);
    expect(ecpmUsd(2_800, 1)).toBe(2.8);
    expect(ecpmUsd(1_000_000, 0)).toBe(0);
  });
});
