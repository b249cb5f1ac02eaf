import { asUser, type Queryable } from '../db';
import { ApiError } from '../http/errors';
import { describeError, log } from '../log';
import type { ApiKeyRow, AppRow, PayoutRow, PlacementRow, ProfileRow } from './views';

/**
 * The account reads, each in one transaction run as the user (DESIGN.md, Run as the user): RLS
 * decides what is visible. The queries also filter by the user themselves; a test turns that
 * filter off to show that RLS alone keeps tenants apart.
 */

export interface AccountReader {
  userId: string;
  clientId: string;
  scopes: string[];
}

let applicationFilter = true;

/** Tests only: drop the queries' own `user_id = …` filter, leaving RLS alone on guard. */
export function useApplicationUserFilter(enabled: boolean): void {
  applicationFilter = enabled;
}

/** `column = $1`, or (filter off) a condition that still uses $1 but filters nothing. */
function mine(column: string): string {
  return applicationFilter ? `${column} = $1::uuid` : '$1::uuid is not null';
}

class AccountGone extends Error {}

/**
 * Runs the reads; a user deleted since the token was issued, or a database failure, is the 502
 * `account_unavailable` of the spec (the client should authorize again).
 */
export async function readAccount<T>(reader: AccountReader, read: (db: Queryable, profile: ProfileRow) => Promise<T>): Promise<T> {
  try {
    return await asUser({ sub: reader.userId, scope: reader.scopes.join(' '), client_id: reader.clientId }, async (db) => {
      // The profile is the existence check: no row, no account (deleted since the token was issued).
      const [me] = await db.query<ProfileRow>(
        `select id, email, name, company, role, created_at from public.users where ${mine('id')}`,
        [reader.userId],
      );
      if (!me) throw new AccountGone();
      return read(db, me);
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    if (!(err instanceof AccountGone)) log.error('account read failed', { user_id: reader.userId, ...describeError(err) });
    throw new ApiError('account_unavailable', 'The account data could not be loaded: authorize again to get a new token.');
  }
}

export async function appRows(db: Queryable, userId: string): Promise<AppRow[]> {
  return db.query<AppRow>(
    `select id, name, slug, description, category, created_at from public.apps where ${mine('user_id')} order by created_at, id`,
    [userId],
  );
}

export async function placementRows(db: Queryable, userId: string): Promise<PlacementRow[]> {
  return db.query<PlacementRow>(
    `select id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, created_at
     from public.placements where ${mine('user_id')} order by created_at, id`,
    [userId],
  );
}

export async function payoutRows(db: Queryable, userId: string): Promise<PayoutRow[]> {
  return db.query<PayoutRow>(
    `select period, amount_usd, status, paid_at, requested_at from public.payouts where ${mine('user_id')} order by period desc`,
    [userId],
  );
}

export async function apiKeyRows(db: Queryable, userId: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>(
    `select id, name, environment, status, key_prefix, key_last4, created_at, last_used_at
     from public.api_keys where ${mine('user_id')} order by created_at, id`,
    [userId],
  );
}
