import type { Metadata } from 'next';
import Link from 'next/link';
import { getEarnings, listApiKeys, listApps } from '@/lib/account/operations';
import { formatCount, formatDay, formatUsd } from '@/lib/platform/kit/format';
import { onboardingSteps } from '@/lib/publisher/onboarding';
import { consoleAccount } from '@/lib/publisher/session';
import { MAX_APPS_PER_PUBLISHER } from '@/lib/schemas/console';
import { services } from '@/lib/services';
import { Card, CardDescription, CardHeader, CardTitle } from '../_components/ui/card';
import { EmptyState } from '../_components/ui/empty-state';
import { createAppAction } from './actions';
import { AppForm } from './forms';
import { ConsoleHeader, ConsoleNav } from './nav';
import { Onboarding } from './onboarding';
import { requirePublisher, rolesOfUser } from './publisher';
import { KeyTable, PayoutsSection, PlacementTable, Totals } from './tables';

export const metadata: Metadata = { title: 'Console', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

export default async function ConsolePage() {
  const user = await requirePublisher('/dashboard');
  if (!(await rolesOfUser(user.id)).publisher) return <NotPublishing />;
  const s = services();
  const account = consoleAccount(user, s.database);
  const [{ apps, placements }, { api_keys: keys }, earnings] = await Promise.all([
    listApps(account, 'all'),
    listApiKeys(account, 'all'),
    getEarnings(account, 12),
  ]);
  const onboarding = onboardingSteps({ apps, placements, keys, impressions: earnings.impressions });
  return (
    <div>
      <ConsoleHeader title="Console" subtitle={`Signed in as ${user.email}.`} />
      <ConsoleNav current="/dashboard" />
      <Onboarding {...onboarding} />

      <section aria-labelledby="totals" className="mb-10">
        <h2 id="totals" className="mb-3">
          Earnings to date
        </h2>
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

      <section aria-labelledby="apps" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="apps">Apps</h2>
        {apps.length === 0 && (
          <EmptyState title="No apps yet">An app is where your ads appear: create your first one below, then add a placement and a key to it.</EmptyState>
        )}
        {apps.map((app) => {
          const own = placements.filter((p) => p.app_id === app.id && p.status !== 'archived');
          const ownKeys = keys.filter((k) => k.app_id === app.id);
          return (
            <Card key={app.id} aria-labelledby={`app-${app.id}`} className="grid grid-cols-1 min-w-0 gap-4">
              <CardHeader className="mb-0">
                <div className="min-w-0">
                  <CardTitle as="h3" id={`app-${app.id}`}>
                    <Link href={`/dashboard/apps/${app.id}`}>{app.name}</Link>
                  </CardTitle>
                  <CardDescription>
                    <code>{app.slug}</code> · created {formatDay(app.created_at)}
                    {app.category.length > 0 && <> · {app.category.join(', ')}</>}
                  </CardDescription>
                </div>
              </CardHeader>
              {app.description && <p className="text-sm">{app.description}</p>}
              <h4 className="text-sm font-semibold">Placements</h4>
              {own.length === 0 ? (
                <p className="text-sm text-muted-foreground">No placements.</p>
              ) : (
                <PlacementTable label={`Placements of ${app.name}`} placements={own} />
              )}
              <h4 className="text-sm font-semibold">API keys</h4>
              {ownKeys.length === 0 ? <p className="text-sm text-muted-foreground">No keys.</p> : <KeyTable label={`API keys of ${app.name}`} keys={ownKeys} />}
            </Card>
          );
        })}
      </section>

      <NewAppCard />

      <PayoutsSection payouts={earnings.payouts} />
    </div>
  );
}

/**
 * The overview of an account that publishes no app yet (an advertiser's, a data buyer's): what
 * publishing is and the form that takes it up, never the publisher's checklist or figures.
 */
function NotPublishing() {
  return (
    <div>
      <ConsoleHeader title="Publishing" />
      <ConsoleNav current="/dashboard" />
      <section aria-labelledby="publish" className="mb-6 grid max-w-2xl gap-4">
        <h2 id="publish">Earn from ads in your AI app</h2>
        <p className="text-muted-foreground">
          Your account publishes no app yet. A publisher adds an app, a placement where ads may appear and a key, puts the SDK in its pages or asks from its
          server, and earns from every impression its users see, paid out monthly. Add your first app below to start.
        </p>
      </section>
      <NewAppCard className="max-w-3xl" />
    </div>
  );
}

/** The form that adds an app: the publisher's next app, or an account's first (which makes it a publisher). */
function NewAppCard({ className = '' }: { className?: string }) {
  return (
    <Card aria-labelledby="new-app-title" id="new-app" className={`mb-10 scroll-mt-24 ${className}`}>
      <CardHeader>
        <div>
          <CardTitle id="new-app-title">Create an app</CardTitle>
          <CardDescription>You can have up to {MAX_APPS_PER_PUBLISHER} apps that are not archived.</CardDescription>
        </div>
      </CardHeader>
      <AppForm action={createAppAction} submit="Create app" idPrefix="new-app" />
    </Card>
  );
}
