import { z } from 'zod';
import { asConsoleUser } from '../../identity/console';
import { sql } from '../../platform/db/sql';
import type { Database } from '../../platform/db/roles';
import { PLACEMENT_FORMATS } from '../../schemas/account';
import { toCsv } from '../../platform/kit/csv';
import { costPerConversion, exactUsd, micro, microAmount, returnOnSpend, type Micro } from '../../platform/kit/micro';

export { costPerConversion, costPerConversionUsd, returnOnSpend } from '../../platform/kit/micro';

/**
 * An advertiser's report across their campaigns, read as them (row-level security keeps it to
 * their own): the daily figures the roll-up keeps per campaign, creative, app and day
 * (`campaign_daily_stats`), never raw events, for the last `days` UTC days (today included), at
 * most REPORT_ROWS rows, newest first. Spend in exact micro-dollars: rounded once where shown.
 */

export const REPORT_PERIODS = [7, 30, 90] as const;
export type ReportPeriod = (typeof REPORT_PERIODS)[number];
/** The most rows a report reads (and its CSV holds): the newest. */
export const REPORT_ROWS = 10_000;

/** A row of the report: one campaign's creative in one app on one UTC day (`day` YYYY-MM-DD), spend in micro-dollars. */
const reportRow = z.object({
  day: z.string(),
  campaign_id: z.string(),
  campaign: z.string(),
  creative_id: z.string(),
  creative: z.string(),
  format: z.enum(PLACEMENT_FORMATS),
  app_id: z.string(),
  app: z.string(),
  fills: z.number(),
  impressions: z.number(),
  clicks: z.number(),
  /** Times a user hid the ad ("Hide this ad"): never billed. */
  hides: z.number(),
  spent_micro: microAmount,
  /** Conversions the advertiser reported for this row's clicks and counted, on the day they occurred (issue 44), and their value. */
  conversions: z.number(),
  conversion_value_micro: microAmount,
});
export type ReportRow = z.output<typeof reportRow>;

export async function advertiserReport(db: Database, userId: string, days: ReportPeriod, campaignId: string | null): Promise<ReportRow[]> {
  return asConsoleUser(db, userId).query(
    sql`select to_char(s.day, 'YYYY-MM-DD') as day, s.campaign_id, c.name as campaign, s.creative_id, cr.headline as creative, cr.format,
               s.app_id, coalesce(a.name, 'An app') as app, s.fills::float8 as fills, s.impressions::float8 as impressions,
               s.clicks::float8 as clicks, s.hides::float8 as hides, s.spent_micro::float8 as spent_micro,
               s.conversions::float8 as conversions, s.conversion_value_micro::float8 as conversion_value_micro
        from public.campaign_daily_stats s
        join public.campaigns c on c.id = s.campaign_id
        join public.creatives cr on cr.id = s.creative_id
        left join public.advertiser_apps() a on a.id = s.app_id
        where s.day > (now() at time zone 'UTC')::date - ${days}::int
          and (${campaignId}::uuid is null or s.campaign_id = ${campaignId}::uuid)
        order by s.day desc, c.name, cr.format, a.name
        limit ${REPORT_ROWS}`,
    reportRow,
  );
}

/** The days of the period, oldest first (YYYY-MM-DD, UTC), ending `today`. */
export function periodDays(today: string, days: number): string[] {
  const end = Date.parse(`${today}T00:00:00Z`);
  return Array.from({ length: days }, (_, i) => new Date(end - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/** A daily series over the whole period (days without figures are zero). */
export function dailySeries(rows: readonly ReportRow[], days: readonly string[], value: (r: ReportRow) => number): { date: string; value: number }[] {
  const byDay = new Map<string, number>();
  for (const r of rows) byDay.set(r.day, (byDay.get(r.day) ?? 0) + value(r));
  return days.map((date) => ({ date, value: byDay.get(date) ?? 0 }));
}

export type Figures = { key: string; impressions: number; clicks: number; hides: number; spent: Micro; conversions: number; conversionValue: Micro };

/** Rows summed by a key, largest spend first. */
export function sumBy(rows: readonly ReportRow[], key: (r: ReportRow) => string): Figures[] {
  const groups = new Map<string, Figures>();
  for (const r of rows) {
    const k = key(r);
    const g = groups.get(k) ?? { key: k, impressions: 0, clicks: 0, hides: 0, spent: micro(0), conversions: 0, conversionValue: micro(0) };
    g.impressions += r.impressions;
    g.clicks += r.clicks;
    g.hides += r.hides;
    g.spent = micro(g.spent + r.spent_micro);
    g.conversions += r.conversions;
    g.conversionValue = micro(g.conversionValue + r.conversion_value_micro);
    groups.set(k, g);
  }
  return [...groups.values()].sort((a, b) => b.spent - a.spent || a.key.localeCompare(b.key));
}

/**
 * The report as CSV: a row per day (UTC), campaign, creative and app. Spend is exact, in dollars
 * to the millionth (the ledger's micro-dollars), so the rows add up to what the ledger debited;
 * CTR and eCPM are the row's own; `hides` (times users hid the ad) and then the conversions
 * (their count, value, cost per conversion and return on spend, empty where there is nothing to
 * divide by) come last, added after the others. Text a spreadsheet would run as a formula is
 * escaped (toCsv).
 */
export function reportCsv(rows: readonly ReportRow[]): string {
  return toCsv(
    [
      'day',
      'campaign_id',
      'campaign',
      'creative_id',
      'creative',
      'format',
      'app_id',
      'app',
      'fills',
      'impressions',
      'clicks',
      'ctr',
      'spend_usd',
      'ecpm_usd',
      'hides',
      'conversions',
      'conversion_value_usd',
      'cost_per_conversion_usd',
      'return_on_spend',
    ],
    rows.map((r) => [
      r.day,
      r.campaign_id,
      r.campaign,
      r.creative_id,
      r.creative,
      r.format,
      r.app_id,
      r.app,
      r.fills,
      r.impressions,
      r.clicks,
      r.impressions > 0 ? (r.clicks / r.impressions).toFixed(4) : '0',
      exactUsd(r.spent_micro),
      r.impressions > 0 ? (((r.spent_micro / r.impressions) * 1000) / 1_000_000).toFixed(2) : '0',
      r.hides,
      r.conversions,
      exactUsd(r.conversion_value_micro),
      r.conversions > 0 ? exactUsd(costPerConversion(r.spent_micro, r.conversions)!) : '',
      returnOnSpend(r.conversion_value_micro, r.spent_micro)?.toFixed(4) ?? '',
    ]),
  );
}
