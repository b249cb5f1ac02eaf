import type { Metadata } from 'next';
import Link from 'next/link';
import { formatCount, formatDay, formatDayOnly, formatMoment } from '@/lib/platform/kit/format';
import { acceptedCurrentTerms, buyerFunds, buyerLicenses, buyerProfile, deletionNotices } from '@/lib/data/buyers/account';
import { formatBytes, listingAvailability } from '@/lib/data/buyers/catalog';
import { day, page, pageStart, unitPrice, usd, usdToMicro, LICENSES_PAGE, type SearchParams } from '@/lib/data/buyers/display';
import { catalogFilter, DATA_TERMS_VERSION, LISTING_IDS, LISTINGS } from '@/lib/data/buyers/schemas';
import { buyerWebhook, webhookDeliveries } from '@/lib/data/buyers/webhook-settings';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { accountCompany } from '@/lib/publisher/session';
import { services } from '@/lib/services';
import { Alert } from '../../_components/ui/alert';
import { Button } from '../../_components/ui/button';
import { EmptyState } from '../../_components/ui/empty-state';
import { ConsoleHeader, ConsoleNav } from '../nav';
import { requirePublisher as requireSignedIn } from '../publisher';
import { ScrollTable } from '../tables';
import { buyerProfileAction, webhookRemoveAction, webhookRotateAction, webhookUrlAction } from './actions';
import { BuyerProfileForm, WebhookSettings } from './forms';
import { AcknowledgedAlert, FundsTotals, LicenseBadge, NoticeCard, WebhookDeliveries } from './parts';

export const metadata: Metadata = { title: 'Data', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/**
 * /dashboard/data: the data buyer's funds, the catalog's three listings, their licenses and the
 * deletion notices waiting for them; first, the profile and the data license terms that make a
 * user a data buyer (asked again when the terms change).
 */
export default async function DataPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await requireSignedIn('/dashboard/data');
  const params = await searchParams;
  const s = services();
  const db = await s.database();
  const profile = await buyerProfile(db, user.id);
  const current = acceptedCurrentTerms(profile);
  const form = (
    <BuyerProfileForm
      action={buyerProfileAction}
      initial={{
        company: profile?.company ?? (await accountCompany(user, s.database)),
        intended_use: profile?.intended_use ?? '',
        billing_email: profile?.billing_email ?? user.email,
        country: profile?.country ?? '',
      }}
      submit={profile ? 'Accept the terms and save' : 'Become a data buyer'}
      termsVersion={DATA_TERMS_VERSION}
    />
  );
  if (!profile) {
    return (
      <div>
        <ConsoleHeader title="Data" subtitle={`Signed in as ${user.email}.`} />
        <ConsoleNav current="/dashboard/data" />
        <section aria-labelledby="start" className="grid max-w-2xl gap-4">
          <h2 id="start">Become a data buyer</h2>
          <p className="text-muted-foreground">
            License AI interactions and UX sessions that the people in them consented to sell, from apps that use Monetize. You fund a prepaid balance, look at
            a free sample of each listing, and buy the records that match your filter; their files are yours to download for the license’s term. First, who you
            are, what the data is for, and the license terms.
          </p>
          {form}
        </section>
      </div>
    );
  }

  const before = pageStart(params);
  const emptyFilter = catalogFilter.parse({});
  const [funds, rows, notices, pricing, available, webhook, deliveries] = await Promise.all([
    buyerFunds(db, user.id),
    buyerLicenses(db, user.id, { limit: LICENSES_PAGE + 1, before }),
    deletionNotices(db, user.id),
    s.pricing.values(),
    Promise.all(LISTING_IDS.map((id) => listingAvailability(db, user.id, id, emptyFilter))),
    buyerWebhook(db, user.id),
    webhookDeliveries(db, user.id),
  ]);
  const deliveryOf = new Map(deliveries.map((d) => [d.notice_id, d]));
  const prices = (pricing ?? DEFAULT_PRICING).dataset_prices_usd;
  const licenses = page(rows);
  const waiting = notices.filter((n) => n.acknowledged_at === null);
  const titleOf = new Map(licenses.rows.map((l) => [l.id, `${LISTINGS[l.listing].title}, ${formatDay(l.requested_at.toISOString())}`]));
  return (
    <div>
      <ConsoleHeader
        title="Data"
        subtitle={`${profile.company} · signed in as ${user.email} · terms version ${profile.terms_version}.`}
        actions={
          <Button asChild variant="outline">
            <Link href="/dashboard/data/funds">Add funds</Link>
          </Button>
        }
      />
      <ConsoleNav current="/dashboard/data" />
      <AcknowledgedAlert shown={params.acknowledged === '1'} />
      {!current && (
        <section aria-labelledby="terms" className="mb-10 grid max-w-2xl gap-4">
          <h2 id="terms">The data license terms changed</h2>
          <Alert tone="warning">
            The terms are now version {DATA_TERMS_VERSION}; you accepted version {profile.terms_version}. Accept the new version to buy again: your licenses
            stay under the terms they were bought with.
          </Alert>
          {form}
        </section>
      )}
      {waiting.length > 0 && (
        <Alert tone="warning" className="mb-6">
          {waiting.length === 1 ? 'A deletion notice waits' : `${waiting.length} deletion notices wait`} for your acknowledgement: records you licensed were
          deleted after their people withdrew consent. <Link href="#notices">Read {waiting.length === 1 ? 'it' : 'them'}</Link>.
        </Alert>
      )}

      <section aria-labelledby="funds" className="mb-10">
        <h2 id="funds" className="mb-3">
          Funds
        </h2>
        <FundsTotals funds={funds} />
        <p className="mt-3 text-sm text-muted-foreground">
          A license is paid from your balance. An exclusive license waiting for the operator’s review reserves its price until it is approved (and charged) or
          rejected (and released). <Link href="/dashboard/data/funds">Top up your balance</Link>.
        </p>
      </section>

      <section aria-labelledby="catalog" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="catalog">Catalog</h2>
        <ul className="grid grid-cols-1 gap-4 lg:grid-cols-3">
          {LISTING_IDS.map((id, i) => {
            const listing = LISTINGS[id];
            const a = available[i]!;
            return (
              <li key={id} className="grid min-w-0 content-start gap-3 rounded-xl border bg-card p-4 sm:p-6" data-testid="listing-card">
                <h3 className="text-lg">
                  <Link href={`/dashboard/data/catalog/${id}`}>{listing.title}</Link>
                </h3>
                <p className="text-sm text-muted-foreground">{listing.summary}</p>
                <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                  <dt className="text-muted-foreground">Available</dt>
                  <dd className="tabular-nums">
                    {formatCount(a.records)} records, {formatBytes(a.bytes)}
                  </dd>
                  <dt className="text-muted-foreground">Received</dt>
                  <dd>{a.first_day ? `${formatDayOnly(`${a.first_day}T00:00:00Z`)} – ${day(a.last_day)}` : 'nothing yet'}</dd>
                  <dt className="text-muted-foreground">Price</dt>
                  <dd className="tabular-nums">
                    {unitPrice(usdToMicro(prices[listing.priceKey]))} per {listing.unit}
                  </dd>
                </dl>
                <div>
                  <Button asChild variant="outline" size="sm">
                    <Link href={`/dashboard/data/catalog/${id}`} aria-label={`Open the listing ${listing.title}`}>
                      Open the listing
                    </Link>
                  </Button>
                </div>
              </li>
            );
          })}
        </ul>
      </section>

      <section aria-labelledby="licenses" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="licenses">Licenses</h2>
        {licenses.rows.length === 0 ? (
          before ? (
            <EmptyState title="No older licenses">
              <Link href="/dashboard/data#licenses">Back to the newest</Link>
            </EmptyState>
          ) : (
            <EmptyState title="No licenses yet">Open a listing, look at its sample, and buy the records that match your filter.</EmptyState>
          )
        ) : (
          <>
            <ScrollTable label="Licenses" head={['Listing', 'License', 'Status', 'Records', 'Price', 'Requested', 'Expires', 'Details']}>
              {licenses.rows.map((l) => (
                <tr key={l.id}>
                  <th scope="row">{LISTINGS[l.listing].title}</th>
                  <td>{l.exclusive ? 'Exclusive' : 'Standard'}</td>
                  <td>
                    <LicenseBadge status={l.status} />
                  </td>
                  <td className="num">{formatCount(l.records)}</td>
                  <td className="num">{usd(l.price_micro)}</td>
                  <td>{formatDay(l.requested_at.toISOString())}</td>
                  <td>{l.expires_at ? formatDay(l.expires_at.toISOString()) : '—'}</td>
                  <td>
                    <Link href={`/dashboard/data/licenses/${l.id}`} aria-label={`Open the license of ${titleOf.get(l.id)}`}>
                      Open
                    </Link>
                  </td>
                </tr>
              ))}
            </ScrollTable>
            {(licenses.next || before) && (
              <nav aria-label="Pages of licenses" className="flex flex-wrap gap-4 text-sm">
                {before && <Link href="/dashboard/data#licenses">Newest licenses</Link>}
                {licenses.next && <Link href={`/dashboard/data?${new URLSearchParams({ before: licenses.next })}#licenses`}>Older licenses</Link>}
              </nav>
            )}
          </>
        )}
      </section>

      {waiting.length > 0 && (
        <section aria-labelledby="notices" className="mb-10 grid grid-cols-1 gap-4">
          <h2 id="notices">Deletion notices to acknowledge</h2>
          {waiting.map((n) => (
            <NoticeCard
              key={n.id}
              notice={n}
              back="/dashboard/data"
              licenseLabel={(id) => titleOf.get(id) ?? `License ${id.slice(0, 8)}`}
              delivery={deliveryOf.get(n.id)}
            />
          ))}
        </section>
      )}

      <section aria-labelledby="webhook" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="webhook">Deletion notices by webhook</h2>
        <div className="grid min-w-0 gap-4 rounded-xl border bg-card p-4 sm:p-6" data-testid="webhook-card">
          <p className="text-sm text-muted-foreground">
            Give an https URL, and every deletion notice from then on is also sent to it as JSON, signed with a secret only you and we hold (
            <Link href="/docs/data-buyers#deletion-notices-by-webhook">the payload, and how to verify it</Link>). Failed attempts are retried for about two
            days. The console stays the record: you still acknowledge each notice here.
          </p>
          <WebhookSettings
            webhook={webhook && { url: webhook.url, secretHint: webhook.secret_hint, secretMade: formatMoment(webhook.secret_rotated_at.toISOString()) }}
            urlAction={webhookUrlAction}
            rotateAction={webhookRotateAction}
            removeAction={webhookRemoveAction}
          />
          {deliveries.length > 0 && <WebhookDeliveries deliveries={deliveries.slice(0, 20)} />}
        </div>
      </section>

      {current && (
        <section aria-labelledby="profile" className="grid grid-cols-1 gap-4">
          <h2 id="profile">Buyer details</h2>
          <details className="rounded-xl border bg-card p-4 sm:p-6">
            <summary className="cursor-pointer font-medium">Edit your company, intended use and billing details</summary>
            <div className="mt-4">{form}</div>
          </details>
        </section>
      )}
    </div>
  );
}
