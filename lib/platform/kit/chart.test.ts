import { describe, expect, it } from 'vitest';
import { axisLabel, buildDailyChart, dayTicks, niceStep, niceTicks, PARTIAL_LABEL, summarize } from './chart';
import { formatCount, formatUsd } from './format';

const days = (values: number[], last = '2026-11-20') => {
  const end = Date.parse(`${last}T00:00:00Z`);
  return values.map((value, i) => ({ date: new Date(end - (values.length - 1 - i) * 86_400_000).toISOString().slice(0, 10), value }));
};

describe('nice steps and ticks', () => {
  it('gives counts whole-number ticks only, however small the figures', () => {
    for (const max of [0, 1, 2, 3, 5, 7, 9, 11, 13, 99, 1234, 182_400]) {
      const ticks = niceTicks(0, max, { kind: 'count' });
      expect(ticks.every(Number.isInteger), `max ${max}: ${ticks}`).toBe(true);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeLessThanOrEqual(7);
    }
    expect(niceTicks(0, 0, { kind: 'count' })).toEqual([0, 1]);
    expect(niceTicks(0, 1, { kind: 'count' })).toEqual([0, 1]);
    expect(niceTicks(0, 3, { kind: 'count' })).toEqual([0, 1, 2, 3]);
    expect(niceTicks(0, 7, { kind: 'count' })).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(0, 12_345, { kind: 'count' })).toEqual([0, 5000, 10_000, 15_000]);
  });

  it('gives money ticks in whole cents, without floating-point dust', () => {
    expect(niceTicks(0, 0.03, { kind: 'usd' })).toEqual([0, 0.01, 0.02, 0.03]);
    expect(niceTicks(0, 0.3, { kind: 'usd' })).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(0, 0.7, { kind: 'usd' })).toEqual([0, 0.2, 0.4, 0.6, 0.8]);
    expect(niceTicks(0, 1493.61, { kind: 'usd' })).toEqual([0, 500, 1000, 1500]);
    for (const max of [0.01, 0.09, 0.11, 0.37, 2.5, 12.34]) {
      for (const t of niceTicks(0, max, { kind: 'usd' })) expect(Math.abs(t * 100 - Math.round(t * 100)), `max ${max}: ${t}`).toBeLessThan(1e-9);
    }
  });

  it('reaches below zero when a figure is negative', () => {
    expect(niceTicks(-2, 6, { kind: 'count' })).toEqual([-2, 0, 2, 4, 6]);
  });

  it('picks 1, 2, 2.5 or 5 times a power of ten, a multiple of the unit', () => {
    expect(niceStep(0.3, { unit: 1 })).toBe(1);
    expect(niceStep(2.2, { unit: 1 })).toBe(5);
    expect(niceStep(22, { unit: 1 })).toBe(25);
    expect(niceStep(0.022, { unit: 0.01 })).toBe(0.05);
    expect(niceStep(0.22)).toBe(0.25);
    expect(niceStep(0)).toBe(1);
  });

  it('writes short axis labels', () => {
    expect(axisLabel(1500, 'usd', 500)).toBe('$1,500');
    expect(axisLabel(0.25, 'usd', 0.25)).toBe('$0.25');
    expect(axisLabel(12_500, 'usd', 2500)).toBe('$12.5K');
    expect(axisLabel(5000, 'count', 5000)).toBe('5,000');
    expect(axisLabel(1_250_000, 'count', 250_000)).toBe('1.25M');
  });
});

describe('labelled days', () => {
  it('always labels the last day, with fewer labels on a phone', () => {
    const ticks = dayTicks(7);
    expect(ticks.filter((t) => t.wide).map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(ticks.filter((t) => t.narrow).map((t) => t.index)).toEqual([0, 2, 4, 6]);
    for (const n of [7, 30, 90]) {
      const all = dayTicks(n);
      expect(all[all.length - 1]).toEqual({ index: n - 1, narrow: true, wide: true });
      expect(all.filter((t) => t.narrow).length).toBeLessThanOrEqual(4);
      expect(all.filter((t) => t.wide).length).toBeLessThanOrEqual(7);
    }
    expect(dayTicks(0)).toEqual([]);
    expect(dayTicks(1)).toEqual([{ index: 0, narrow: true, wide: true }]);
  });
});

describe('a daily chart', () => {
  it('marks today as partial, apart from the finished days, and never as a day that dropped', () => {
    const chart = buildDailyChart(days([4, 8, 6, 1]), {
      kind: 'count',
      today: '2026-11-20',
      label: 'Impressions per day',
      unit: ['impression', 'impressions'],
    });
    expect(chart.points.map((p) => p.partial)).toEqual([false, false, false, true]);
    // The solid line stops at yesterday; a separate (dashed) segment goes from yesterday to today.
    expect(chart.line.split(/[ML]/).filter(Boolean)).toHaveLength(3);
    expect(chart.partialLine).toBe(`M${chart.points[2]!.x} ${chart.points[2]!.y} L${chart.points[3]!.x} ${chart.points[3]!.y}`);
    expect(chart.area).not.toContain(`${chart.points[3]!.x} ${chart.points[3]!.y}`);
    const today = chart.points[3]!;
    expect(today.description).toBe(`Nov 20, 2026 (${PARTIAL_LABEL}): 1 impression`);
    expect(chart.xTicks[chart.xTicks.length - 1]).toMatchObject({ index: 3, label: 'Today', align: 'end', x: 100 });
    expect(chart.xTicks[0]).toMatchObject({ index: 0, label: 'Nov 17', align: 'start', x: 0 });
  });

  it('has no partial day when today is not in the period', () => {
    const chart = buildDailyChart(days([1, 2, 3], '2026-11-19'), { kind: 'count', today: '2026-11-20', label: 'Clicks per day' });
    expect(chart.points.some((p) => p.partial)).toBe(false);
    expect(chart.partialLine).toBeNull();
    expect(chart.xTicks[chart.xTicks.length - 1]!.label).toBe('Nov 19');
  });

  it('writes each figure as the tables do', () => {
    const values = [1493.605, 0, 12.3];
    const chart = buildDailyChart(days(values), { kind: 'usd', today: '2026-11-20', label: 'Revenue per day' });
    expect(chart.points.map((p) => p.text)).toEqual(values.map(formatUsd));
    const counts = buildDailyChart(days([182_400, 2]), { kind: 'count', today: '2026-11-20', label: 'Impressions per day' });
    expect(counts.points.map((p) => p.text)).toEqual([formatCount(182_400), '2']);
  });

  it('places points within the plot, the highest tick on top and zero at the bottom', () => {
    const chart = buildDailyChart(days([0, 3, 2]), { kind: 'count', today: '2026-11-20', label: 'Clicks per day' });
    expect(chart.points.map((p) => [p.x, p.y])).toEqual([
      [0, 100],
      [50, 0],
      [100, 33.33],
    ]);
    expect(chart.yTicks.map((t) => [t.value, t.y, t.label])).toEqual([
      [0, 100, '0'],
      [1, 66.67, '1'],
      [2, 33.33, '2'],
      [3, 0, '3'],
    ]);
  });

  it('copes with a single day and with nothing', () => {
    const one = buildDailyChart(days([5]), { kind: 'usd', today: '2026-11-20', label: 'Revenue per day' });
    expect(one.points[0]).toMatchObject({ x: 50, partial: true });
    expect(one.line).toBe('');
    expect(one.partialLine).toBeNull();
    expect(one.xTicks).toEqual([expect.objectContaining({ align: 'middle', label: 'Today' })]);
    const none = buildDailyChart([], { kind: 'usd', today: '2026-11-20', label: 'Revenue per day' });
    expect(none.points).toEqual([]);
    expect(none.summary).toBe('Revenue per day: no days.');
  });

  it('sums itself up in a sentence for the text alternative', () => {
    const chart = buildDailyChart(days([1, 9.5, 0.2]), { kind: 'usd', today: '2026-11-20', label: 'Revenue per day' });
    expect(chart.summary).toBe('Revenue per day, Nov 18, 2026 to Nov 20, 2026: highest $9.50 on Nov 19, 2026; Nov 20, 2026 (today, so far): $0.20.');
    expect(summarize('Clicks per day', buildDailyChart(days([0, 0]), { kind: 'count', today: '2026-11-21', label: 'x' }).points)).toBe(
      'Clicks per day, Nov 19, 2026 to Nov 20, 2026: no finished day above zero.',
    );
  });
});
