import { asConsoleUser } from '../../identity/console';
import { z } from 'zod';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import type { RateLimiter } from '../../platform/http/rate-limit';
import type { Result } from '../../platform/kit/result';
import { maskIdentifiers } from './identifiers';
import type { CatalogFilter, ListingId } from './schemas';

/**
 * The catalog as a signed-in buyer reads it, and buying from it (migration
 * 20261209000000_data_buyers): what a listing has available for a filter, what its filters can
 * choose from, a free sample, a quote, and the purchase. Counts come from the catalog's
 * aggregates (public.data_catalog_available), never from scanning records.
 */

export interface Availability {
  records: number;
  bytes: number;
  exclusive_records: number;
  exclusive_bytes: number;
  first_day: string | null;
  last_day: string | null;
}

const availability = z.object({
  records: z.coerce.number(),
  bytes: z.coerce.number(),
  exclusive_records: z.coerce.number(),
  exclusive_bytes: z.coerce.number(),
  first_day: z.string().nullable(),
  last_day: z.string().nullable(),
});

const filterArgs = (f: CatalogFilter) => sql`${f.categories}::text[], ${f.from}::date, ${f.to}::date, ${f.models}::text[]`;
/** The filter's part named last, after each function's own arguments (migration 20261213000602_data_min_app_age). */
const ageArg = (f: CatalogFilter) => sql`p_min_app_age_days => ${f.min_app_age_days}::integer`;

export async function listingAvailability(db: Database, userId: string, listing: ListingId, filter: CatalogFilter): Promise<Availability> {
  const [row] = await asConsoleUser(db, userId).query<{ answer: unknown }>(
    sql`select public.data_catalog_available(${listing}, ${filterArgs(filter)}, ${ageArg(filter)}) as answer`,
  );
  return availability.parse(row!.answer);
}

export interface Facets {
  categories: { value: string; records: number }[];
  models: { value: string; records: number }[];
}

const facet = z.array(z.object({ value: z.string(), records: z.coerce.number() }));

export async function listingFacets(db: Database, userId: string, listing: ListingId): Promise<Facets> {
  const [row] = await asConsoleUser(db, userId).query<{ answer: unknown }>(sql`select public.data_catalog_facets(${listing}) as answer`);
  return z.object({ categories: facet, models: facet }).parse(row!.answer);
}

export interface SampleRecord {
  kind: string;
  categories: string[];
  received_on: string;
  model: string | null;
  data: unknown;
}

/** The most a sample shows. */
export const SAMPLE_SIZE = 100;

/**
 * A sample, or why there is none: `not_funded` (no money ever put in the balance: samples are for
 * buyers who have), `rate_limited` (the buyer's hourly sample views are spent, until `retryAt`),
 * `unknown_listing`.
 */
export type SampleAnswer =
  | { ok: true; day: string; records: SampleRecord[] }
  | { ok: false; error: 'not_funded' | 'unknown_listing' }
  | { ok: false; error: 'rate_limited'; retryAt: Date };

const sampleAnswer = z.union([
  z.object({
    ok: z.literal(true),
    day: z.string(),
    records: z.array(
      z.object({ kind: z.string(), categories: z.array(z.string()), received_on: z.string(), model: z.string().nullable(), payload: z.unknown() }),
    ),
  }),
  z.object({ ok: z.literal(false), error: z.enum(['not_funded', 'unknown_listing']) }),
]);

/**
 * A free sample (migration 20261213000600_data_samples): the records of the listing's pool for
 * the day (the same for every filter that day; a filter only narrows within it) that match the
 * filter, with no record id, subject or app, and the identifiers in their text masked
 * (lib/data/buyers/identifiers.ts). Each view takes one of the buyer's hourly sample views
 * (`views`, DATA_SAMPLE_VIEWS_PER_HOUR); a view that shows nothing because the buyer has not
 * funded their balance gives it back.
 */
export async function listingSample(
  db: Database,
  views: RateLimiter,
  userId: string,
  listing: ListingId,
  filter: CatalogFilter,
  limit = 20,
): Promise<SampleAnswer> {
  const budget = await views.consume(userId);
  if (!budget.allowed) return { ok: false, error: 'rate_limited', retryAt: new Date(budget.resetAt) };
  const [row] = await asConsoleUser(db, userId).query<{ answer: unknown }>(
    sql`select public.data_catalog_sample(${listing}, ${filterArgs(filter)}, ${Math.min(Math.max(limit, 1), SAMPLE_SIZE)}, ${ageArg(filter)}) as answer`,
  );
  const answer = sampleAnswer.parse(row!.answer);
  if (!answer.ok) {
    await views.refund(userId, 1);
    return answer;
  }
  return {
    ok: true,
    day: answer.day,
    records: answer.records.map((r) => ({
      kind: r.kind,
      categories: r.categories,
      received_on: r.received_on,
      model: r.model,
      data: maskIdentifiers(r.payload),
    })),
  };
}

export interface Quote {
  units: number;
  unit_price_micro: number;
  multiplier: number;
  price_micro: number;
  available_records: number;
  available_bytes: number;
}

const QUOTE_REFUSALS: Record<string, (a: Record<string, number>) => string> = {
  unknown_listing: () => 'There is no such listing.',
  quantity_out_of_range: () => 'Ask for a whole number of records up to 5,000,000, or between 0.001 and 1,000 GB.',
  nothing_matches: () => 'Nothing available matches this filter: widen it.',
  quantity_above_available: (a) =>
    `Only ${Number(a.available_records ?? 0).toLocaleString('en-US')} records (${formatBytes(Number(a.available_bytes ?? 0))}) match this filter: ask for at most that.`,
  quantity_above_spread: (a) =>
    `At most ${Number(a.available_records ?? 0).toLocaleString('en-US')} records of this filter can be licensed at once: a license is spread across apps and publishers, and none supplies more than its share of it. Ask for at most that, or widen the filter.`,
  not_for_sale: () => 'This listing is not for sale at the current prices.',
  not_a_buyer: () => 'Set up your data buyer profile and accept the terms first.',
  price_changed: (a) => `The price changed since you saw it: it is now $${(Number(a.price_micro ?? 0) / 1e6).toFixed(2)}. Look again before buying.`,
  account_on_hold: () =>
    'Your account is on hold: a payment of yours was refunded or disputed. Nothing can be bought or downloaded until the operator has settled it with you.',
  insufficient_funds: (a) =>
    `Your balance does not cover it: $${(Number(a.available_micro ?? 0) / 1e6).toFixed(2)} is available for $${(Number(a.price_micro ?? 0) / 1e6).toFixed(2)}. Top up first.`,
};

function refusal(answer: { error?: string } & Record<string, unknown>): Result<never> {
  const why = QUOTE_REFUSALS[answer.error ?? ''];
  return { ok: false, error: why ? why(answer as Record<string, number>) : 'The purchase was refused.' };
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(2)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} B`;
}

export async function quoteLicense(
  db: Database,
  userId: string,
  request: { listing: ListingId; filter: CatalogFilter; quantity: number; exclusive: boolean },
): Promise<Result<Quote>> {
  const [row] = await asConsoleUser(db, userId).query<{ answer: { ok: boolean; error?: string } & Record<string, unknown> }>(
    sql`select public.data_license_quote(${request.listing}, ${filterArgs(request.filter)}, ${String(request.quantity)}::numeric, ${request.exclusive},
                                         ${ageArg(request.filter)}) as answer`,
  );
  const answer = row!.answer;
  if (!answer.ok) return refusal(answer);
  return {
    ok: true,
    value: {
      units: Number(answer.units),
      unit_price_micro: Number(answer.unit_price_micro),
      multiplier: Number(answer.multiplier),
      price_micro: Number(answer.price_micro),
      available_records: Number(answer.available_records),
      available_bytes: Number(answer.available_bytes),
    },
  };
}

export interface Purchase {
  license_id: string;
  status: 'active' | 'pending_review';
  records: number;
  bytes: number;
  price_micro: number;
}

/** Buys what the quote said, for no more than `maxPriceMicro` (the price the buyer saw). */
export async function buyLicense(
  db: Database,
  userId: string,
  request: { listing: ListingId; filter: CatalogFilter; quantity: number; exclusive: boolean; maxPriceMicro: number },
): Promise<Result<Purchase>> {
  const [row] = await asConsoleUser(db, userId).query<{ answer: { ok: boolean; error?: string } & Record<string, unknown> }>(
    sql`select public.data_license_buy(${request.listing}, ${filterArgs(request.filter)}, ${String(request.quantity)}::numeric, ${request.exclusive},
                                       ${request.maxPriceMicro}::bigint, ${ageArg(request.filter)}) as answer`,
  );
  const answer = row!.answer;
  if (!answer.ok) return refusal(answer);
  return {
    ok: true,
    value: {
      license_id: String(answer.license_id),
      status: answer.status as Purchase['status'],
      records: Number(answer.records),
      bytes: Number(answer.bytes),
      price_micro: Number(answer.price_micro),
    },
  };
}
