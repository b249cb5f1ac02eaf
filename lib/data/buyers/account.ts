import { asConsoleUser } from '../../identity/console';
import type { Database } from '../../platform/db/roles';
import { z } from 'zod';
import { call, type Refusals } from '../../platform/kit/call';
import { sql } from '../../platform/db/sql';
import { ok, refused, type Result } from '../../platform/kit/result';
import { buyerFundsRow } from '../../schemas/account';
import { DATA_TERMS_VERSION, type BuyerProfileInput, type ListingId } from './schemas';

/**
 * A data buyer's own account, read and written as them: the role `authenticated` with the buyer
 * as the user, so row-level security keeps them to their own profile, licenses and deletion
 * notices, and the money moves only through the database's functions (migration
 * 20261209000000_data_buyers). Money is in micro-dollars, from the ledger.
 */

/** A row of public.buyer_profiles, as the buyer reads their own. */
const buyerProfileRow = z.object({
  company: z.string(),
  intended_use: z.string(),
  billing_email: z.string(),
  country: z.string(),
  terms_version: z.string(),
  terms_accepted_at: z.date(),
});
export type BuyerProfile = z.output<typeof buyerProfileRow>;

/** The buyer's profile, or null when they are not a data buyer (yet). */
export async function buyerProfile(db: Database, userId: string): Promise<BuyerProfile | null> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`select company, intended_use, billing_email, country, terms_version, terms_accepted_at from public.buyer_profiles where user_id = ${userId}::uuid`,
    buyerProfileRow,
  );
  return row ?? null;
}

/** Whether the buyer accepted the terms in force: buying needs it; a new version asks again. */
export function acceptedCurrentTerms(profile: BuyerProfile | null): boolean {
  return profile?.terms_version === DATA_TERMS_VERSION;
}

/** Becomes a data buyer, or changes the profile; accepting the terms in force records their version and when. */
export async function saveBuyerProfile(db: Database, userId: string, input: BuyerProfileInput): Promise<Result> {
  await asConsoleUser(db, userId).query(
    sql`insert into public.buyer_profiles (user_id, company, intended_use, billing_email, country, terms_version, terms_accepted_at)
        values (${userId}::uuid, ${input.company}, ${input.intended_use}, ${input.billing_email}, ${input.country}, ${DATA_TERMS_VERSION}, now())
        on conflict (user_id) do update set company = excluded.company, intended_use = excluded.intended_use,
          billing_email = excluded.billing_email, country = excluded.country,
          terms_version = excluded.terms_version,
          terms_accepted_at = case when public.buyer_profiles.terms_version = excluded.terms_version
                                   then public.buyer_profiles.terms_accepted_at else now() end,
          updated_at = now()`,
  );
  return ok(undefined);
}

export interface BuyerFunds {
  balance_micro: number;
  reserved_micro: number;
  available_micro: number;
}

export async function buyerFunds(db: Database, userId: string): Promise<BuyerFunds> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`select public.buyer_funds(${userId}::uuid) as funds`,
    // Null for another user than the one signed in (public.buyer_funds answers no row inside it).
    z.object({ funds: buyerFundsRow.nullable() }),
  );
  const funds = row?.funds;
  if (!funds) return { balance_micro: 0, reserved_micro: 0, available_micro: 0 };
  return { balance_micro: funds.balance_micro, reserved_micro: funds.reserved_micro, available_micro: funds.available_micro };
}

export type LicenseStatus = 'pending_review' | 'active' | 'rejected' | 'expired';

export interface License {
  id: string;
  listing: ListingId;
  exclusive: boolean;
  filter: { categories: string[]; from: string | null; to: string | null; models: string[]; min_app_age_days: number | null };
  quantity: number;
  records: number;
  bytes: number;
  units: number;
  unit_price_micro: number;
  multiplier: number;
  price_micro: number;
  terms_version: string;
  status: LicenseStatus;
  requested_at: Date;
  starts_at: Date | null;
  expires_at: Date | null;
  rejection_reason: string | null;
}

const LICENSE_COLUMNS = sql`id, listing, exclusive, filter, quantity::float8 as quantity, records, bytes::float8 as bytes, units::float8 as units,
  unit_price_micro::float8 as unit_price_micro, multiplier::float8 as multiplier, price_micro::float8 as price_micro, terms_version, status,
  requested_at, starts_at, expires_at, rejection_reason`;

function license(row: Record<string, unknown>): License {
  const at = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
  return { ...(row as unknown as License), requested_at: at(row.requested_at)!, starts_at: at(row.starts_at), expires_at: at(row.expires_at) };
}

/** The buyer's licenses, newest first: at most `limit`, requested before `before` when given (the next page). */
export async function buyerLicenses(db: Database, userId: string, page: { limit: number; before?: Date } = { limit: 50 }): Promise<License[]> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select ${LICENSE_COLUMNS} from public.data_licenses
        where buyer_id = ${userId}::uuid and (${page.before ?? null}::timestamptz is null or requested_at < ${page.before ?? null}::timestamptz)
        order by requested_at desc, id limit ${page.limit}`,
  );
  return rows.map(license);
}

/** One license of the buyer's, or null (another buyer's is not there). */
export async function buyerLicense(db: Database, userId: string, id: string): Promise<License | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  const [row] = await asConsoleUser(db, userId).query(sql`select ${LICENSE_COLUMNS} from public.data_licenses where id = ${id}::uuid`);
  return row ? license(row) : null;
}

/** A row of public.data_deletion_notices; not acknowledged yet while `acknowledged_at` is null. */
const deletionNotice = z.object({
  id: z.string(),
  reason: z.enum(['consent_withdrawn', 'purpose_withdrawn']),
  record_ids: z.array(z.string()),
  license_ids: z.array(z.string()),
  created_at: z.date(),
  acknowledged_at: z.date().nullable(),
});
export type DeletionNotice = z.output<typeof deletionNotice>;

/** The buyer's deletion notices, newest first. */
export async function deletionNotices(db: Database, userId: string, limit = 100): Promise<DeletionNotice[]> {
  return asConsoleUser(db, userId).query(
    sql`select id, reason, record_ids::text[] as record_ids, license_ids::text[] as license_ids, created_at, acknowledged_at
        from public.data_deletion_notices order by created_at desc, id limit ${limit}`,
    deletionNotice,
  );
}

/** public.data_deletion_notice_acknowledge's refusal: a notice that is not the buyer's is none. */
const NO_SUCH_NOTICE = 'No such notice.';
const ACKNOWLEDGE_REFUSALS: Refusals<'not_found'> = { not_found: NO_SUCH_NOTICE };

/** Records that the buyer deleted what a notice names; once. */
export async function acknowledgeNotice(db: Database, userId: string, id: string): Promise<Result<{ acknowledged_at: Date }>> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return refused(NO_SUCH_NOTICE);
  return call(
    asConsoleUser(db, userId),
    sql`select public.data_deletion_notice_acknowledge(${id}::uuid) as answer`,
    z.object({ acknowledged_at: z.coerce.date() }),
    ACKNOWLEDGE_REFUSALS,
  );
}
