import type { z } from 'zod';
import { Table } from '@/app/_components/ui/table';
import { PARTIAL_LABEL } from '@/lib/platform/kit/chart';
import { formatCount, formatDay, formatUsd } from '@/lib/platform/kit/format';
import type { dailyPoint } from '@/lib/schemas/account';

type DailyPoint = z.infer<typeof dailyPoint>;

/** The daily figures, one row a day: the charts' text alternative, today marked as not over. */
export function DailyTable({ daily, today }: { daily: DailyPoint[]; today: string }) {
  return (
    <Table label="Figures per day">
      <thead>
        <tr>
          <th scope="col">Day (UTC)</th>
          <th scope="col" className="num">
            Revenue
          </th>
          <th scope="col" className="num">
            Impressions
          </th>
          <th scope="col" className="num">
            Clicks
          </th>
        </tr>
      </thead>
      <tbody>
        {daily.map((d) => (
          <tr key={d.date}>
            <th scope="row">
              {formatDay(`${d.date}T00:00:00Z`)}
              {d.date === today && <span className="text-muted-foreground"> ({PARTIAL_LABEL})</span>}
            </th>
            <td className="num">{formatUsd(d.revenue_usd)}</td>
            <td className="num">{formatCount(d.impressions)}</td>
            <td className="num">{formatCount(d.clicks)}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
