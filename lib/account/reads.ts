import { z } from 'zod';
import { as, type Database } from '../platform/db/roles';
import { sql, type Sql } from '../platform/db/sql';
import { microAmount } from '../platform/kit/micro';
import { isDatabaseError } from '../platform/db/errors';
import { ApiError, RETRY_AFTER_S } from '../platform/http/errors';
import { describeError, log } from '../platform/log';
import type { Lru } from '../platform/cache/lru';
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
 * one read function (supabase/schemas/functions/public.account_*.sql), made only when the
 * database changed since an answer that is kept (AccountAnswers, below), that returns
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

/**
 * Each read: the call of its function, the schema of the one row it returns, and whether that row
 * depends on nothing but the stored rows (`timeless`: no clock, no randomness, in the function or
 * in anything it calls; tests/integration/account-reads.test.ts checks the functions' text), which
 * is what lets an answer be kept until the database changes (`AccountAnswers`, below).
 */
export const ACCOUNT_READS = {
  profile: { call: sql`public.account_profile()`, row: profileRow, timeless: true },
  apps: {
    call: sql`public.account_apps()`,
    row: z.object({ id: z.string(), apps: z.array(appRow), placements: z.array(placementRow) }),
    timeless: true,
  },
  earnings: {
    call: sql`public.account_earnings()`,
    // The money, exactly, in micro-dollars: the ledger, and the daily stats of the days it has not posted.
    row: z
      .object({ id: z.string(), placements: z.array(placementRow), payouts: z.array(payoutRow), method: payoutMethodRow.nullable() })
      .extend(moneyRow.shape),
    timeless: true,
  },
  apiKeys: {
    call: sql`public.account_api_keys()`,
    row: z.object({ id: z.string(), api_keys: z.array(apiKeyRow) }),
    timeless: true,
  },
  daily: {
    call: sql`public.account_daily()`,
    row: z.object({ id: z.string(), daily: z.array(dailyRow) }),
    timeless: false, // the last 90 days: current_date
  },
  campaigns: {
    call: sql`public.account_campaigns()`,
    // The caller's advertiser balance, exactly, in micro-dollars (the ledger), and their campaigns
    // with their exact spend and counts (the daily figures) and creatives: none for a user who
    // is not an advertiser (supabase/migrations/20261208000000_account_campaigns.sql).
    row: z.object({ id: z.string(), balance_micro: microAmount, campaigns: z.array(campaignRow) }),
    timeless: true,
  },
  licenses: {
    call: sql`public.account_licenses()`,
    // The caller's funds as a data buyer, exactly, in micro-dollars (public.buyer_funds), and their
    // data licenses, newest first, each with the count of its unacknowledged deletion notices:
    // none, and zeros, for a user who is not a data buyer
    // (supabase/migrations/20261210000000_account_licenses.sql).
    row: z.object({ id: z.string(), funds: buyerFundsRow, licenses: z.array(licenseRow) }),
    timeless: false, // a card's top-up is held for 7 days from now() (public.account_card_held_micro)
  },
} as const;

export type AccountRead = keyof typeof ACCOUNT_READS;
export type AccountRow<R extends AccountRead> = z.output<(typeof ACCOUNT_READS)[R]['row']>;

/**
 * The one statement of `read`: the call of its function; or, given the snapshot a kept answer was
 * read in ('' for none), the snapshot now, and the call only when the snapshot is another
 * (AccountAnswers, below).
 */
export function accountStatement(read: AccountRead, since?: string): Sql {
  const { call } = ACCOUNT_READS[read];
  if (since === undefined) return sql`select ${call} as account`;
  return sql`select pg_current_snapshot()::text as snapshot, case when pg_current_snapshot()::text = ${since} then null else ${call} end as account`;
}

/**
 * The answers of timeless reads, kept in this process until the database changes: by the read and
 * the claims it ran with, the row as parsed, and the snapshot it was read in
 * (`pg_current_snapshot()`: the transactions finished and running when the read ran). A write
 * anywhere in the database takes a transaction id, and its commit or abort moves the snapshot, so
 * while the snapshot is the same no write has ended since, and the rows, and so the answer, are
 * the same. The next
 * read of the same account sends the snapshot it holds, in the same one statement: when nothing
 * changed, PostgreSQL answers that instead of running the read function. That pays where reads
 * outnumber writes between them: a quiet database, such as the embedded one of a demo or
 * development server, where the read function runs in the server's own thread. On a database
 * written to by every ad request, the snapshot moves between reads and every read runs in full,
 * as it would without this, with one comparison more.
 */
export type AccountAnswers = Lru<string, { snapshot: string; row: unknown }>;

/**
 * The statement's one row, as far as it is checked before the caller is known to own it: the
 * profile (null for a user deleted since the token was issued) and its id, every other field
 * kept as it came, to be parsed by the read's own schema once the profile is the caller's.
 */
const accountOfSomeone = z.object({ account: z.looseObject({ id: z.string() }).nullable(), snapshot: z.string().optional() });

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
export async function readAccount<R extends AccountRead>(db: Database, reader: AccountReader, read: R, answers?: AccountAnswers): Promise<AccountRow<R>> {
  const { row, timeless } = ACCOUNT_READS[read];
  const claims = { sub: reader.userId, scope: reader.scopes.join(' '), client_id: reader.clientId };
  const key = answers && timeless ? `${read} ${JSON.stringify(claims)}` : undefined;
  const known = key === undefined ? undefined : answers!.get(key);
  const statement = accountStatement(read, key === undefined ? undefined : (known?.snapshot ?? ''));
  let found: z.output<typeof accountOfSomeone> | undefined;
  try {
    [found] = await as(db, 'authenticated', claims).query(statement, accountOfSomeone);
  } catch (err) {
    if (!isDatabaseError(err)) throw err;
    log.error('account read failed', { user_id: reader.userId, read, ...describeError(err) });
    throw databaseDown();
  }
  if (known && found?.snapshot === known.snapshot) return known.row as AccountRow<R>;
  const account = found?.account;
  if (!account) throw unavailable();
  // Row-level security shows a user exactly one profile, their own (a function that saw more
  // fails); any other profile is a broken policy, and nothing of what came back may be shown.
  // Checked before the rest is parsed: what a read finds for another profile may not even have
  // the shape of the caller's (public.buyer_funds answers its caller alone, and null for anyone else).
  if (account.id.toLowerCase() !== reader.userId.toLowerCase()) {
    throw new Error("row-level security let another profile through where only the caller's own may pass");
  }
  const parsed = row.parse(account) as AccountRow<R>;
  if (key !== undefined && found?.snapshot) answers!.set(key, { snapshot: found.snapshot, row: parsed });
  return parsed;
}
