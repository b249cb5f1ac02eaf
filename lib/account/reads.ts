import { z } from 'zod';
import { asUser } from '../db/database';
import { isDatabaseError } from '../db/errors';
import { ApiError } from '../http/errors';
import { describeError, log } from '../log';
import { apiKeyRow, appRow, payoutRow, placementRow, profileRow } from '../schemas/account';

/**
 * The account reads. Each is one transaction run as the user (role `authenticated`, the token's
 * claims in `request.jwt.claims`) holding exactly two statements: the claims, then one SELECT
 * that brings everything the answer needs. No query names the user: row-level security, forced
 * on every table, is what limits each table to the caller's rows.
 *
 * Every statement reads from `public.users`, so the caller's own profile row is the existence
 * check: no row means the user was deleted after the token was issued. Lists come as JSON arrays
 * built in the database (`json_agg ... order by`), which keeps their order and their values
 * (numbers stay numbers; timestamps become ISO 8601 strings, turned back into Dates by the row
 * schemas), so both engines deliver the same types.
 */

export interface AccountReader {
  userId: string;
  clientId: string;
  scopes: string[];
}

/** `select coalesce(json_agg(...), '[]')` of a subquery, in the given order. */
const list = (columns: string, table: string, order: string) =>
  `(select coalesce(json_agg(r order by ${order}), '[]') from (select ${columns} from public.${table}) r)`;

const APPS = list('id, name, slug, description, category, created_at', 'apps', 'r.created_at, r.id');
const PLACEMENTS = list(
  'id, app_id, name, format, status, impressions, clicks, revenue_usd, ad_requests, created_at',
  'placements',
  'r.created_at, r.id',
);
const PAYOUTS = list('period, amount_usd, status, paid_at, requested_at', 'payouts', 'r.period desc');
const API_KEYS = list('id, name, environment, status, key_prefix, key_last4, created_at, last_used_at', 'api_keys', 'r.created_at, r.id');

/** Each read: its one statement, and the schema of the one row it returns. */
export const ACCOUNT_READS = {
  profile: {
    sql: 'select id, email, name, company, role, created_at from public.users',
    row: profileRow,
  },
  apps: {
    sql: `select id, ${APPS} as apps, ${PLACEMENTS} as placements from public.users`,
    row: z.object({ id: z.string(), apps: z.array(appRow), placements: z.array(placementRow) }),
  },
  earnings: {
    sql: `select id, ${PLACEMENTS} as placements, ${PAYOUTS} as payouts from public.users`,
    row: z.object({ id: z.string(), placements: z.array(placementRow), payouts: z.array(payoutRow) }),
  },
  apiKeys: {
    sql: `select id, ${API_KEYS} as api_keys from public.users`,
    row: z.object({ id: z.string(), api_keys: z.array(apiKeyRow) }),
  },
} as const;

export type AccountRead = keyof typeof ACCOUNT_READS;
export type AccountRow<R extends AccountRead> = z.output<(typeof ACCOUNT_READS)[R]['row']>;

class AccountGone extends Error {}

const unavailable = () => new ApiError('account_unavailable', 'The account data could not be loaded: authorize again to get a new token.');

/**
 * Runs one account read as the user and returns its row, parsed. A user deleted since the token
 * was issued, or a failure of the database or of the connection to it, is the 502
 * `account_unavailable` (the client should authorize again). Any other error is a bug and goes
 * on unchanged, for the route to answer 500 and log.
 */
export async function readAccount<R extends AccountRead>(reader: AccountReader, read: R): Promise<AccountRow<R>> {
  const { sql, row } = ACCOUNT_READS[read];
  let rows: Record<string, unknown>[];
  try {
    rows = await asUser({ sub: reader.userId, scope: reader.scopes.join(' '), client_id: reader.clientId }, async (db) => {
      const found = await db.query(sql);
      if (found.length === 0) throw new AccountGone();
      return found;
    });
  } catch (err) {
    if (err instanceof AccountGone) throw unavailable();
    if (!isDatabaseError(err)) throw err;
    log.error('account read failed', { user_id: reader.userId, read, ...describeError(err) });
    throw unavailable();
  }
  // Row-level security shows a user exactly one profile, their own; anything else is a broken
  // policy, and nothing of what came back may be shown.
  if (rows.length !== 1 || String(rows[0]!.id).toLowerCase() !== reader.userId.toLowerCase()) {
    throw new Error(`row-level security let ${rows.length} profile rows through where only the caller's own may pass`);
  }
  return row.parse(rows[0]) as AccountRow<R>;
}
