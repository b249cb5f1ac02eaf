import type { Metadata } from 'next';
import { formatName } from '@/lib/schemas/format-names';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { micro, microToUsd } from '@/lib/platform/kit/micro';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { reportQuery } from '@/lib/ads/advertisers/report-download';
import { advertiserReport, dailySeries, periodDays, REPORT_PERIODS, REPORT_ROWS, sumBy } from '@/lib/ads/advertisers/reports';
import { buildDailyChart } from '@/lib/platform/kit/chart';
import { clickThroughRate, formatCount, formatDay, formatPercent } from '@/lib/platform/kit/format';
import { services } from '@/lib/services';
import { EmptyState } from '../../../_components/ui/empty-state';
import { DailyChart } from '../../earnings/chart';
import { ConsoleHeader, ConsoleNav } from '../../nav';
import { requirePublisher as requireSignedIn } from '../../publisher';
import { Totals } from '../../tables';
import { FiguresTable, perConversion, roas } from '../figures';
import { ecpm, usd } from '../display';

export const metadata: Metadata = { title: 'Ad reports', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/**
 * /dashboard/ads/reports: the advertiser's figures over 7, 30 or 90 UTC days, for all campaigns or
 * one: spend and impressions per day as charts, then per campaign, format, app ("where your ads
 * ran") and creative, and the rows as CSV. From the daily figures the roll-up keeps.
 */
export default async function ReportsPage({ searchParams }: { searchParams: Search }) {
  const user = await requireSignedIn('/dashboard/ads/reports');
  const params = await searchParams;
  const query = reportQuery.parse({ days: one(params.days), campaign: one(params.campaign) });
  const db = await services().database();
  const [account, rows] = await Promise.all([advertiserAccount(db, user.id), advertiserReport(db, user.id, query.days, query.campaign ?? null)]);
  if (!account.profile) redirect('/dashboard/ads');
  const today = new Date().toISOString().slice(0, 10);
  const days = periodDays(today, query.days);
  const totals = sumBy(rows, () => 'all')[0] ?? { impressions: 0, clicks: 0, hides: 0, spent: micro(0), conversions: 0, conversionValue: micro(0) };
  const spend = buildDailyChart(
    dailySeries(rows, days, (r) => r.spent_micro).map((d) => ({ date: d.date, value: microToUsd(micro(d.value)) })),
    { kind: 'usd', today, label: 'Spend per day (UTC)' },
  );
  const impressions = buildDailyChart(
    dailySeries(rows, days, (r) => r.impressions),
    {
      kind: 'count',
      today,
      label: 'Impressions per day (UTC)',
      unit: ['impression', 'impressions'],
    },
  );
  const chosen = account.campaigns.find((c) => c.id === query.campaign);
  const link = (change: { days?: number; campaign?: string | null }) => {
    const next = new URLSearchParams({ days: String(change.days ?? query.days) });
    const campaign = change.campaign === undefined ? query.campaign : change.campaign;
    if (campaign) next.set('campaign', campaign);
    return `?${next}`;
  };
  const csv = `/dashboard/ads/reports/report.csv${link({})}`;
  return (
    <div className="min-w-0">
      <ConsoleHeader
        title="Ad reports"
        subtitle={`${chosen ? chosen.name : 'All campaigns'} · the last ${query.days} days (UTC), today so far included.`}
        actions={
          <a href={csv} download className="text-sm">
            Download CSV
          </a>
        }
      />
      <ConsoleNav current="/dashboard/ads" />
      <nav aria-label="Report period and campaign" className="mb-6 flex flex-wrap items-center gap-x-4 gap-y-2 text-sm">
        <span className="text-muted-foreground">Period:</span>
        {REPORT_PERIODS.map((d) => (
          <Link key={d} href={link({ days: d })} aria-current={d === query.days ? 'page' : undefined} className="aria-[current=page]:font-semibold">
            {d} days
          </Link>
        ))}
        <span className="text-muted-foreground sm:ml-4">Campaign:</span>
        <Link href={link({ campaign: null })} aria-current={!query.campaign ? 'page' : undefined} className="aria-[current=page]:font-semibold">
          All
        </Link>
        {account.campaigns
          .filter((c) => c.impressions > 0 || c.id === query.campaign)
          .map((c) => (
            <Link
              key={c.id}
              href={link({ campaign: c.id })}
              aria-current={c.id === query.campaign ? 'page' : undefined}
              className="aria-[current=page]:font-semibold"
            >
              {c.name}
            </Link>
          ))}
      </nav>
      <section aria-labelledby="period-totals" className="mb-8">
        <h2 id="period-totals" className="mb-3">
          In this period
        </h2>
        <Totals
          items={[
            { label: 'Spend', value: usd(totals.spent), testId: 'report-spend', exact: totals.spent },
            { label: 'Impressions', value: formatCount(totals.impressions), testId: 'report-impressions' },
            { label: 'Clicks', value: formatCount(totals.clicks), testId: 'report-clicks' },
            { label: 'CTR', value: formatPercent(clickThroughRate(totals.clicks, totals.impressions)) },
            { label: 'Hidden by users', value: formatCount(totals.hides) },
            { label: 'eCPM', value: ecpm(totals.spent, totals.impressions) },
            { label: 'Conversions', value: formatCount(totals.conversions), testId: 'report-conversions' },
            { label: 'Conversion value', value: usd(totals.conversionValue), exact: totals.conversionValue },
            { label: 'Cost per conversion', value: perConversion(totals), testId: 'report-cost-per-conversion' },
            { label: 'Return on spend', value: roas(totals) },
          ]}
        />
      </section>
      {rows.length === 0 ? (
        <EmptyState title="No impressions in this period">
          Once your campaigns serve, their figures appear here by day, campaign, format, app and creative.
        </EmptyState>
      ) : (
        <div className="grid grid-cols-1 gap-8">
          <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
            <DailyChart title="Spend per day" total={usd(totals.spent)} model={spend} tone={1} />
            <DailyChart title="Impressions per day" total={formatCount(totals.impressions)} model={impressions} tone={2} />
          </div>
          <FiguresTable label="Per campaign" first="Campaign" rows={sumBy(rows, (r) => r.campaign)} />
          <FiguresTable label="Per format" first="Format" rows={sumBy(rows, (r) => formatName(r.format))} />
          <FiguresTable label="Where your ads ran" first="App" rows={sumBy(rows, (r) => r.app)} />
          <FiguresTable label="Per creative" first="Creative" rows={sumBy(rows, (r) => `${formatName(r.format)}: ${r.creative}`)} />
          <FiguresTable
            label="Per day (UTC)"
            first="Day"
            rows={sumBy(rows, (r) => r.day)
              .sort((a, b) => b.key.localeCompare(a.key))
              .map((r) => ({ ...r, key: formatDay(`${r.key}T00:00:00Z`) }))}
          />
          {rows.length === REPORT_ROWS && (
            <p className="text-sm text-muted-foreground">
              These figures are the newest {formatCount(REPORT_ROWS)} rows of the period: choose a shorter one, or one campaign.
            </p>
          )}
        </div>
      )}
    </div>
  );
}
