import { formatCount, formatDayOnly as formatDay, formatShortDay, formatUsd } from './format';

/**
 * The earnings page's daily charts as data: where each day goes, which ticks the axes get, what
 * each point says. Pure, so the page builds a chart on the server and the chart component only
 * draws it (app/dashboard/earnings/chart.tsx). Coordinates are percentages of the plot area (x
 * from the left, y from the top), so the chart stretches to any width without a measured size.
 *
 * Three rules the charts keep, so they tell the truth:
 * - today (UTC) is not over: its point is `partial`, drawn apart (a dashed segment, a hollow
 *   point) and said to be "today, so far", never as a finished day that dropped;
 * - counts (impressions, clicks) get whole-number ticks, money ticks of at least a cent;
 * - every point's text is the table's (lib/platform/kit/format.ts), so a tooltip and the table agree.
 */

export type ChartKind = 'usd' | 'count';

/** What the chart says of today, which is not over yet. */
export const PARTIAL_LABEL = 'today, so far';

export interface ChartDay {
  /** YYYY-MM-DD (UTC). */
  date: string;
  value: number;
}

export interface ChartPoint {
  date: string;
  value: number;
  /** Percent of the plot's width, from the left. */
  x: number;
  /** Percent of the plot's height, from the top. */
  y: number;
  /** Today: the day is not over, its figure will still grow. */
  partial: boolean;
  /** "Nov 20, 2026". */
  day: string;
  /** The figure as the tables write it: "$12.34", "1,234 impressions". */
  text: string;
  /** Day and figure in one sentence: "Nov 20, 2026 (today, so far): $12.34". */
  description: string;
}

export interface YTick {
  value: number;
  /** Percent of the plot's height, from the top. */
  y: number;
  label: string;
}

export interface XTick {
  index: number;
  /** Percent of the plot's width, from the left. */
  x: number;
  label: string;
  /** How the label sits on its point: the first starts there and the last ends there, so neither leaves the chart. */
  align: 'start' | 'middle' | 'end';
  /** Shown on a narrow screen (a phone), which gets fewer labels. */
  narrow: boolean;
  /** Shown on a wider screen. */
  wide: boolean;
}

export interface ChartModel {
  kind: ChartKind;
  points: ChartPoint[];
  yTicks: YTick[];
  xTicks: XTick[];
  /** SVG path (viewBox 0 0 100 100) through the finished days. Empty when there are none. */
  line: string;
  /** SVG path from the last finished day to today's partial point; null without a partial day. */
  partialLine: string | null;
  /** SVG path of the area under the finished days' line. Empty when there are fewer than two. */
  area: string;
  /** A sentence for the chart's text alternative. */
  summary: string;
}

const EPSILON = 1e-9;
const round2 = (n: number) => Math.round(n * 100) / 100;

/** Decimals enough to write multiples of `step` exactly (0.25 → 2, 5 → 0). */
function decimalsOf(step: number): number {
  let decimals = 0;
  while (decimals < 10 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > EPSILON) decimals++;
  return decimals;
}

/**
 * A "nice" step of at least `rough`: 1, 2, 2.5 or 5 times a power of ten, and a multiple of
 * `unit` when one is given (1 for counts: never 0.5 of an impression; 0.01 for money: never
 * $0.025, which a label would round).
 */
export function niceStep(rough: number, { unit = 0 }: { unit?: number } = {}): number {
  if (!(rough > 0) || !Number.isFinite(rough)) return unit > 0 ? unit : 1;
  if (unit > 0 && rough <= unit) return unit;
  const power = 10 ** Math.floor(Math.log10(rough));
  const isMultiple = (step: number) => unit === 0 || Math.abs(Math.round(step / unit) - step / unit) < 1e-6;
  for (const factor of [1, 2, 2.5, 5, 10]) {
    const step = Number((factor * power).toPrecision(12));
    if (step >= rough - EPSILON * power && isMultiple(step)) return step;
  }
  return Number((10 * power).toPrecision(12));
}

/**
 * Ticks from 0 (or below, for negative values) to at least `max`, about `count` steps apart, each
 * a multiple of a nice step. Counts get whole numbers; money multiples of a cent.
 */
export function niceTicks(min: number, max: number, { kind, count = 4 }: { kind: ChartKind; count?: number }): number[] {
  let lo = Math.min(0, min);
  let hi = Math.max(0, max);
  if (hi - lo < EPSILON) hi = lo + 1;
  const step = niceStep((hi - lo) / count, { unit: kind === 'count' ? 1 : 0.01 });
  const decimals = decimalsOf(step);
  lo = Math.floor(lo / step + EPSILON);
  hi = Math.ceil(hi / step - EPSILON);
  const ticks: number[] = [];
  for (let i = lo; i <= hi; i++) ticks.push(Number((i * step).toFixed(decimals)) + 0);
  return ticks;
}

const compactCount = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
const compactUsd = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  notation: 'compact',
  minimumFractionDigits: 0,
  maximumFractionDigits: 2,
});
const wholeUsd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 0, maximumFractionDigits: 0 });

/**
 * A tick's label: short, since the exact figures are in the tooltips and the table. Dollars
 * without cents unless the step is below a dollar; 10,000 and more in compact form ("12.5K").
 */
export function axisLabel(value: number, kind: ChartKind, step: number): string {
  const big = Math.abs(value) >= 10_000;
  if (kind === 'count') return big ? compactCount.format(value) : formatCount(value);
  if (big) return compactUsd.format(value);
  return step < 1 ? formatUsd(value) : wholeUsd.format(value);
}

/**
 * The labelled days of an axis of `n` days: counted back from the last (today is always
 * labelled), about `wide` labels on a wide screen and `narrow` on a phone.
 */
export function dayTicks(n: number, { wide = 7, narrow = 4 }: { wide?: number; narrow?: number } = {}): { index: number; narrow: boolean; wide: boolean }[] {
  if (n <= 0) return [];
  const every = (labels: number) => (n <= 1 ? 1 : Math.max(1, Math.ceil((n - 1) / Math.max(1, labels - 1))));
  const wideEvery = every(wide);
  const narrowEvery = every(narrow);
  const ticks: { index: number; narrow: boolean; wide: boolean }[] = [];
  for (let index = 0; index < n; index++) {
    const back = n - 1 - index;
    const isWide = back % wideEvery === 0;
    const isNarrow = back % narrowEvery === 0;
    if (isWide || isNarrow) ticks.push({ index, narrow: isNarrow, wide: isWide });
  }
  return ticks;
}

const plural = (n: number, [one, many]: readonly [string, string]) => `${formatCount(n)} ${n === 1 ? one : many}`;

const path = (points: readonly { x: number; y: number }[]) => points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x} ${p.y}`).join(' ');

/**
 * One daily series as a chart: `days` oldest first (one per day, as the daily figures come),
 * `today` the UTC day that is not over yet (YYYY-MM-DD), `label` what is counted ("Revenue per
 * day"), `unit` the counted thing for counts ("impression", "impressions").
 */
export function buildDailyChart(
  days: readonly ChartDay[],
  { kind, today, label, unit }: { kind: ChartKind; today: string; label: string; unit?: readonly [string, string] },
): ChartModel {
  const values = days.map((d) => d.value);
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), { kind });
  const bottom = ticks[0] ?? 0;
  const top = ticks[ticks.length - 1] ?? 1;
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1;
  const yOf = (v: number) => round2(100 - ((v - bottom) / (top - bottom)) * 100);
  const xOf = (i: number) => (days.length <= 1 ? 50 : round2((i / (days.length - 1)) * 100));
  const textOf = (v: number) => (kind === 'usd' ? formatUsd(v) : unit ? plural(v, unit) : formatCount(v));

  const points: ChartPoint[] = days.map((d, i) => {
    const partial = d.date === today;
    const day = formatDay(`${d.date}T00:00:00Z`);
    const text = textOf(d.value);
    return {
      date: d.date,
      value: d.value,
      x: xOf(i),
      y: yOf(d.value),
      partial,
      day,
      text,
      description: `${day}${partial ? ` (${PARTIAL_LABEL})` : ''}: ${text}`,
    };
  });

  // The finished days run up to the first partial one (today, the last day of a period).
  const firstPartial = points.findIndex((p) => p.partial);
  const finished = firstPartial === -1 ? points : points.slice(0, firstPartial);
  const line = finished.length > 1 ? path(finished) : '';
  const partialLine = firstPartial > 0 ? path(points.slice(firstPartial - 1)) : null;
  const base = yOf(Math.max(bottom, Math.min(0, top)));
  const area = finished.length > 1 ? `${path(finished)} L${finished[finished.length - 1]!.x} ${base} L${finished[0]!.x} ${base} Z` : '';

  const xTicks: XTick[] = dayTicks(points.length).map(({ index, narrow, wide }) => {
    const p = points[index]!;
    const last = index === points.length - 1;
    return {
      index,
      x: p.x,
      label: p.partial ? 'Today' : formatShortDay(`${p.date}T00:00:00Z`),
      align: points.length === 1 ? 'middle' : last ? 'end' : index === 0 ? 'start' : 'middle',
      narrow,
      wide,
    };
  });

  return {
    kind,
    points,
    yTicks: ticks.map((value) => ({ value, y: yOf(value), label: axisLabel(value, kind, step) })),
    xTicks,
    line,
    partialLine,
    area,
    summary: summarize(label, points),
  };
}

/** "Revenue per day, Oct 22 to Nov 20, 2026: highest $12.34 on Nov 3, 2026; Nov 20, 2026 (today, so far): $1.20." */
export function summarize(label: string, points: readonly ChartPoint[]): string {
  const first = points[0];
  const last = points[points.length - 1];
  if (!first || !last) return `${label}: no days.`;
  const finished = points.filter((p) => !p.partial);
  const highest = finished.reduce<ChartPoint | undefined>((best, p) => (best === undefined || p.value > best.value ? p : best), undefined);
  const parts = [`${label}, ${first.day} to ${last.day}`];
  if (highest) parts.push(highest.value === 0 ? 'no finished day above zero' : `highest ${highest.text} on ${highest.day}`);
  if (last.partial) parts.push(last.description);
  return parts.length > 1 ? `${parts[0]}: ${parts.slice(1).join('; ')}.` : `${parts[0]}.`;
}
