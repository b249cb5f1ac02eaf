import { describe, expect, it } from 'vitest';
import { micro, microAmount, microAsUsd, microToUsd, sumMicro, usdToMicro, exactUsd, wholeCents, type Micro } from './micro';

describe('micro-dollars', () => {
  it('takes dollars given to the millionth exactly', () => {
    expect(usdToMicro(0.000001)).toBe(1);
    expect(usdToMicro(1493.612345)).toBe(1_493_612_345);
    expect(usdToMicro(0.0021)).toBe(2_100);
    // 0.1 + 0.2 in dollars is not 0.3 in floating point; in micro-dollars it is.
    expect(usdToMicro(0.1) + usdToMicro(0.2)).toBe(usdToMicro(0.3));
  });

  it('rounds to the cent half away from zero, once, when shown', () => {
    expect(microToUsd(micro(4_999))).toBe(0);
    expect(microToUsd(micro(5_000))).toBe(0.01);
    expect(microToUsd(micro(1_004_999))).toBe(1);
    expect(microToUsd(micro(1_005_000))).toBe(1.01);
    expect(microToUsd(micro(-5_000))).toBe(-0.01);
    expect(microToUsd(micro(-4_999))).toBe(0);
  });

  it('gives a price finer than a cent back as the same number the decimal reads as', () => {
    // The pricing API published `Number('0.0020')` when prices were kept in dollars: the same number.
    expect(microAsUsd(micro(2_000))).toBe(Number('0.0020'));
    expect(microAsUsd(micro(12_345_600))).toBe(Number('12.3456'));
    expect(microAsUsd(micro(1_493_610_000))).toBe(Number('1493.610000'));
  });

  it('sums exactly', () => {
    expect(sumMicro([micro(1), micro(2), micro(3)])).toBe(6);
    expect(sumMicro([])).toBe(0);
  });

  it('refuses a number that is not a whole number of micro-dollars', () => {
    expect(() => micro(0.5)).toThrow(/whole number of micro-dollars/);
    expect(() => micro(Number.NaN)).toThrow(/whole number of micro-dollars/);
    expect(() => micro(2 ** 53)).toThrow(/whole number of micro-dollars/);
    expect(microAmount.parse(42)).toBe(42);
    expect(microAmount.safeParse(4.2).success).toBe(false);
  });

  it('keeps dollars and micro-dollars apart in the types', () => {
    const inDollars = 12.5;
    // @ts-expect-error: a number of dollars is not micro-dollars.
    const wrong: Micro = inDollars;
    expect(wrong).toBe(12.5);
    const right: Micro = usdToMicro(inDollars);
    expect(right).toBe(12_500_000);
  });
});

describe('what of a balance a payout can take', () => {
  it('is its whole cents, never more than it holds, never below zero', () => {
    expect(wholeCents(micro(6_000))).toBe(0);
    expect(microToUsd(wholeCents(micro(6_000)))).toBe(0);
    expect(wholeCents(micro(1_851_549_999))).toBe(1_851_540_000);
    expect(wholeCents(micro(50_000_000))).toBe(50_000_000);
    expect(wholeCents(micro(0))).toBe(0);
    expect(wholeCents(micro(-5_000))).toBe(0);
  });
});

describe('money as the CSVs write it', () => {
  it('is exact: dollars to the millionth, never rounded to the cent', () => {
    expect(exactUsd(micro(1_851_549_999))).toBe('1851.549999');
    expect(exactUsd(micro(144_900))).toBe('0.144900');
    expect(exactUsd(micro(0))).toBe('0.000000');
  });
});
