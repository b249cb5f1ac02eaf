import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { formatCount, formatDay, formatMoment } from '@/lib/platform/kit/format';
import { buyerLicense, deletionNotices } from '@/lib/data/buyers/account';
import { formatBytes } from '@/lib/data/buyers/catalog';
import { canDownload, describeFilter, exportNote, formatUnits, licenseStatusNote, unitPrice, usd, type SearchParams } from '@/lib/data/buyers/display';
import { licenseExport } from '@/lib/data/buyers/downloads';
import { LISTINGS } from '@/lib/data/buyers/schemas';
import { services } from '@/lib/services';
import { Alert } from '../../../../_components/ui/alert';
import { ConsoleHeader, ConsoleNav } from '../../../nav';
import { requirePublisher as requireSignedIn } from '../../../publisher';
import { RefreshWhileWaiting } from '../../../refresh';
import { downloadAction } from '../../actions';
import { DownloadButtons } from '../../forms';
import { AcknowledgedAlert, ExportBadge, LicenseBadge, NoticeCard } from '../../parts';

export const metadata: Metadata = { title: 'Data license', robots: { index: false, follow: false } };
export const dynamic = 'force-dynamic';

/** How often the page looks again while its files are being written. */
const REFRESH_MS = 3000;

/**
 * /dashboard/data/licenses/[id]: one of the buyer's licenses: what it covers and under which
 * terms, its files (with the page refreshing itself while they are written, and a fresh download
 * link on each click once they are), and the deletion notices that name its records.
 */
export default async function LicensePage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const { id } = await params;
  const { acknowledged } = await searchParams;
  const user = await requireSignedIn(`/dashboard/data/licenses/${encodeURIComponent(id)}`);
  const s = services();
  const db = await s.database();
  const license = await buyerLicense(db, user.id, id);
  if (!license) notFound();
  const [current, notices] = await Promise.all([licenseExport(db, user.id, license.id), deletionNotices(db, user.id)]);
  const listing = LISTINGS[license.listing];
  const mine = notices.filter((n) => n.license_ids.includes(license.id));
  const waiting = mine.filter((n) => n.acknowledged_at === null);
  const writing = current !== null && (current.status === 'queued' || current.status === 'running');
  const downloadable = canDownload(license, current, s.now());
  const requested = formatDay(license.requested_at.toISOString());
  const at = (d: Date | null) => (d ? formatMoment(d.toISOString()) : '—');
  return (
    <div className="min-w-0">
      <ConsoleHeader
        title={`${listing.title}: ${license.exclusive ? 'exclusive' : 'standard'} license`}
        subtitle={`Requested ${requested} · ${formatCount(license.records)} records, ${formatBytes(license.bytes)} · ${usd(license.price_micro)}`}
      />
      <ConsoleNav current="/dashboard/data" />
      <AcknowledgedAlert shown={acknowledged === '1'} />
      <div className="mb-6 flex flex-wrap items-center gap-3">
        <LicenseBadge status={license.status} />
        <p className="text-sm">{licenseStatusNote(license)}</p>
        <Link href="/dashboard/data" className="ml-auto text-sm">
          All licenses
        </Link>
      </div>
      {waiting.length > 0 && (
        <Alert tone="warning" className="mb-6">
          {waiting.length === 1 ? 'A deletion notice names' : `${waiting.length} deletion notices name`} records of this license: delete them, then acknowledge.{' '}
          <Link href="#notices">Read {waiting.length === 1 ? 'it' : 'them'}</Link>.
        </Alert>
      )}

      <section aria-labelledby="license" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="license">The license</h2>
        <dl className="grid min-w-0 gap-x-6 gap-y-2 rounded-xl border bg-card p-4 text-sm sm:grid-cols-[12rem_1fr] sm:p-6">
          <dt className="text-muted-foreground">Listing</dt>
          <dd>
            <Link href={`/dashboard/data/catalog/${license.listing}`}>{listing.title}</Link>
          </dd>
          <dt className="text-muted-foreground">Kind</dt>
          <dd>
            {license.exclusive
              ? `Exclusive (× ${license.multiplier.toLocaleString('en-US')}): its records are licensed to no one else during its term`
              : 'Standard'}
          </dd>
          <dt className="text-muted-foreground">Filter</dt>
          <dd className="break-words">{describeFilter(license.filter, listing)}</dd>
          <dt className="text-muted-foreground">Records</dt>
          <dd className="tabular-nums">
            {formatCount(license.records)} ({formatBytes(license.bytes)})
          </dd>
          <dt className="text-muted-foreground">Units priced</dt>
          <dd className="tabular-nums">
            {formatUnits(license.listing, license.units)} at {unitPrice(license.unit_price_micro)} per {listing.unit}
          </dd>
          <dt className="text-muted-foreground">Price</dt>
          <dd className="font-semibold tabular-nums" data-testid="license-price">
            <data value={license.price_micro}>{usd(license.price_micro)}</data>
          </dd>
          <dt className="text-muted-foreground">Terms</dt>
          <dd>
            <Link href="/docs/data-buyers#terms">Data license terms</Link>, version {license.terms_version}
          </dd>
          <dt className="text-muted-foreground">Requested</dt>
          <dd>{at(license.requested_at)}</dd>
          <dt className="text-muted-foreground">Starts</dt>
          <dd>{at(license.starts_at)}</dd>
          <dt className="text-muted-foreground">Expires</dt>
          <dd>{at(license.expires_at)}</dd>
          {license.rejection_reason && (
            <>
              <dt className="text-muted-foreground">Why it was rejected</dt>
              <dd className="break-words">{license.rejection_reason}</dd>
            </>
          )}
        </dl>
      </section>

      <section aria-labelledby="files" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="files">Files</h2>
        {current === null ? (
          <p className="text-sm text-muted-foreground">
            {license.status === 'pending_review'
              ? 'The files are written once the operator approves the license.'
              : license.status === 'active'
                ? 'The files are about to be written: this page shows when they are.'
                : 'This license has no files to download.'}
          </p>
        ) : (
          <div className="grid gap-3 rounded-xl border bg-card p-4 sm:p-6" data-testid="license-export">
            <div className="flex flex-wrap items-center gap-3">
              <ExportBadge status={current.status} />
              <p className="text-sm" role="status">
                {exportNote(current)}
              </p>
            </div>
            {current.finished_at && current.status === 'done' && (
              <p className="text-sm text-muted-foreground">Written {formatMoment(current.finished_at.toISOString())}.</p>
            )}
            {downloadable ? (
              <>
                <p className="text-sm text-muted-foreground">
                  Each click makes a new link, valid for five minutes and only for you, signed in. Both files hold the same records, with the fields listed on{' '}
                  <Link href={`/dashboard/data/catalog/${license.listing}#schema`}>the listing’s page</Link>: Parquet for analysis at volume, JSONL one record
                  per line.
                </p>
                <DownloadButtons action={downloadAction} licenseId={license.id} />
              </>
            ) : (
              current.status === 'done' && <p className="text-sm text-muted-foreground">The license is not in force: its files are not yours to download.</p>
            )}
          </div>
        )}
        {(writing || (current === null && license.status === 'active')) && <RefreshWhileWaiting everyMs={REFRESH_MS} />}
      </section>

      {mine.length > 0 && (
        <section aria-labelledby="notices" className="grid grid-cols-1 gap-4">
          <h2 id="notices">Deletion notices</h2>
          {mine.map((n) => (
            <NoticeCard
              key={n.id}
              notice={n}
              back={`/dashboard/data/licenses/${license.id}`}
              licenseLabel={(l) => (l === license.id ? `this license (${requested})` : `License ${l.slice(0, 8)}`)}
            />
          ))}
        </section>
      )}
    </div>
  );
}
