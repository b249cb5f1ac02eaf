import { micro, microToUsd } from '../../platform/kit/micro';
import { formatCount, formatDay, formatDayOnly, formatUsd } from '../../platform/kit/format';
import type { WebhookDeliveryStatus } from '../../schemas/data-buyers';
import type { ExportStatus } from './downloads';
import type { DeletionNotice, License, LicenseStatus } from './account';
import { formatBytes, type Quote, type SampleAnswer } from './catalog';
import { catalogFilter, LISTINGS, type CatalogFilter, type Listing, type ListingId } from './schemas';

/**
 * How the data buyer's console (app/dashboard/data) writes what the library answers: money in
 * micro-dollars rounded once for display (a unit price below a cent to its own precision), units,
 * filters, statuses in words, and the catalog's filter read from and written to a page's search
 * parameters. Pure: the same on the server and in the browser.
 */

/** Micro-dollars (an integer, as the data market's functions answer them), rounded once to the cent for display. */
export const usd = (amount: number): string => formatUsd(microToUsd(micro(amount)));

const precise = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 6 });

/** A unit price in micro-dollars, to its own precision: a row at $0.002 is not $0.00. */
export const unitPrice = (micro: number): string => precise.format(micro / 1_000_000);

/** A price setting in dollars (the pricing's `dataset_prices_usd`), in micro-dollars. */
export { usdToMicro } from '../../platform/kit/micro';

/** The listing's unit, singular or plural. */
export function unitName(listing: ListingId, n: number): string {
  const unit = LISTINGS[listing].unit;
  if (unit === 'GB') return 'GB';
  return n === 1 ? unit : `${unit}s`;
}

/** So many units of a listing: "1,000 rows", "2.5 GB". */
export function formatUnits(listing: ListingId, units: number): string {
  const n = LISTINGS[listing].unit === 'GB' ? units.toLocaleString('en-US', { maximumFractionDigits: 3 }) : formatCount(units);
  return `${n} ${unitName(listing, units)}`;
}

/** How a quote's price is made: "1,000 rows × $0.002 × 3 (exclusive) = $6.00". */
export function priceBreakdown(listing: ListingId, quote: Pick<Quote, 'units' | 'unit_price_micro' | 'multiplier' | 'price_micro'>): string {
  const multiplier = quote.multiplier > 1 ? ` × ${quote.multiplier.toLocaleString('en-US')} (exclusive)` : '';
  return `${formatUnits(listing, quote.units)} × ${unitPrice(quote.unit_price_micro)}${multiplier} = ${usd(quote.price_micro)}`;
}

/** A UTC day (YYYY-MM-DD) as the console writes days, or a dash. */
export const day = (value: string | null): string => (value ? formatDay(`${value}T00:00:00Z`) : '—');

/** A license's filter in one line: "Categories: notes, travel · from Nov 1, 2026 to Nov 30, 2026 · models: demo-1". */
export function describeFilter(filter: Partial<CatalogFilter> | null | undefined, listing?: Listing): string {
  const categories = filter?.categories ?? [];
  const models = filter?.models ?? [];
  const from = filter?.from ?? null;
  const to = filter?.to ?? null;
  const minAge = filter?.min_app_age_days ?? null;
  const parts = [categories.length ? `Categories: ${categories.join(', ')}` : 'Every category'];
  // A range says its zone once, at its end.
  const plain = (value: string) => formatDayOnly(`${value}T00:00:00Z`);
  if (from && to) parts.push(`from ${plain(from)} to ${day(to)}`);
  else if (from) parts.push(`from ${day(from)}`);
  else if (to) parts.push(`up to ${day(to)}`);
  else parts.push('any day');
  if (models.length) parts.push(`models: ${models.join(', ')}`);
  else if (!listing || listing.hasModels) parts.push('any model');
  if (minAge) parts.push(`apps at least ${formatCount(minAge)} ${minAge === 1 ? 'day' : 'days'} old`);
  return parts.join(' · ');
}

type Tone = 'success' | 'warning' | 'danger' | 'info' | 'neutral';

export const LICENSE_STATUS: Record<LicenseStatus, { label: string; tone: Tone }> = {
  pending_review: { label: 'In review', tone: 'info' },
  active: { label: 'Active', tone: 'success' },
  rejected: { label: 'Rejected', tone: 'danger' },
  expired: { label: 'Expired', tone: 'neutral' },
};

/** What a license's status means, in a sentence, for its buyer. */
export function licenseStatusNote(l: Pick<License, 'status' | 'price_micro' | 'expires_at' | 'rejection_reason'>): string {
  switch (l.status) {
    case 'pending_review':
      return `Waiting for the operator’s review. Its price, ${usd(l.price_micro)}, is reserved from your balance and its records are withheld from other buyers; nothing is charged unless it is approved.`;
    case 'active':
      return l.expires_at ? `In force until ${formatDay(l.expires_at.toISOString())}.` : 'In force.';
    case 'rejected':
      return `Rejected: ${l.rejection_reason ?? 'no reason given'}. Nothing was charged, and its records are released.`;
    case 'expired':
      return `Expired${l.expires_at ? ` on ${formatDay(l.expires_at.toISOString())}` : ''}: its files are no longer yours to download.`;
  }
}

export const EXPORT_STATUS: Record<ExportStatus['status'], { label: string; tone: Tone }> = {
  queued: { label: 'Queued', tone: 'info' },
  running: { label: 'Writing', tone: 'info' },
  done: { label: 'Ready', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
};

/** A deletion notice's delivery to the buyer's webhook (lib/data/buyers/webhook-settings.ts says it in a sentence). */
export const DELIVERY_STATUS: Record<WebhookDeliveryStatus, { label: string; tone: Tone }> = {
  pending: { label: 'Pending', tone: 'info' },
  delivered: { label: 'Delivered', tone: 'success' },
  failed: { label: 'Failed', tone: 'danger' },
};

/** Where a license's files are, in a sentence. */
export function exportNote(e: Pick<ExportStatus, 'status' | 'rows_total' | 'rows_done' | 'parquet_bytes' | 'jsonl_bytes' | 'error'>): string {
  switch (e.status) {
    case 'queued':
      return 'Queued: the files are written in a moment.';
    case 'running':
      return e.rows_total === null
        ? `Writing the files: ${formatCount(e.rows_done)} records so far.`
        : `Writing the files: ${formatCount(e.rows_done)} of ${formatCount(e.rows_total)} records.`;
    case 'done':
      return `Ready: Parquet ${formatBytes(e.parquet_bytes ?? 0)}, JSONL ${formatBytes(e.jsonl_bytes ?? 0)}.`;
    case 'failed':
      return `The files could not be written: ${e.error ?? 'no reason given'}. The job tries three times; if this stays, write to support.`;
  }
}

/** Whether the buyer may download a license's files now: it is in force, and its current export is written. */
export function canDownload(l: Pick<License, 'status' | 'expires_at'>, e: Pick<ExportStatus, 'status'> | null, nowMs: number): boolean {
  return l.status === 'active' && l.expires_at !== null && l.expires_at.getTime() > nowMs && e?.status === 'done';
}

/** Why records were deleted after the sale. */
export const NOTICE_REASON: Record<DeletionNotice['reason'], string> = {
  consent_withdrawn: 'The people these records are about withdrew their consent.',
  purpose_withdrawn: 'The people these records are about no longer consent to their sale.',
};

/** How many records, in words: "1 record", "12 records". */
export const records = (n: number): string => `${formatCount(n)} ${n === 1 ? 'record' : 'records'}`;

// ── The catalog's filter in a page's search parameters ─────────────────────────────────────

export type SearchParams = Record<string, string | string[] | undefined>;

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const one = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

/** What the filter form shows: the values as given, even when they are refused. */
export interface FilterValues {
  categories: string[];
  from: string;
  to: string;
  models: string[];
  min_app_age_days: string;
}

/**
 * The filter a listing page was opened with (`?categories=a&categories=b&from=…&to=…&models=…`):
 * the filter, or, when it is refused, no filter and the reason; with the values as given.
 */
export function filterFromSearch(params: SearchParams): { filter: CatalogFilter; values: FilterValues; error: string | null } {
  const values: FilterValues = {
    categories: list(params.categories),
    from: one(params.from),
    to: one(params.to),
    models: list(params.models),
    min_app_age_days: one(params.min_app_age_days),
  };
  const parsed = catalogFilter.safeParse(values);
  if (parsed.success) return { filter: parsed.data, values, error: null };
  return { filter: catalogFilter.parse({}), values, error: parsed.error.issues[0]?.message ?? 'Check the filter.' };
}

/** The search parameters of a filter (and `extra` ones), for links back to the same selection. */
export function filterSearch(filter: CatalogFilter, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const c of filter.categories) q.append('categories', c);
  if (filter.from) q.set('from', filter.from);
  if (filter.to) q.set('to', filter.to);
  for (const m of filter.models) q.append('models', m);
  if (filter.min_app_age_days) q.set('min_app_age_days', String(filter.min_app_age_days));
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** The sample sizes a listing page shows: 20, or 100 when asked (`?sample=100`). */
export const SAMPLE_SIZES = [20, 100] as const;
export const sampleSize = (params: SearchParams): (typeof SAMPLE_SIZES)[number] => (one(params.sample) === '100' ? 100 : 20);

/** Why a buyer sees no sample, in a sentence. */
export function sampleRefusal(answer: Exclude<SampleAnswer, { ok: true }>): string {
  switch (answer.error) {
    case 'not_funded':
      return 'Samples are for buyers who have put money in their balance: top up first (a license is paid from it too).';
    case 'rate_limited':
      return `You have viewed as many samples as an hour allows. Look again after ${answer.retryAt.toISOString().slice(11, 16)} UTC.`;
    case 'unknown_listing':
      return 'There is no such listing.';
  }
}

/** A sample record's content as text: a string as it is, anything else as JSON, indented. */
export function contentText(data: unknown): string {
  if (typeof data === 'string') return data;
  return JSON.stringify(data, null, 2) ?? '';
}

// ── Pages of licenses ──────────────────────────────────────────────────────────────────────

/** How many licenses a page of the console lists. */
export const LICENSES_PAGE = 50;

/** The page's start (`?before=<ISO time>`: licenses requested before it), or none for the newest. */
export function pageStart(params: SearchParams): Date | undefined {
  const v = one(params.before);
  if (!/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(v)) return undefined;
  const at = new Date(v);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** A page of rows read with one more than it shows: those it shows, and where the next starts (none when this is the last). */
export function page<T extends { requested_at: Date }>(rows: T[], size = LICENSES_PAGE): { rows: T[]; next: string | null } {
  const shown = rows.slice(0, size);
  return { rows: shown, next: rows.length > size ? shown[shown.length - 1]!.requested_at.toISOString() : null };
}
