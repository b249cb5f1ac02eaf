import type { Figures } from '@/lib/ads/advertisers/reports';
import { clickThroughRate, formatCount, formatPercent } from '@/lib/platform/kit/format';
import { ScrollTable } from '../tables';
import { ecpm, usd } from './display';

/** Figures summed by campaign, format, app, creative or day (lib/ads/advertisers/reports.ts, sumBy): one row each, named by `name`. */
export function FiguresTable({ label, first, rows, name = (key) => key }: { label: string; first: string; rows: Figures[]; name?: (key: string) => string }) {
  return (
    <ScrollTable label={label} head={[first, 'Impressions', 'Clicks', 'CTR', 'Hidden by users', 'Spend', 'eCPM']}>
      {rows.map((r) => (
        <tr key={r.key}>
          <th scope="row">{name(r.key)}</th>
          <td className="num">{formatCount(r.impressions)}</td>
          <td className="num">{formatCount(r.clicks)}</td>
          <td className="num">{formatPercent(clickThroughRate(r.clicks, r.impressions))}</td>
          <td className="num">{formatCount(r.hides)}</td>
          <td className="num">{usd(r.spent)}</td>
          <td className="num">{ecpm(r.spent, r.impressions)}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}
