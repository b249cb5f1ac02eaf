import type { Metadata } from 'next';
import Link from 'next/link';
import { Button } from '@/app/_components/ui/button';
import { Card, CardDescription, CardTitle } from '@/app/_components/ui/card';
import { EmptyState } from '@/app/_components/ui/empty-state';
import { Field } from '@/app/_components/ui/input';
import { Select } from '@/app/_components/ui/select';
import { getDailyEarnings, getEarnings, listApps } from '@/lib/account/operations';
import { todayUtc } from '@/lib/account/views';
import { buildDailyChart } from '@/lib/platform/kit/chart';
import { csvDataUrl, toCsv } from '@/lib/platform/kit/csv';
import { exactUsd, micro } from '@/lib/platform/kit/micro';
import { clickThroughRate, countOf, formatCount, formatDay, formatUsd } from '@/lib/platform/kit/format';
import { consoleAccount } from '@/lib/publisher/session';
import { dataSales } from '@/lib/publisher/data-sales';
import { DAILY_PERIODS, dailyQuery } from '@/lib/schemas/account';
import { services } from '@/lib/services';
import { requirePublisher, rolesOfUser } from '../publisher';
import { RoleMissing } from '../role-missing';
import { ConsoleHeader, ConsoleNav } from '../nav';
import { PayoutTable, PlacementTable, ScrollTable, Totals } from '../tables';
import { DailyChart } from './chart';
import { DailyTable } from './daily-table';

export const metadata: Metadata = { title: 'Earnings', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
/** A filter's value from the URL; empty, or `all` (what the lists send for no filter), is none. */
const one = (v: string | string[] | undefined) => {
  const value = (Array.isArray(v) ? v[0] : v) || undefined;
  return value === ALL ? undefined : value;
};
const ALL = 'all';

export default async function EarningsPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const user = await requirePublisher('/dashboard/earnings');
  if (!(await rolesOfUser(user.id)).publisher) return <RoleMissing role="publisher" title="Earnings" current="/dashboard/earnings" />;
  // The same parameters as GET /api/v1/me/earnings/daily; anything else falls back to the defaults.
  const parsed = dailyQuery.safeParse({ days: one(params.days), app_id: one(params.app_id), placement_id: one(params.placement_id) });
  const query = parsed.success ? parsed.data : dailyQuery.parse({});
  const s = services();
  const account = consoleAccount(user, s.database);
  const today = todayUtc(s.now());
  const [daily, earnings, { apps, placements }, sold] = await Promise.all([
    getDailyEarnings(account, query, today),
    getEarnings(account, 50),
    listApps(account, 'all'),
    s.database().then((db) => dataSales(db, user.id)),
  ]);
  const shown = placements.filter(
    (p) => p.status !== 'archived' && (!query.app_id || p.app_id === query.app_id) && (!query.placement_id || p.id === query.placement_id),
  );
  const scope = query.placement_id
    ? `placement ${placements.find((p) => p.id === query.placement_id)?.name ?? ''}`
    : query.app_id
      ? `app ${apps.find((a) => a.id === query.app_id)?.name ?? ''}`
      : 'all apps';
  // Exact, as the advertisers' CSV (exactUsd): the micro-dollars in dollars, to the millionth.
  const dailyCsv = toCsv(
    ['date', 'revenue_usd', 'impressions', 'clicks'],
    daily.daily.map((d) => [d.date, exactUsd(micro(d.revenue_micro)), d.impressions, d.clicks]),
  );
  const placementsCsv = toCsv(
    ['app', 'placement', 'format', 'status', 'impressions', 'clicks', 'ctr', 'revenue_usd', 'fill_rate', 'rpm_usd'],
    shown.map((p) => [
      apps.find((a) => a.id === p.app_id)?.name ?? p.app_id,
      p.name,
      p.format,
      p.status,
      p.impressions,
      p.clicks,
      Number(clickThroughRate(p.clicks, p.impressions).toFixed(4)),
      exactUsd(micro(p.revenue_micro)),
      p.fill_rate,
      p.rpm_usd,
    ]),
  );
  const payoutsCsv = toCsv(
    ['period', 'amount_usd', 'status', 'requested_at', 'paid_at'],
    earnings.payouts.map((p) => [p.period, p.amount_usd, p.status, p.requested_at, p.paid_at]),
  );

  const period = `${formatDay(`${daily.from}T00:00:00Z`)} to ${daily.to === today ? `today (${formatDay(`${today}T00:00:00Z`)}, so far)` : formatDay(`${daily.to}T00:00:00Z`)}`;
  // The charts' points are the API's daily figures; their totals are the API's too (exact sums, rounded once), never sums of rounded days.
  const charts = {
    revenue: buildDailyChart(
      daily.daily.map((d) => ({ date: d.date, value: d.revenue_usd })),
      { kind: 'usd', today, label: 'Revenue per day (UTC)' },
    ),
    impressions: buildDailyChart(
      daily.daily.map((d) => ({ date: d.date, value: d.impressions })),
      { kind: 'count', today, label: 'Impressions per day (UTC)', unit: ['impression', 'impressions'] },
    ),
    clicks: buildDailyChart(
      daily.daily.map((d) => ({ date: d.date, value: d.clicks })),
      { kind: 'count', today, label: 'Clicks per day (UTC)', unit: ['click', 'clicks'] },
    ),
  };
  const active = placements.filter((p) => p.status !== 'archived');

  return (
    <div className="min-w-0">
      <ConsoleHeader title="Earnings" subtitle="What your placements earned, to date and day by day (UTC)." />
      <ConsoleNav current="/dashboard/earnings" />

      <div className="grid min-w-0 gap-8">
        <section aria-labelledby="to-date" className="grid gap-3">
          <h2 id="to-date">To date</h2>
          <Totals
            items={[
              { label: 'Ad revenue tracked', value: formatUsd(earnings.ad_revenue_tracked_usd), testId: 'earnings-revenue' },
              { label: 'Impressions', value: formatCount(earnings.impressions), testId: 'earnings-impressions' },
              { label: 'Clicks', value: formatCount(earnings.clicks), testId: 'earnings-clicks' },
              { label: 'Data sales', value: formatUsd(earnings.data_revenue_usd), testId: 'earnings-data-revenue', exact: earnings.data_revenue_micro },
            ]}
          />
          <p className="text-sm text-muted-foreground" data-testid="rounding-rule">
            Amounts are exact to the micro-dollar and rounded to the cent for display, so a total may differ by a cent from the sum of the rounded rows.
          </p>
        </section>

        <Card aria-labelledby="daily" className="grid min-w-0 gap-6">
          <div className="grid gap-4">
            <CardTitle id="daily">Per day</CardTitle>
            <form method="get" aria-label="Period and scope" className="grid items-end gap-3 sm:grid-cols-2 lg:grid-cols-[repeat(3,minmax(0,1fr))_auto]">
              <Field label="Period" htmlFor="days">
                <Select
                  id="days"
                  name="days"
                  defaultValue={String(query.days)}
                  options={DAILY_PERIODS.map((d) => ({ value: String(d), label: `Last ${d} days` }))}
                />
              </Field>
              <Field label="App" htmlFor="app_id">
                <Select
                  id="app_id"
                  name="app_id"
                  defaultValue={query.app_id ?? ALL}
                  options={[{ value: ALL, label: 'All apps' }, ...apps.map((a) => ({ value: a.id, label: a.name }))]}
                />
              </Field>
              <Field label="Placement" htmlFor="placement_id">
                <Select
                  id="placement_id"
                  name="placement_id"
                  defaultValue={query.placement_id ?? ALL}
                  options={[{ value: ALL, label: 'All placements' }, ...active.map((p) => ({ value: p.id, label: p.name }))]}
                />
              </Field>
              <Button type="submit" variant="outline">
                Show
              </Button>
            </form>
            <p>
              {period}, {scope}: <strong data-testid="period-revenue">{formatUsd(daily.totals.revenue_usd)}</strong>,{' '}
              {countOf(daily.totals.impressions, 'impression')}, {countOf(daily.totals.clicks, 'click')}.
            </p>
          </div>

          <DailyChart title="Revenue per day" total={formatUsd(daily.totals.revenue_usd)} model={charts.revenue} tone={1} />
          <div className="grid min-w-0 gap-6 lg:grid-cols-2">
            <DailyChart title="Impressions per day" total={formatCount(daily.totals.impressions)} model={charts.impressions} tone={2} />
            <DailyChart title="Clicks per day" total={formatCount(daily.totals.clicks)} model={charts.clicks} tone={2} />
          </div>

          <details className="min-w-0">
            <summary className="cursor-pointer text-sm font-medium text-primary">The figures per day, as a table</summary>
            <div className="mt-3">
              <DailyTable daily={daily.daily} today={today} />
            </div>
          </details>

          <p className="flex flex-wrap items-center gap-2 text-sm">
            <span className="text-muted-foreground">Download as CSV:</span>
            <Button asChild variant="outline" size="xs">
              <a href={csvDataUrl(dailyCsv)} download={`earnings-daily-${daily.days}d.csv`}>
                figures per day
              </a>
            </Button>
            <Button asChild variant="outline" size="xs">
              <a href={csvDataUrl(placementsCsv)} download="placements.csv">
                placements
              </a>
            </Button>
            <Button asChild variant="outline" size="xs">
              <a href={csvDataUrl(payoutsCsv)} download="payouts.csv">
                payouts
              </a>
            </Button>
          </p>
        </Card>

        <Card aria-labelledby="placements" className="grid min-w-0 gap-4">
          <CardTitle id="placements">Placements to date</CardTitle>
          {shown.length === 0 ? (
            <EmptyState title="No placements here yet">Placements you create for your apps show their figures here.</EmptyState>
          ) : (
            <PlacementTable label="Placements to date" placements={shown} />
          )}
          <CardDescription>
            CTR: clicks per impression. Fill rate: the share of ad requests that were filled. RPM: revenue per 1,000 impressions.
          </CardDescription>
        </Card>

        <Card aria-labelledby="data-sales" className="grid min-w-0 gap-4">
          <CardTitle id="data-sales">Data sales</CardTitle>
          <CardDescription>
            What data buyers paid you for the consented data of your apps&rsquo; users: your share of each license that held their records, in proportion to
            what your apps contributed, in the balances above. A user who withdraws consent later takes their records out of every later sale; what was earned
            stays yours.
          </CardDescription>
          {sold.sales.length === 0 ? (
            <EmptyState title="No data sold yet">
              Records your apps send under consent (see <Link href="/docs/data-and-consent">Data and consent</Link>) are offered to data buyers; each sale shows
              here.
            </EmptyState>
          ) : (
            <>
              <ScrollTable label="Data sales per month" head={['Month (UTC)', 'Sales', 'Earned']}>
                {sold.months.map((m) => (
                  <tr key={m.month}>
                    <td>{m.month}</td>
                    <td className="num">{formatCount(m.sales)}</td>
                    <td className="num">
                      <data value={m.micro}>{formatUsd(m.micro / 1e6)}</data>
                    </td>
                  </tr>
                ))}
              </ScrollTable>
              <ScrollTable label="Data sales, newest first" head={['Sold', 'Apps', 'Earned']}>
                {sold.sales.slice(0, 50).map((sale) => (
                  <tr key={sale.id} data-testid="data-sale">
                    <td>{formatDay(sale.sold_at.toISOString())}</td>
                    <td>{sale.apps.map((a) => a.app).join(', ')}</td>
                    <td className="num">
                      <data value={sale.micro}>{formatUsd(sale.micro / 1e6)}</data>
                    </td>
                  </tr>
                ))}
              </ScrollTable>
            </>
          )}
        </Card>

        <Card aria-labelledby="payouts" className="grid min-w-0 gap-4">
          <CardTitle id="payouts">Payouts</CardTitle>
          {earnings.payouts.length === 0 ? (
            <EmptyState
              title="No payouts yet"
              action={
                <Button asChild variant="outline" size="sm">
                  <Link href="/dashboard/payouts">Payouts and balance</Link>
                </Button>
              }
            >
              Earnings become final once a month; request a payout of what is final on the Payouts page.
            </EmptyState>
          ) : (
            <PayoutTable payouts={earnings.payouts} />
          )}
        </Card>
      </div>
    </div>
  );
}
