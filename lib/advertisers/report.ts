import { toCsv } from '../console/csv';
import type { Creative, DayFigures } from './account';

/**
 * A campaign's report as CSV: one row per day (UTC), creative and app, from the daily figures
 * (never raw events). Spend is exact, in dollars to the millionth (the ledger's micro-dollars), so
 * the rows add up to what the ledger debited; CTR and eCPM are derived from the row's own figures.
 * Text a spreadsheet would run as a formula (a headline starting with `=`) is escaped by toCsv.
 */
export function campaignReportCsv(campaignName: string, creatives: Pick<Creative, 'id' | 'headline' | 'format'>[], days: DayFigures[]): string {
  const headline = new Map(creatives.map((c) => [c.id, c.headline]));
  return toCsv(
    ['day', 'campaign', 'creative_id', 'creative', 'format', 'app_id', 'app', 'fills', 'impressions', 'clicks', 'ctr', 'spend_usd', 'ecpm_usd'],
    days.map((d) => [
      d.day,
      campaignName,
      d.creative_id,
      headline.get(d.creative_id) ?? null,
      d.format,
      d.app_id,
      d.app_name,
      d.fills,
      d.impressions,
      d.clicks,
      d.impressions > 0 ? (d.clicks / d.impressions).toFixed(4) : '0',
      (d.spent_micro / 1_000_000).toFixed(6),
      d.impressions > 0 ? (((d.spent_micro / d.impressions) * 1000) / 1_000_000).toFixed(2) : '0',
    ]),
  );
}
