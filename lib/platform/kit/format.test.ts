import { describe, expect, it } from 'vitest';
import { clickThroughRate, countOf, formatCount, formatDay, formatMoment, formatPercent, formatShortDay, formatUsd } from './format';

describe('console formats', () => {
  it('writes money in dollars and cents, counts with separators, fractions as percentages', () => {
    expect(formatUsd(1493.605)).toBe('$1,493.61');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatCount(182400)).toBe('182,400');
    expect(formatPercent(0.0512)).toBe('5.1%');
    expect(formatPercent(1)).toBe('100.0%');
  });

  it('writes times in UTC, and a missing time as never', () => {
    expect(formatDay('2025-09-03T23:30:00.000Z')).toBe('Sep 3, 2025 UTC');
    expect(formatShortDay('2026-11-20T00:00:00Z')).toBe('Nov 20');
    expect(formatMoment('2026-11-20T18:42:00.000Z')).toBe('Nov 20, 2026, 06:42 PM UTC');
    expect(formatMoment(null)).toBe('never');
  });

  it('names a count in the singular for one only', () => {
    expect(countOf(1, 'impression')).toBe('1 impression');
    expect(countOf(0, 'click')).toBe('0 clicks');
    expect(countOf(2310, 'record')).toBe('2,310 records');
    expect(countOf(1, 'reply', 'replies')).toBe('1 reply');
    expect(countOf(3, 'reply', 'replies')).toBe('3 replies');
  });

  it('gives a click-through rate of 0 without impressions', () => {
    expect(clickThroughRate(5, 100)).toBe(0.05);
    expect(clickThroughRate(0, 0)).toBe(0);
  });
});
