import type { Metadata } from 'next';
import { getDailyEarnings, getEarnings, listApps } from '@/lib/account/operations';
import { todayUtc } from '@/lib/account/views';
import { csvDataUrl, toCsv } from '@/lib/console/csv';
import { clickThroughRate, formatCount, formatDay, formatUsd } from '@/lib/console/format';
import { consoleAccount } from '@/lib/console/session';
import { DAILY_PERIODS, dailyQuery } from '@/lib/schemas/account';
import { services } from '@/lib/services';
import { requirePublisher } from '../publisher';
import { PayoutsSection, PlacementTable, ScrollTable, Totals } from '../tables';
import { DailyChart } from './chart';
import { ConsoleNav } from '../nav';

export const metadata: Metadata = { title: 'Earnings', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

type Search = Promise<Record<string, string | string[] | undefined>>;
const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

export default async function EarningsPage({ searchParams }: { searchParams: Search }) {
  const params = await searchParams;
  const user = await requirePublisher('/dashboard/earnings');
  // The same parameters as GET /api/v1/me/earnings/daily; anything else falls back to the defaults.
  const parsed = dailyQuery.safeParse({ days: one(params.days), app_id: one(params.app_id), placement_id: one(params.placement_id) });
  const query = parsed.success ? parsed.data : dailyQuery.parse({});
  const s = services();
  const account = consoleAccount(user, s.database);
  const today = todayUtc(s.now());
  const [daily, earnings, { apps, placements }] = await Promise.all([
    getDailyEarnings(account, query, today),
    getEarnings(account, 50),
    listApps(account, 'all'),
  ]);
  const shown = placements.filter(
    (p) => p.status !== 'archived' && (!query.app_id || p.app_id === query.app_id) && (!query.placement_id || p.id === query.placement_id),
  );
  const scope = query.placement_id
    ? `placement ${placements.find((p) => p.id === query.placement_id)?.name ?? ''}`
    : query.app_id
      ? `app ${apps.find((a) => a.id === query.app_id)?.name ?? ''}`
      : 'all apps';
  const dailyCsv = toCsv(
    ['date', 'revenue_usd', 'impressions', 'clicks'],
    daily.daily.map((d) => [d.date, d.revenue_usd, d.impressions, d.clicks]),
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
      p.revenue_usd,
      p.fill_rate,
      p.rpm_usd,
    ]),
  );
  const payoutsCsv = toCsv(
    ['period', 'amount_usd', 'status', 'requested_at', 'paid_at'],
    earnings.payouts.map((p) => [p.period, p.amount_usd, p.status, p.requested_at, p.paid_at]),
  );

  return (
    <div className="console">
      <h1>Earnings</h1>
      <ConsoleNav current="/dashboard/earnings" />

      <section aria-labelledby="to-date">
        <h2 id="to-date">To date</h2>
        <Totals
          items={[
            { label: 'Ad revenue tracked', value: formatUsd(earnings.ad_revenue_tracked_usd), testId: 'earnings-revenue' },
            { label: 'Impressions', value: formatCount(earnings.impressions), testId: 'earnings-impressions' },
            { label: 'Clicks', value: formatCount(earnings.clicks), testId: 'earnings-clicks' },
          ]}
        />
        <p className="hint" data-testid="rounding-rule">
          Earnings are kept to the millionth of a dollar and rounded to the cent once, when shown: a total is the exact sum, rounded, so it may differ by a cent
          from the rounded figures beside it.
        </p>
      </section>

      <section aria-labelledby="daily">
        <h2 id="daily">Per day</h2>
        <form method="get" className="filters" aria-label="Period and scope">
          <label htmlFor="days">Period</label>
          <select id="days" name="days" defaultValue={String(query.days)}>
            {DAILY_PERIODS.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
          <label htmlFor="app_id">App</label>
          <select id="app_id" name="app_id" defaultValue={query.app_id ?? ''}>
            <option value="">All apps</option>
            {apps.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
          <label htmlFor="placement_id">Placement</label>
          <select id="placement_id" name="placement_id" defaultValue={query.placement_id ?? ''}>
            <option value="">All placements</option>
            {placements
              .filter((p) => p.status !== 'archived')
              .map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
          </select>
          <button type="submit">Show</button>
        </form>
        <p>
          {formatDay(`${daily.from}T00:00:00Z`)} to {formatDay(`${daily.to}T00:00:00Z`)}, {scope}:{' '}
          <strong data-testid="period-revenue">{formatUsd(daily.totals.revenue_usd)}</strong>, {formatCount(daily.totals.impressions)} impressions,{' '}
          {formatCount(daily.totals.clicks)} clicks.
        </p>
        <DailyChart label="Revenue per day (USD)" format="usd" points={daily.daily.map((d) => ({ date: d.date, value: d.revenue_usd }))} />
        <DailyChart label="Impressions per day" format="count" points={daily.daily.map((d) => ({ date: d.date, value: d.impressions }))} />
        <DailyChart label="Clicks per day" format="count" points={daily.daily.map((d) => ({ date: d.date, value: d.clicks }))} />
        <details>
          <summary>The figures per day</summary>
          <ScrollTable label="Figures per day" head={['Date', 'Revenue', 'Impressions', 'Clicks']}>
            {daily.daily.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                <td className="num">{formatUsd(d.revenue_usd)}</td>
                <td className="num">{formatCount(d.impressions)}</td>
                <td className="num">{formatCount(d.clicks)}</td>
              </tr>
            ))}
          </ScrollTable>
        </details>
        <p className="downloads">
          Download as CSV:{' '}
          <a href={csvDataUrl(dailyCsv)} download={`earnings-daily-${daily.days}d.csv`}>
            figures per day
          </a>
          ,{' '}
          <a href={csvDataUrl(placementsCsv)} download="placements.csv">
            placements
          </a>
          ,{' '}
          <a href={csvDataUrl(payoutsCsv)} download="payouts.csv">
            payouts
          </a>
          .
        </p>
      </section>

      <section aria-labelledby="placements">
        <h2 id="placements">Placements to date</h2>
        {shown.length === 0 ? <p>No placements.</p> : <PlacementTable label="Placements to date" placements={shown} />}
        <p className="hint">CTR: clicks per impression. Fill rate: the share of ad requests that were filled. RPM: revenue per 1,000 impressions.</p>
      </section>

      <PayoutsSection payouts={earnings.payouts} />
    </div>
  );
}
