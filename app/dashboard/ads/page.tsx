import type { Metadata } from 'next';
import Link from 'next/link';
import { advertiserAccount } from '@/lib/ads/advertisers/account';
import { formatRun, timeZones } from '@/lib/ads/advertisers/time';
import { clickThroughRate, formatCount, formatPercent } from '@/lib/platform/kit/format';
import { sumMicro } from '@/lib/platform/kit/micro';
import { accountCompany } from '@/lib/publisher/session';
import { services } from '@/lib/services';
import { Alert } from '../../_components/ui/alert';
import { Button } from '../../_components/ui/button';
import { EmptyState } from '../../_components/ui/empty-state';
import { ConsoleHeader, ConsoleNav } from '../nav';
import { requirePublisher as requireSignedIn } from '../publisher';
import { ScrollTable, StatusBadge, Totals } from '../tables';
import { profileAction, tryConversationAction } from './actions';
import { ProfileForm, TryConversation } from './forms';
import { budgetLeftMicro, ecpm, statusNote, usd } from './display';

export const metadata: Metadata = { title: 'Advertising', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** The time zones a profile may choose from (this runtime's list). */
const ZONES = timeZones();
const EMPTY_PROFILE = { company: '', billing_name: '', billing_email: '', billing_address: '', country: '', tax_id: '', time_zone: 'UTC' };

/** /dashboard/ads: the advertiser's balance and campaigns; first, the profile that makes a user an advertiser. */
export default async function AdvertisingPage() {
  const user = await requireSignedIn('/dashboard/ads');
  const account = await advertiserAccount(await services().database(), user.id);
  const { profile } = account;
  if (!profile) {
    return (
      <div>
        <ConsoleHeader title="Advertising" subtitle={`Signed in as ${user.email}.`} />
        <ConsoleNav current="/dashboard/ads" />
        <section aria-labelledby="start" className="grid max-w-2xl gap-4">
          <h2 id="start">Start advertising</h2>
          <p className="text-muted-foreground">
            Your ads appear inside AI apps, in five formats, at the published CPMs. You fund a prepaid balance, create a campaign with its creatives, and the
            operator reviews them before they serve. First, the company and billing details your invoices and receipts carry.
          </p>
          <ProfileForm
            action={profileAction}
            initial={{ ...EMPTY_PROFILE, company: await accountCompany(user, services().database), billing_email: user.email }}
            submit="Start advertising"
            zones={ZONES}
          />
        </section>
      </div>
    );
  }
  const { campaigns, balance_micro: balance } = account;
  const spent = sumMicro(campaigns.map((c) => c.spent_micro));
  const impressions = campaigns.reduce((sum, c) => sum + c.impressions, 0);
  const clicks = campaigns.reduce((sum, c) => sum + c.clicks, 0);
  const starved = campaigns.filter((c) => c.status === 'paused' && c.pause_reason === 'out_of_funds');
  return (
    <div>
      <ConsoleHeader
        title="Advertising"
        subtitle={`${profile.company} · signed in as ${user.email} · dates in ${profile.time_zone}.`}
        actions={
          <div className="flex flex-wrap gap-2">
            <Button asChild variant="outline">
              <Link href="/dashboard/ads/reports">Reports</Link>
            </Button>
            <Button asChild variant="outline">
              <Link href="/dashboard/ads/conversions">Conversions</Link>
            </Button>
            <Button asChild variant="outline">
              <Link href="/dashboard/ads/funds">Add funds</Link>
            </Button>
            <Button asChild>
              <Link href="/dashboard/ads/campaigns/new">New campaign</Link>
            </Button>
          </div>
        }
      />
      <ConsoleNav current="/dashboard/ads" />
      {starved.length > 0 && (
        <Alert tone="warning" className="mb-6">
          Your balance is used up: {starved.length === 1 ? 'one campaign is' : `${starved.length} campaigns are`} paused until you{' '}
          <Link href="/dashboard/ads/funds">add funds</Link>. They resume by themselves once the payment is credited.
        </Alert>
      )}
      <section aria-labelledby="money" className="mb-10">
        <h2 id="money" className="mb-3">
          Funds and results
        </h2>
        <Totals
          items={[
            { label: 'Balance', value: usd(balance), testId: 'advertiser-balance', exact: balance },
            { label: 'Spent', value: usd(spent), testId: 'advertiser-spent', exact: spent },
            { label: 'Impressions', value: formatCount(impressions), testId: 'advertiser-impressions' },
            { label: 'Clicks', value: formatCount(clicks) },
            { label: 'CTR', value: formatPercent(clickThroughRate(clicks, impressions)) },
          ]}
        />
      </section>
      <section aria-labelledby="campaigns" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="campaigns">Campaigns</h2>
        {campaigns.length === 0 ? (
          <EmptyState
            title="No campaigns yet"
            action={
              <Button asChild>
                <Link href="/dashboard/ads/campaigns/new">Create your first campaign</Link>
              </Button>
            }
          >
            A campaign has a budget, dates, the formats it buys and its targeting; its creatives are reviewed before they serve.
          </EmptyState>
        ) : (
          <ScrollTable
            label="Campaigns"
            head={['Campaign', 'Status', `Runs (${profile.time_zone})`, 'Budget', 'Spend', 'Budget left', 'Impressions', 'Clicks', 'CTR', 'eCPM']}
          >
            {campaigns.map((c) => {
              const left = budgetLeftMicro(c);
              return (
                <tr key={c.id}>
                  <th scope="row">
                    <Link href={`/dashboard/ads/campaigns/${c.id}`}>{c.name}</Link>
                  </th>
                  <td title={statusNote(c)}>
                    <StatusBadge status={c.status} />
                    {c.pause_reason === 'out_of_funds' && <span className="ml-1 text-xs text-muted-foreground">(out of funds)</span>}
                  </td>
                  <td className="whitespace-nowrap">{formatRun(c.starts_at, c.ends_at, profile.time_zone)}</td>
                  <td className="num">{c.lifetime_budget_micro === null ? '—' : usd(c.lifetime_budget_micro)}</td>
                  <td className="num">{usd(c.spent_micro)}</td>
                  <td className="num">{left === null ? '—' : usd(left)}</td>
                  <td className="num">{formatCount(c.impressions)}</td>
                  <td className="num">{formatCount(c.clicks)}</td>
                  <td className="num">{formatPercent(clickThroughRate(c.clicks, c.impressions))}</td>
                  <td className="num">{ecpm(c.spent_micro, c.impressions)}</td>
                </tr>
              );
            })}
          </ScrollTable>
        )}
      </section>
      <section aria-labelledby="try" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="try">Try a conversation</h2>
        <p className="max-w-2xl text-sm text-muted-foreground">
          Type what a user might say to an AI app, and see how relevant each of your campaigns would be there and which of its context hints matched: apps that
          send the conversation show a campaign only at their least relevance (0.3 unless they change it), and never beside a sensitive conversation.
        </p>
        <TryConversation action={tryConversationAction} />
      </section>
      <section aria-labelledby="profile" className="grid grid-cols-1 gap-4">
        <h2 id="profile">Billing details</h2>
        <details className="rounded-xl border bg-card p-4 sm:p-6">
          <summary className="cursor-pointer font-medium">Edit the details on your invoices</summary>
          <div className="mt-4">
            <ProfileForm action={profileAction} initial={{ ...profile, tax_id: profile.tax_id ?? '' }} submit="Save details" zones={ZONES} />
          </div>
        </details>
      </section>
    </div>
  );
}
