import { costPerConversionUsd, returnOnSpend, type Figures } from '@/lib/ads/advertisers/reports';
import { clickThroughRate, formatCount, formatPercent, formatUsd } from '@/lib/platform/kit/format';
import { ScrollTable } from '../tables';
import { ecpm, usd } from './display';

/** The cost per conversion, or a dash without conversions. */
export const perConversion = (r: Pick<Figures, 'spent' | 'conversions'>) => {
  const cost = costPerConversionUsd(r.spent, r.conversions);
  return cost === null ? '—' : formatUsd(cost);
};

/** Return on spend as "2.50×" (the conversions' value per dollar spent), or a dash without spend. */
export const roas = (r: Pick<Figures, 'spent' | 'conversionValue'>) => {
  const ratio = returnOnSpend(r.conversionValue, r.spent);
  return ratio === null ? '—' : `${ratio.toFixed(2)}×`;
};

/** Figures summed by campaign, format, app, creative or day (lib/ads/advertisers/reports.ts, sumBy): one row each, named by `name`. */
export function FiguresTable({ label, first, rows, name = (key) => key }: { label: string; first: string; rows: Figures[]; name?: (key: string) => string }) {
  return (
    <ScrollTable
      label={label}
      head={[first, 'Impressions', 'Clicks', 'CTR', 'Hidden by users', 'Spend', 'eCPM', 'Conversions', 'Cost per conversion', 'Return on spend']}
    >
      {rows.map((r) => (
        <tr key={r.key}>
          <th scope="row">{name(r.key)}</th>
          <td className="num">{formatCount(r.impressions)}</td>
          <td className="num">{formatCount(r.clicks)}</td>
          <td className="num">{formatPercent(clickThroughRate(r.clicks, r.impressions))}</td>
          <td className="num">{formatCount(r.hides)}</td>
          <td className="num">{usd(r.spent)}</td>
          <td className="num">{ecpm(r.spent, r.impressions)}</td>
          <td className="num">{formatCount(r.conversions)}</td>
          <td className="num">{perConversion(r)}</td>
          <td className="num">{roas(r)}</td>
        </tr>
      ))}
    </ScrollTable>
  );
}
