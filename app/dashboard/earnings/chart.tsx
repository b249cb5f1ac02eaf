'use client';

import { useId, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { cn } from '@/app/_components/ui/cn';
import type { ChartModel } from '@/lib/platform/kit/chart';

const TONES = {
  1: { stroke: 'stroke-chart-1', area: 'fill-chart-1/10', dot: 'bg-chart-1', ring: 'border-chart-1' },
  2: { stroke: 'stroke-chart-2', area: 'fill-chart-2/10', dot: 'bg-chart-2', ring: 'border-chart-2' },
} as const;

const ALIGN = { start: 'translate-x-0', middle: '-translate-x-1/2', end: '-translate-x-full' } as const;

/**
 * One daily series, drawn from a model built on the server (lib/platform/kit/chart.ts): an SVG that
 * stretches to the width it is given (no fixed size: a phone gets the whole period, with fewer
 * labels), rendered on the server so it is on the page before any script runs. Today is drawn
 * apart (a dashed last segment and a hollow point, "today, so far"). Hovering, touching or
 * focusing the plot (then the arrow keys, Home and End) shows a day's exact figure, written as
 * the tables write it; the same figures are in the table "Figures per day" below the charts.
 */
export function DailyChart({ title, total, model, tone = 1 }: { title: string; total: string; model: ChartModel; tone?: 1 | 2 }) {
  const [active, setActive] = useState<number | null>(null);
  const [byKeys, setByKeys] = useState(false);
  const id = useId();
  const colors = TONES[tone];
  const { points } = model;
  const last = points.length - 1;
  const shown = active === null ? undefined : points[active];
  const hasPartial = points.some((p) => p.partial);
  const dots = points.length <= 31;

  const pick = (e: PointerEvent<HTMLDivElement>) => {
    if (last < 0) return;
    const box = e.currentTarget.getBoundingClientRect();
    const at = box.width > 0 ? (e.clientX - box.left) / box.width : 1;
    setByKeys(false);
    setActive(Math.min(last, Math.max(0, Math.round(at * last))));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (last < 0) return;
    const from = active ?? last;
    const to: Record<string, number | null> = { ArrowLeft: Math.max(0, from - 1), ArrowRight: Math.min(last, from + 1), Home: 0, End: last, Escape: null };
    if (!Object.hasOwn(to, e.key)) return;
    e.preventDefault();
    setByKeys(true);
    setActive(to[e.key] ?? null);
  };

  return (
    <figure className="chart m-0 min-w-0" aria-labelledby={`${id}-title`}>
      <figcaption className="mb-3 grid gap-1">
        <span className="flex flex-wrap items-baseline justify-between gap-x-4">
          <span id={`${id}-title`} className="font-semibold">
            {title}
          </span>
          <span className="text-sm text-muted-foreground">
            Period total <span className="font-medium text-foreground tabular-nums">{total}</span>
          </span>
        </span>
        <Legend tone={tone} partial={hasPartial} />
      </figcaption>

      <div className="flex gap-2">
        <div aria-hidden="true" className="relative h-44 w-14 shrink-0 text-right text-xs text-muted-foreground sm:h-52">
          {model.yTicks.map((t) => (
            <span key={t.value} className="absolute right-0 -translate-y-1/2 leading-none tabular-nums whitespace-nowrap" style={{ top: `${t.y}%` }}>
              {t.label}
            </span>
          ))}
        </div>

        <div
          className="relative h-44 min-w-0 flex-1 cursor-crosshair touch-pan-y rounded-sm focus-visible:outline-offset-4 sm:h-52"
          tabIndex={0}
          role="group"
          aria-label={`${title}, day by day`}
          aria-describedby={`${id}-keys`}
          onPointerMove={pick}
          onPointerDown={pick}
          // A mouse that leaves takes its tooltip along; a finger's stays until the chart loses focus.
          onPointerLeave={(e) => {
            if (e.pointerType === 'mouse' && !byKeys) setActive(null);
          }}
          onFocus={() => {
            if (active === null && last >= 0) {
              setByKeys(true);
              setActive(last);
            }
          }}
          onBlur={() => {
            setActive(null);
            setByKeys(false);
          }}
          onKeyDown={onKeyDown}
        >
          <svg role="img" aria-label={model.summary} viewBox="0 0 100 100" preserveAspectRatio="none" className="absolute inset-0 size-full overflow-visible">
            {model.yTicks.map((t) => (
              <line key={t.value} x1={0} x2={100} y1={t.y} y2={t.y} className="stroke-border" strokeWidth={1} vectorEffect="non-scaling-stroke" />
            ))}
            {model.area && <path d={model.area} className={colors.area} />}
            {model.line && (
              <path
                d={model.line}
                fill="none"
                className={colors.stroke}
                strokeWidth={2}
                strokeLinejoin="round"
                strokeLinecap="round"
                vectorEffect="non-scaling-stroke"
              />
            )}
            {model.partialLine && (
              <path
                d={model.partialLine}
                fill="none"
                className={colors.stroke}
                strokeWidth={2}
                strokeDasharray="4 4"
                strokeLinecap="round"
                strokeOpacity={0.8}
                vectorEffect="non-scaling-stroke"
              />
            )}
            {shown && <line x1={shown.x} x2={shown.x} y1={0} y2={100} className="stroke-muted-foreground" strokeWidth={1} vectorEffect="non-scaling-stroke" />}
          </svg>

          {points.map((p, i) =>
            p.partial || dots || i === active ? (
              <span
                key={p.date}
                aria-hidden="true"
                className={cn(
                  'pointer-events-none absolute -translate-x-1/2 -translate-y-1/2 rounded-full',
                  p.partial ? cn('size-2.5 border-2 bg-card', colors.ring) : cn(colors.dot, i === active ? 'size-2.5' : 'size-1.5'),
                  p.partial && i === active && 'size-3',
                )}
                style={{ left: `${p.x}%`, top: `${p.y}%` }}
              />
            ) : null,
          )}

          {shown && (
            <div
              aria-hidden="true"
              className="pointer-events-none absolute top-0 z-10 grid gap-0.5 rounded-md border bg-popover px-2.5 py-1.5 text-xs whitespace-nowrap text-popover-foreground shadow-md"
              style={{ left: `${shown.x}%`, transform: shown.x > 50 ? 'translateX(calc(-100% - 8px))' : 'translateX(8px)' }}
            >
              <span className="text-muted-foreground">
                {shown.day}
                {shown.partial && <span className="font-medium text-foreground"> · today, so far</span>}
              </span>
              <span className="text-sm font-semibold tabular-nums">{shown.text}</span>
            </div>
          )}
        </div>
      </div>

      <div aria-hidden="true" className="relative mt-1.5 ml-16 h-4 text-xs text-muted-foreground">
        {model.xTicks.map((t) => (
          <span
            key={t.index}
            className={cn('absolute top-0 leading-none whitespace-nowrap', ALIGN[t.align], !t.narrow && 'max-sm:hidden', !t.wide && 'sm:hidden')}
            style={{ left: `${t.x}%` }}
          >
            {t.label}
          </span>
        ))}
      </div>

      <p id={`${id}-keys`} className="sr-only">
        Left and right arrow keys move from day to day; the figures are also in the table Figures per day below.
      </p>
      <p aria-live="polite" className="sr-only">
        {byKeys && shown ? shown.description : ''}
      </p>
    </figure>
  );
}

function Legend({ tone, partial }: { tone: 1 | 2; partial: boolean }) {
  const colors = TONES[tone];
  return (
    <span className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted-foreground">
      <span className="inline-flex items-center gap-1.5">
        <svg aria-hidden="true" width="18" height="8" className="overflow-visible">
          <line x1="1" x2="17" y1="4" y2="4" className={colors.stroke} strokeWidth={2} strokeLinecap="round" />
        </svg>
        Full days (UTC)
      </span>
      {partial && (
        <span className="inline-flex items-center gap-1.5">
          <svg aria-hidden="true" width="22" height="10" className="overflow-visible">
            <line x1="1" x2="13" y1="5" y2="5" className={colors.stroke} strokeWidth={2} strokeDasharray="3 3" />
            <circle cx="17" cy="5" r="3.5" className={cn(colors.stroke, 'fill-card')} strokeWidth={2} />
          </svg>
          Today, so far (the day is not over)
        </span>
      )}
    </span>
  );
}
