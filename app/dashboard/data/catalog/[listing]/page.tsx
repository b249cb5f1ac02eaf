import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound, redirect } from 'next/navigation';
import { formatCount, wordOf } from '@/lib/platform/kit/format';
import { acceptedCurrentTerms, buyerFunds, buyerProfile } from '@/lib/data/buyers/account';
import { formatBytes, listingAvailability, listingFacets, listingSample } from '@/lib/data/buyers/catalog';
import {
  contentText,
  day,
  filterFromSearch,
  filterSearch,
  sampleRefusal,
  sampleSize,
  unitPrice,
  usd,
  usdToMicro,
  type FilterValues,
  type SearchParams,
} from '@/lib/data/buyers/display';
import { LISTING_IDS, LISTINGS, MAX_APP_AGE_DAYS, type Listing } from '@/lib/data/buyers/schemas';
import { DEFAULT_PRICING } from '@/lib/money/pricing/defaults';
import { services } from '@/lib/services';
import { Alert } from '../../../../_components/ui/alert';
import { Button } from '../../../../_components/ui/button';
import { Checkbox } from '../../../../_components/ui/checkbox';
import { DatePicker } from '../../../../_components/ui/date-picker';
import { EmptyState } from '../../../../_components/ui/empty-state';
import { Input, Label } from '../../../../_components/ui/input';
import { ConsoleHeader, ConsoleNav } from '../../../nav';
import { requirePublisher as requireSignedIn } from '../../../publisher';
import { ScrollTable, Totals } from '../../../tables';
import { licenseAction } from '../../actions';
import { LicenseForm } from '../../forms';

/** The document's title: the listing's. */
export async function generateMetadata({ params }: { params: Promise<{ listing: string }> }): Promise<Metadata> {
  const { listing } = await params;
  const id = LISTING_IDS.find((l) => l === listing);
  return { title: id ? `${LISTINGS[id].title} · Data` : 'Data listing', robots: { index: false, follow: false } };
}
export const dynamic = 'force-dynamic';

const QUANTITY: Record<Listing['unit'], string> = { row: 'How many rows', recording: 'How many recordings', GB: 'Size in GB' };

/** Checkboxes for one list of the filter: the values the listing has (with how many records), and any chosen that it has not. */
function Choices({
  name,
  legend,
  options,
  chosen,
}: {
  name: 'categories' | 'models';
  legend: string;
  options: { value: string; records: number }[];
  chosen: string[];
}) {
  const known = new Set(options.map((o) => o.value));
  const all = [...options, ...chosen.filter((c) => !known.has(c)).map((value) => ({ value, records: 0 }))];
  const ticked = new Set(chosen.map((c) => (name === 'categories' ? c.trim().toLowerCase() : c.trim())));
  return (
    <fieldset className="grid min-w-0 gap-2">
      <legend className="mb-1 text-sm font-medium">{legend}</legend>
      {all.length === 0 ? (
        <p className="text-sm text-muted-foreground">None yet.</p>
      ) : (
        <div className="flex flex-wrap gap-x-4 gap-y-2">
          {all.map((o) => (
            <label key={o.value} className="flex min-w-0 items-center gap-2 text-sm">
              <Checkbox name={name} value={o.value} defaultChecked={ticked.has(o.value)} className="mt-0" />
              <span className="break-all">{name === 'categories' ? wordOf(o.value) : o.value}</span>
              <span className="text-muted-foreground tabular-nums">({formatCount(o.records)})</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/**
 * /dashboard/data/catalog/[listing]: one listing: what its records hold, field by field; a filter
 * (a GET form, so a selection is a link); what is available for it; a free sample, masked; and
 * the license, quoted then bought.
 */
export default async function ListingPage({ params, searchParams }: { params: Promise<{ listing: string }>; searchParams: Promise<SearchParams> }) {
  const { listing: requested } = await params;
  const user = await requireSignedIn(`/dashboard/data/catalog/${encodeURIComponent(requested)}`);
  const id = LISTING_IDS.find((l) => l === requested);
  if (!id) notFound();
  const listing = LISTINGS[id];
  const search = await searchParams;
  const { filter, values, error } = filterFromSearch(search);
  const size = sampleSize(search);
  const s = services();
  const db = await s.database();
  if (!acceptedCurrentTerms(await buyerProfile(db, user.id))) redirect('/dashboard/data');
  const [facets, available, sample, funds, pricing] = await Promise.all([
    listingFacets(db, user.id, id),
    listingAvailability(db, user.id, id, filter),
    listingSample(db, s.sampleViews, user.id, id, filter, size),
    buyerFunds(db, user.id),
    s.pricing.values(),
  ]);
  const prices = pricing ?? DEFAULT_PRICING;
  const price = unitPrice(usdToMicro(prices.dataset_prices_usd[listing.priceKey]));
  const multiplier = prices.exclusive_license_multiplier.toLocaleString('en-US');
  const path = `/dashboard/data/catalog/${id}`;
  const selection = filterSearch(filter);
  const shown: FilterValues = error
    ? values
    : {
        categories: filter.categories,
        from: filter.from ?? '',
        to: filter.to ?? '',
        models: filter.models,
        min_app_age_days: filter.min_app_age_days ? String(filter.min_app_age_days) : '',
      };
  const bundle = listing.unit === 'GB';
  return (
    <div className="min-w-0">
      <ConsoleHeader title={listing.title} subtitle={listing.summary} />
      <ConsoleNav current="/dashboard/data" />
      <p className="mb-6 text-sm">
        <Link href="/dashboard/data">All listings and your licenses</Link>
      </p>

      <section aria-labelledby="schema" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="schema">What each record holds</h2>
        <p className="text-sm text-muted-foreground">
          The fields of a license’s files, Parquet and JSONL alike. Price: {price} per {listing.unit}; an exclusive license costs {multiplier} times as much.
        </p>
        <ScrollTable label={`Fields of ${listing.title}`} head={['Field', 'Type', 'Meaning']}>
          {listing.fields.map((f) => (
            <tr key={f.name}>
              <th scope="row">
                <code>{f.name}</code>
              </th>
              <td>{f.nullable ? `${f.type}, or null` : f.type}</td>
              <td>
                <p className="max-w-xl min-w-60 whitespace-normal">{f.meaning}</p>
              </td>
            </tr>
          ))}
        </ScrollTable>
      </section>

      <section aria-labelledby="filter" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="filter">Filter</h2>
        {error && <Alert tone="error">The filter was not applied: {error}</Alert>}
        <form method="get" action={path} className="grid min-w-0 gap-5 rounded-xl border bg-card p-4 sm:p-6">
          <Choices name="categories" legend="App categories (none ticked: every category)" options={facets.categories} chosen={shown.categories} />
          <div className="grid gap-4 sm:grid-cols-2 sm:max-w-xl">
            <div className="grid gap-1.5">
              <Label htmlFor="filter-from">Received from (UTC day)</Label>
              <DatePicker id="filter-from" name="from" defaultValue={shown.from} placeholder="Any day" />
            </div>
            <div className="grid gap-1.5">
              <Label htmlFor="filter-to">Received up to (UTC day, included)</Label>
              <DatePicker id="filter-to" name="to" defaultValue={shown.to} placeholder="Any day" />
            </div>
          </div>
          {listing.hasModels && <Choices name="models" legend="Models (none ticked: any model)" options={facets.models} chosen={shown.models} />}
          <div className="grid gap-1.5 sm:max-w-xs">
            <Label htmlFor="filter-min-app-age">Only apps at least this many days old</Label>
            <Input
              id="filter-min-app-age"
              name="min_app_age_days"
              type="number"
              inputMode="numeric"
              min={0}
              max={MAX_APP_AGE_DAYS}
              step={1}
              defaultValue={shown.min_app_age_days}
              aria-describedby="filter-min-app-age-hint"
            />
            <p id="filter-min-app-age-hint" className="text-sm text-muted-foreground">
              Empty: apps of any age that sell. Every app that sells is at least 14 days old already.
            </p>
          </div>
          {size === 100 && <input type="hidden" name="sample" value="100" />}
          <div className="flex flex-wrap items-center gap-4">
            <Button type="submit">Show what matches</Button>
            <Link href={path} className="text-sm">
              Clear the filter
            </Link>
          </div>
        </form>
      </section>

      <section aria-labelledby="available" className="mb-10">
        <h2 id="available" className="mb-3">
          Available for this filter
        </h2>
        <Totals
          items={[
            { label: 'Records', value: formatCount(available.records), testId: 'available-records' },
            { label: 'Size', value: formatBytes(available.bytes) },
            { label: 'First day', value: day(available.first_day) },
            { label: 'Last day', value: day(available.last_day) },
            { label: 'For an exclusive license', value: formatCount(available.exclusive_records), testId: 'available-exclusive' },
          ]}
        />
        <p className="mt-3 text-sm text-muted-foreground">
          A standard license may take any of the {formatCount(available.records)} records; an exclusive one only those never licensed and not held by another:{' '}
          {formatCount(available.exclusive_records)} records, {formatBytes(available.exclusive_bytes)}. Either takes the newest first.
        </p>
      </section>

      <section aria-labelledby="sample" className="mb-10 grid grid-cols-1 gap-4">
        <h2 id="sample">Sample</h2>
        <p className="text-sm text-muted-foreground">
          Up to {size} records of today’s sample of this listing that match the filter, free: the same few records all day whatever the filter (a filter only
          narrows within them), drawn anew each UTC day from a small, fixed share of the listing. Shown without their ids, the people they are about or their
          apps, and with email addresses, IP addresses, phone, card and id numbers, IBANs, street addresses and names masked. A license’s files hold every field
          above.{' '}
          {size === 20 ? (
            <Link href={`${path}${filterSearch(filter, { sample: '100' })}#sample`}>Show 100</Link>
          ) : (
            <Link href={`${path}${selection}#sample`}>Show 20</Link>
          )}
        </p>
        {!sample.ok ? (
          <Alert tone="info">{sampleRefusal(sample)}</Alert>
        ) : sample.records.length === 0 ? (
          <EmptyState title="Nothing in today’s sample matches this filter">
            The counts above say what a license may take. Widen the filter, or look again tomorrow, when the sample is drawn anew.
          </EmptyState>
        ) : (
          <ScrollTable
            label={`Sample of ${listing.title}`}
            head={['Received', 'Categories', ...(listing.hasModels ? ['Model'] : []), ...(bundle ? ['Kind'] : []), 'Content']}
          >
            {sample.records.map((r, i) => (
              <tr key={i}>
                <td>{day(r.received_on)}</td>
                <td>
                  <p className="max-w-48 whitespace-normal break-words">{r.categories.join(', ') || '—'}</p>
                </td>
                {listing.hasModels && <td>{r.model ?? '—'}</td>}
                {bundle && <td>{r.kind === 'ai_interaction' ? 'AI interaction' : 'UX session'}</td>}
                <td>
                  <pre
                    tabIndex={0}
                    role="group"
                    aria-label={`Content of sample record ${i + 1}`}
                    className="max-h-60 w-[min(36rem,70vw)] overflow-auto rounded-md border bg-muted p-2 font-mono text-xs whitespace-pre-wrap wrap-anywhere"
                  >
                    {contentText(r.data)}
                  </pre>
                </td>
              </tr>
            ))}
          </ScrollTable>
        )}
      </section>

      <section aria-labelledby="buy" className="grid grid-cols-1 gap-4">
        <h2 id="buy">Buy a license</h2>
        <p className="text-sm text-muted-foreground">
          Of the records that match the filter above, the newest first, at {price} per {listing.unit}
          {bundle ? ' (charged for the bytes the bundle takes)' : ''}. You have {usd(funds.available_micro)} available to spend (
          <Link href="/dashboard/data/funds">top up</Link>). A license’s terms are those of the <Link href="/docs/data-buyers#terms">data license terms</Link>{' '}
          in force when it is bought.
        </p>
        <LicenseForm
          key={selection}
          action={licenseAction}
          listing={id}
          filter={{ categories: filter.categories, from: filter.from, to: filter.to, models: filter.models, min_app_age_days: filter.min_app_age_days }}
          quantityLabel={QUANTITY[listing.unit]}
          quantityHint={
            bundle
              ? `Such as 2 or 0.5, to the MB; at most the ${formatBytes(available.bytes)} available.`
              : `A whole number; at most the ${formatCount(available.records)} available.`
          }
          multiplier={multiplier}
          bundle={bundle}
        />
      </section>
    </div>
  );
}
