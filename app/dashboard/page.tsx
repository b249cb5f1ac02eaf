import type { Metadata } from 'next';
import Link from 'next/link';
import { getEarnings, listApiKeys, listApps } from '@/lib/account/operations';
import { formatCount, formatDay, formatUsd } from '@/lib/console/format';
import { consoleAccount } from '@/lib/console/session';
import { MAX_APPS_PER_PUBLISHER } from '@/lib/schemas/console';
import { services } from '@/lib/services';
import { createAppAction } from './actions';
import { AppForm } from './forms';
import { requirePublisher } from './publisher';
import { KeyTable, PayoutsSection, PlacementTable, Totals } from './tables';
import { ConsoleNav } from './nav';

export const metadata: Metadata = { title: 'Console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

export default async function ConsolePage() {
  const user = await requirePublisher('/dashboard');
  const s = services();
  const account = consoleAccount(user, s.database);
  const [{ apps, placements }, { api_keys: keys }, earnings] = await Promise.all([
    listApps(account, 'all'),
    listApiKeys(account, 'all'),
    getEarnings(account, 12),
  ]);
  return (
    <div className="console">
      <h1>Console</h1>
      <p className="muted">Signed in as {user.email}.</p>
      <ConsoleNav current="/dashboard" />

      <section aria-labelledby="totals">
        <h2 id="totals">Earnings to date</h2>
        <Totals
          items={[
            { label: 'Ad revenue tracked', value: formatUsd(earnings.ad_revenue_tracked_usd), testId: 'total-revenue' },
            { label: 'Impressions', value: formatCount(earnings.impressions), testId: 'total-impressions' },
            { label: 'Clicks', value: formatCount(earnings.clicks), testId: 'total-clicks' },
            { label: 'Paid out', value: formatUsd(earnings.payouts_paid_usd) },
            { label: 'Pending payout', value: formatUsd(earnings.payouts_pending_usd) },
          ]}
        />
      </section>

      <section aria-labelledby="apps">
        <h2 id="apps">Apps</h2>
        {apps.length === 0 && <p>No apps yet: create your first one below.</p>}
        {apps.map((app) => {
          const own = placements.filter((p) => p.app_id === app.id && p.status !== 'archived');
          const ownKeys = keys.filter((k) => k.app_id === app.id);
          return (
            <article key={app.id} className="card" aria-labelledby={`app-${app.id}`}>
              <h3 id={`app-${app.id}`}>
                <Link href={`/dashboard/apps/${app.id}`}>{app.name}</Link>
              </h3>
              <p className="muted">
                <code>{app.slug}</code> · created {formatDay(app.created_at)}
                {app.category.length > 0 && <> · {app.category.join(', ')}</>}
              </p>
              {app.description && <p>{app.description}</p>}
              <h4>Placements</h4>
              {own.length === 0 ? <p>No placements.</p> : <PlacementTable label={`Placements of ${app.name}`} placements={own} />}
              <h4>API keys</h4>
              {ownKeys.length === 0 ? <p>No keys.</p> : <KeyTable label={`API keys of ${app.name}`} keys={ownKeys} />}
            </article>
          );
        })}
      </section>

      <section aria-labelledby="new-app">
        <h2 id="new-app">Create an app</h2>
        <p className="hint">You can have up to {MAX_APPS_PER_PUBLISHER} apps that are not archived.</p>
        <AppForm action={createAppAction} submit="Create app" idPrefix="new-app" />
      </section>

      <PayoutsSection payouts={earnings.payouts} />
    </div>
  );
}
