import type { z } from 'zod';
import type { Database } from '../platform/db/roles';
import { decodeCursor, encodeCursor, paginationAt } from '../platform/http/cursor';
import type { Principal } from '../identity/oauth/bearer';
import type {
  apiKeysBody,
  appsBody,
  campaignsBody,
  campaignsQuery,
  dailyBody,
  earningsBody,
  licensesBody,
  licensesQuery,
  profileBody,
} from '../schemas/account';
import { readAccount, type AccountAnswers, type AccountRead, type AccountReader, type AccountRow } from './reads';
import {
  SANDBOX_ADVERTISER_BALANCE_MICRO,
  SANDBOX_BUYER_FUNDS,
  SANDBOX_CAMPAIGNS,
  SANDBOX_LICENSES,
  SANDBOX_MONEY,
  SANDBOX_PAYOUT_METHOD,
  SANDBOX_API_KEYS,
  SANDBOX_APPS,
  SANDBOX_PAYOUTS,
  SANDBOX_PLACEMENTS,
  SANDBOX_PROFILE,
  sandboxDaily,
} from './sandbox';
import {
  apiKeysView,
  appsView,
  campaignsView,
  dailyView,
  earningsView,
  licensesView,
  matchesCampaignFilter,
  matchesLicenseFilter,
  profileView,
  todayUtc,
  type DailyQuery,
  type EnvironmentFilter,
  type PlacementFilter,
} from './views';

/**
 * The account operations, for REST, MCP and the console alike: an account source in, a body out.
 * The source is chosen once per caller (`accountSource`): a user's account read as them under
 * row-level security, one statement per read, or the sandbox's fixed demo account. Both answer
 * the same rows, and the same views make the bodies, so the sandbox's answers have exactly the
 * shapes and the rules of real ones.
 */

/** The database, opened only when a user's account is read: the sandbox never touches it. */
export type OpenDatabase = () => Promise<Database>;

/** Where an account's rows come from. */
export interface AccountSource {
  /** The sandbox's demo account: its answers say `sandbox: true`. */
  readonly sandbox: boolean;
  read<R extends AccountRead>(read: R): Promise<AccountRow<R>>;
}

/** A user's account, read as the user (lib/account/reads.ts), its timeless answers kept in `answers` while the database is unchanged. */
export function userAccount(database: OpenDatabase, reader: AccountReader, answers?: AccountAnswers): AccountSource {
  return { sandbox: false, read: async (read) => readAccount(await database(), reader, read, answers) };
}

/** The sandbox's demo account (lib/account/sandbox.ts); its daily figures end today, by `now`. */
export function sandboxAccount(now: () => number): AccountSource {
  const id = SANDBOX_PROFILE.id;
  const rows: { [R in AccountRead]: () => AccountRow<R> } = {
    profile: () => SANDBOX_PROFILE,
    apps: () => ({ id, apps: SANDBOX_APPS, placements: SANDBOX_PLACEMENTS }),
    earnings: () => ({ id, placements: SANDBOX_PLACEMENTS, payouts: SANDBOX_PAYOUTS, method: SANDBOX_PAYOUT_METHOD, ...SANDBOX_MONEY }),
    apiKeys: () => ({ id, api_keys: SANDBOX_API_KEYS }),
    daily: () => ({ id, daily: sandboxDaily(todayUtc(now())) }),
    campaigns: () => ({ id, balance_micro: SANDBOX_ADVERTISER_BALANCE_MICRO, campaigns: SANDBOX_CAMPAIGNS }),
    licenses: () => ({ id, funds: SANDBOX_BUYER_FUNDS, licenses: SANDBOX_LICENSES }),
  };
  return { sandbox: true, read: async (read) => rows[read]() };
}

/** The account a token's principal reads: the sandbox's, or the user's. */
export function accountSource(principal: Principal, database: OpenDatabase, now: () => number, answers?: AccountAnswers): AccountSource {
  if (principal.kind === 'sandbox') return sandboxAccount(now);
  return userAccount(database, { userId: principal.userId, clientId: principal.clientId, scopes: principal.scopes }, answers);
}

type Sandboxed<T> = T & { sandbox?: true };

/** The body, marked `sandbox: true` when it came from the sandbox. */
function answer<T extends object>(source: AccountSource, body: T): Sandboxed<T> {
  return source.sandbox ? { ...body, sandbox: true } : body;
}

export async function getProfile(source: AccountSource): Promise<Sandboxed<z.infer<typeof profileBody>>> {
  return answer(source, profileView(await source.read('profile')));
}

export async function listApps(source: AccountSource, filter: PlacementFilter): Promise<Sandboxed<z.infer<typeof appsBody>>> {
  const { apps, placements } = await source.read('apps');
  return answer(source, appsView(apps, placements, filter));
}

export async function getEarnings(source: AccountSource, payoutLimit: number): Promise<Sandboxed<z.infer<typeof earningsBody>>> {
  const { placements, payouts, ...money } = await source.read('earnings');
  return answer(source, earningsView(placements, payouts, payoutLimit, money));
}

export async function listApiKeys(source: AccountSource, environment: EnvironmentFilter): Promise<Sandboxed<z.infer<typeof apiKeysBody>>> {
  return answer(source, apiKeysView((await source.read('apiKeys')).api_keys, environment));
}

/** The daily figures of a period ending `today` (YYYY-MM-DD, UTC). */
export async function getDailyEarnings(source: AccountSource, query: DailyQuery, today: string): Promise<Sandboxed<z.infer<typeof dailyBody>>> {
  return answer(source, dailyView((await source.read('daily')).daily, query, today));
}

export type CampaignsQuery = z.output<typeof campaignsQuery>;

/**
 * One page of the caller's campaigns of `query.status`, with their advertiser balance. Paged as
 * every list of the API is (lib/platform/http/cursor.ts): the cursor is an offset bound to the
 * list, the filter and the limit, signed with the service's cursor key, so REST and MCP accept
 * each other's. A cursor that was not issued for this query is a 400 before the account is read.
 * The key is asked for only when a cursor is read or written (the sandbox's first page, all of its
 * campaigns at the default limit, needs none).
 */
export async function listCampaigns(
  source: AccountSource,
  query: CampaignsQuery,
  cursorKey: () => Promise<Buffer>,
): Promise<Sandboxed<z.infer<typeof campaignsBody>>> {
  const binding = `campaigns\n${query.status}\n${query.limit}`;
  const offset = query.cursor ? decodeCursor(await cursorKey(), binding, query.cursor) : 0;
  const { balance_micro, campaigns } = await source.read('campaigns');
  const matching = campaigns.filter((c) => matchesCampaignFilter(c.status, query.status));
  const page = matching.slice(offset, offset + query.limit);
  const end = offset + page.length;
  const pagination =
    end < matching.length
      ? paginationAt(await cursorKey(), binding, end, matching.length, query.limit)
      : { next_cursor: null, has_more: false, limit: query.limit };
  return answer(source, campaignsView(balance_micro, page, pagination));
}

export type LicensesQuery = z.output<typeof licensesQuery>;

/**
 * One page of the caller's data licenses of `query.status`, newest first, with their funds as a
 * data buyer. Paged with the API's signed cursors (lib/platform/http/cursor.ts), bound to the
 * list, the filter and the limit, so REST and MCP accept each other's and a cursor that was not
 * issued for this query is a 400 before the account is read. The list grows at its head (a new
 * license is the newest), so a cursor counts the licenses left after its page, from the oldest,
 * rather than those before it: a license bought during a walk shifts none of the pages still to
 * come (licenses are never deleted). The key is asked for only when a cursor is read or written.
 */
export async function listLicenses(
  source: AccountSource,
  query: LicensesQuery,
  cursorKey: () => Promise<Buffer>,
): Promise<Sandboxed<z.infer<typeof licensesBody>>> {
  const binding = `licenses\n${query.status}\n${query.limit}`;
  const left = query.cursor ? decodeCursor(await cursorKey(), binding, query.cursor) : null;
  const { funds, licenses } = await source.read('licenses');
  const matching = licenses.filter((l) => matchesLicenseFilter(l.status, query.status));
  const offset = left === null ? 0 : Math.max(0, matching.length - left);
  const page = matching.slice(offset, offset + query.limit);
  const rest = matching.length - offset - page.length;
  const pagination =
    rest > 0
      ? { next_cursor: encodeCursor(await cursorKey(), binding, rest), has_more: true, limit: query.limit }
      : { next_cursor: null, has_more: false, limit: query.limit };
  return answer(source, licensesView(funds, page, pagination));
}
