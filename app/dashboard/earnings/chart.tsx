'use client';

import { Line } from '@nivo/line';

export interface ChartPoint {
  date: string;
  value: number;
}

/**
 * One daily series as a line chart (@nivo/line). A client component that the server renders to
 * SVG with a fixed size, so the chart is on the page before any script runs; the script then
 * adds the tooltips. The figures are also in the table below it, for screen readers and copying.
 */
export function DailyChart({ label, points, format }: { label: string; points: ChartPoint[]; format: 'usd' | 'count' }) {
  const every = Math.max(1, Math.ceil(points.length / 8));
  return (
    <figure className="chart" aria-label={label}>
      <figcaption>{label}</figcaption>
      <div className="chart-scroll">
        <Line
          width={720}
          height={200}
          data={[{ id: label, data: points.map((p) => ({ x: p.date, y: p.value })) }]}
          margin={{ top: 10, right: 20, bottom: 30, left: 60 }}
          xScale={{ type: 'point' }}
          yScale={{ type: 'linear', min: 0, max: 'auto' }}
          axisBottom={{ tickValues: points.filter((_, i) => i % every === 0).map((p) => p.date), format: (d: string) => d.slice(5) }}
          axisLeft={{ tickValues: 4, format: (v: number) => (format === 'usd' ? `$${v}` : `${v}`) }}
          colors={['#0b57d0']}
          pointSize={points.length > 31 ? 0 : 4}
          enableGridX={false}
          animate={false}
          useMesh
          role="img"
          ariaLabel={label}
        />
      </div>
    </figure>
  );
}
