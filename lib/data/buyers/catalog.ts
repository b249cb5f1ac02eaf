import { asConsoleUser } from '../../identity/console';
import { z } from 'zod';
import type { Database } from '../../platform/db/roles';
import { call, type Refusals } from '../../platform/kit/call';
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
  const [row] = await asConsoleUser(db, userId).query(
    sql`select public.data_catalog_available(${listing}, ${filterArgs(filter)}, ${ageArg(filter)}) as answer`,
    z.object({ answer: availability }),
  );
  return row!.answer;
}

export interface Facets {
  categories: { value: string; records: number }[];
  models: { value: string; records: number }[];
}

const facet = z.array(z.object({ value: z.string(), records: z.coerce.number() }));

export async function listingFacets(db: Database, userId: string, listing: ListingId): Promise<Facets> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`select public.data_catalog_facets(${listing}) as answer`,
    z.object({ answer: z.object({ categories: facet, models: facet }) }),
  );
  return row!.answer;
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
  const [row] = await asConsoleUser(db, userId).query(
    sql`select public.data_catalog_sample(${listing}, ${filterArgs(filter)}, ${Math.min(Math.max(limit, 1), SAMPLE_SIZE)}, ${ageArg(filter)}) as answer`,
    z.object({ answer: sampleAnswer }),
  );
  const answer = row!.answer;
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

/** The facts a refusal of a quote or a purchase may carry, for its words. */
const licenseFacts = z.object({
  available_records: z.coerce.number().default(0),
  available_bytes: z.coerce.number().default(0),
  available_micro: z.coerce.number().default(0),
  price_micro: z.coerce.number().default(0),
});
type LicenseFacts = z.infer<typeof licenseFacts>;

/** public.data_license_quote's refusals. */
type QuoteRefusal = 'unknown_listing' | 'quantity_out_of_range' | 'nothing_matches' | 'quantity_above_available' | 'quantity_above_spread' | 'not_for_sale';

const QUOTE_REFUSALS: Refusals<QuoteRefusal, LicenseFacts> = {
  unknown_listing: 'There is no such listing.',
  quantity_out_of_range: 'Ask for a whole number of records up to 5,000,000, or between 0.001 and 1,000 GB.',
  nothing_matches: 'Nothing available matches this filter: widen it.',
  quantity_above_available: (a) =>
    `Only ${a.available_records.toLocaleString('en-US')} records (${formatBytes(a.available_bytes)}) match this filter: ask for at most that.`,
  quantity_above_spread: (a) =>
    `At most ${a.available_records.toLocaleString('en-US')} records of this filter can be licensed at once: a license is spread across apps and publishers, and none supplies more than its share of it. Ask for at most that, or widen the filter.`,
  not_for_sale: 'This listing is not for sale at the current prices.',
};

/** public.data_license_buy's refusals: its quote's, and the buyer's own. */
const BUY_REFUSALS: Refusals<QuoteRefusal | 'not_a_buyer' | 'account_on_hold' | 'price_changed' | 'insufficient_funds', LicenseFacts> = {
  ...QUOTE_REFUSALS,
  not_a_buyer: 'Set up your data buyer profile and accept the terms first.',
  price_changed: (a) => `The price changed since you saw it: it is now $${(a.price_micro / 1e6).toFixed(2)}. Look again before buying.`,
  account_on_hold:
    'Your account is on hold: a payment of yours was refunded or disputed. Nothing can be bought or downloaded until the operator has settled it with you.',
  insufficient_funds: (a) =>
    `Your balance does not cover it: $${(a.available_micro / 1e6).toFixed(2)} is available for $${(a.price_micro / 1e6).toFixed(2)}. Top up first.`,
};

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
  return call(
    asConsoleUser(db, userId),
    sql`select public.data_license_quote(${request.listing}, ${filterArgs(request.filter)}, ${String(request.quantity)}::numeric, ${request.exclusive},
                                         ${ageArg(request.filter)}) as answer`,
    z.object({
      units: z.coerce.number(),
      unit_price_micro: z.coerce.number(),
      multiplier: z.coerce.number(),
      price_micro: z.coerce.number(),
      available_records: z.coerce.number(),
      available_bytes: z.coerce.number(),
    }),
    QUOTE_REFUSALS,
    { facts: licenseFacts },
  );
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
  return call(
    asConsoleUser(db, userId),
    sql`select public.data_license_buy(${request.listing}, ${filterArgs(request.filter)}, ${String(request.quantity)}::numeric, ${request.exclusive},
                                       ${request.maxPriceMicro}::bigint, ${ageArg(request.filter)}) as answer`,
    z.object({
      license_id: z.string(),
      status: z.enum(['active', 'pending_review']),
      records: z.coerce.number(),
      bytes: z.coerce.number(),
      price_micro: z.coerce.number(),
    }),
    BUY_REFUSALS,
    { facts: licenseFacts },
  );
}
