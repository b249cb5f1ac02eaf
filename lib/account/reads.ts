import { z } from 'zod';
import { as, type Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { microAmount } from '../platform/kit/micro';
import { isDatabaseError } from '../platform/db/errors';
import { ApiError, RETRY_AFTER_S } from '../platform/http/errors';
import { describeError, log } from '../platform/log';
import {
  apiKeyRow,
  appRow,
  buyerFundsRow,
  campaignRow,
  dailyRow,
  licenseRow,
  moneyRow,
  payoutMethodRow,
  payoutRow,
  placementRow,
  profileRow,
} from '../schemas/account';

/**
 * The account reads. Each is one transaction run as the user (role `authenticated`, the token's
 * claims in `request.jwt.claims`) holding exactly two statements: the claims, then the call of
 * one read function (supabase/migrations/20261123000000_account_read_functions.sql) that returns
 * the caller's profile row with the lists the answer needs as JSON. No statement names the user:
 * row-level security, forced on every table, limits each table to the caller's rows, and the
 * functions run as their caller. The profile row is the existence check: none (null) means the
 * user was deleted after the token was issued. In JSON, numbers stay numbers and timestamps
 * become ISO 8601 strings, turned back into Dates by the row schemas, so both engines deliver
 * the same types.
 */

export interface AccountReader {
  userId: string;
  clientId: string;
  scopes: string[];
}

/** Each read: its one statement, and the schema of the one row it returns. */
export const ACCOUNT_READS = {
  profile: { sql: sql`select public.account_profile() as account`, row: profileRow },
  apps: {
    sql: sql`select public.account_apps() as account`,
    row: z.object({ id: z.string(), apps: z.array(appRow), placements: z.array(placementRow) }),
  },
  earnings: {
    sql: sql`select public.account_earnings() as account`,
    // The money, exactly, in micro-dollars: the ledger, and the daily stats of the days it has not posted.
    row: z
      .object({ id: z.string(), placements: z.array(placementRow), payouts: z.array(payoutRow), method: payoutMethodRow.nullable() })
      .extend(moneyRow.shape),
  },
  apiKeys: {
    sql: sql`select public.account_api_keys() as account`,
    row: z.object({ id: z.string(), api_keys: z.array(apiKeyRow) }),
  },
  daily: {
    sql: sql`select public.account_daily() as account`,
    row: z.object({ id: z.string(), daily: z.array(dailyRow) }),
  },
  campaigns: {
    sql: sql`select public.account_campaigns() as account`,
    // The caller's advertiser balance, exactly, in micro-dollars (the ledger), and their campaigns
    // with their exact spend and counts (the daily figures) and creatives: none for a user who
    // is not an advertiser (supabase/migrations/20261208000000_account_campaigns.sql).
    row: z.object({ id: z.string(), balance_micro: microAmount, campaigns: z.array(campaignRow) }),
  },
  licenses: {
    sql: sql`select public.account_licenses() as account`,
    // The caller's funds as a data buyer, exactly, in micro-dollars (public.buyer_funds), and their
    // data licenses, newest first, each with the count of its unacknowledged deletion notices:
    // none, and zeros, for a user who is not a data buyer
    // (supabase/migrations/20261210000000_account_licenses.sql).
    row: z.object({ id: z.string(), funds: buyerFundsRow, licenses: z.array(licenseRow) }),
  },
} as const;

export type AccountRead = keyof typeof ACCOUNT_READS;
export type AccountRow<R extends AccountRead> = z.output<(typeof ACCOUNT_READS)[R]['row']>;

/**
 * The statement's one row, as far as it is checked before the caller is known to own it: the
 * profile (null for a user deleted since the token was issued) and its id, every other field
 * kept as it came, to be parsed by the read's own schema once the profile is the caller's.
 */
const accountOfSomeone = z.object({ account: z.looseObject({ id: z.string() }).nullable() });

const unavailable = () => new ApiError('account_unavailable', 'The account data could not be loaded: authorize again to get a new token.');
const databaseDown = () =>
  new ApiError('account_unavailable', 'The account data could not be loaded right now: retry after the seconds in Retry-After.', {
    'Retry-After': RETRY_AFTER_S,
  });

/**
 * Runs one account read as the user and returns its row, parsed. A user deleted since the token
 * was issued (the client should authorize again), or a failure of the database or of the
 * connection to it (the client should retry later), is the 502 `account_unavailable`. Any other
 * error is a bug and goes on unchanged, for the route to answer 500 and log.
 */
export async function readAccount<R extends AccountRead>(db: Database, reader: AccountReader, read: R): Promise<AccountRow<R>> {
  const { sql: statement, row } = ACCOUNT_READS[read];
  let account: z.output<typeof accountOfSomeone>['account'] | undefined;
  try {
    const [found] = await as(db, 'authenticated', { sub: reader.userId, scope: reader.scopes.join(' '), client_id: reader.clientId }).query(
      statement,
      accountOfSomeone,
    );
    account = found?.account;
  } catch (err) {
    if (!isDatabaseError(err)) throw err;
    log.error('account read failed', { user_id: reader.userId, read, ...describeError(err) });
    throw databaseDown();
  }
  if (!account) throw unavailable();
  // Row-level security shows a user exactly one profile, their own (a function that saw more
  // fails); any other profile is a broken policy, and nothing of what came back may be shown.
  // Checked before the rest is parsed: what a read finds for another profile may not even have
  // the shape of the caller's (public.buyer_funds answers its caller alone, and null for anyone else).
  if (account.id.toLowerCase() !== reader.userId.toLowerCase()) {
    throw new Error("row-level security let another profile through where only the caller's own may pass");
  }
  return row.parse(account) as AccountRow<R>;
}
