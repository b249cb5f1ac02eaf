import type { z } from 'zod';
import type { Engine } from '../db/database';
import type { Principal } from '../oauth/bearer';
import type { apiKeysBody, appsBody, dailyBody, earningsBody, profileBody } from '../schemas/account';
import { readAccount, type AccountReader } from './reads';
import { SANDBOX_API_KEYS, SANDBOX_APPS, SANDBOX_PAYOUTS, SANDBOX_PLACEMENTS, SANDBOX_PROFILE, sandboxDaily } from './sandbox';
import { apiKeysView, appsView, dailyView, earningsView, profileView, type DailyQuery, type EnvironmentFilter, type PlacementFilter } from './views';

/**
 * The four account operations, for REST and MCP alike: a principal in, a body out. The sandbox
 * principal gets the fixed demo account and `sandbox: true`; a user's reads run through RLS, one
 * statement each, and the views are built after the transaction has ended.
 */

type Sandboxed<T> = T & { sandbox?: true };

function reader(principal: Extract<Principal, { kind: 'user' }>): AccountReader {
  return { userId: principal.userId, clientId: principal.clientId, scopes: principal.scopes };
}

const sandboxed = <T extends object>(body: T): Sandboxed<T> => ({ ...body, sandbox: true });

/** The database, opened only for a user: the sandbox never touches it. */
export type Database = () => Promise<Engine>;

export async function getProfile(principal: Principal, database: Database): Promise<Sandboxed<z.infer<typeof profileBody>>> {
  if (principal.kind === 'sandbox') return sandboxed(profileView(SANDBOX_PROFILE));
  return profileView(await readAccount(await database(), reader(principal), 'profile'));
}

export async function listApps(principal: Principal, database: Database, filter: PlacementFilter): Promise<Sandboxed<z.infer<typeof appsBody>>> {
  if (principal.kind === 'sandbox') return sandboxed(appsView(SANDBOX_APPS, SANDBOX_PLACEMENTS, filter));
  const { apps, placements } = await readAccount(await database(), reader(principal), 'apps');
  return appsView(apps, placements, filter);
}

export async function getEarnings(principal: Principal, database: Database, payoutLimit: number): Promise<Sandboxed<z.infer<typeof earningsBody>>> {
  if (principal.kind === 'sandbox') return sandboxed(earningsView(SANDBOX_PLACEMENTS, SANDBOX_PAYOUTS, payoutLimit));
  const { placements, payouts } = await readAccount(await database(), reader(principal), 'earnings');
  return earningsView(placements, payouts, payoutLimit);
}

export async function listApiKeys(principal: Principal, database: Database, environment: EnvironmentFilter): Promise<Sandboxed<z.infer<typeof apiKeysBody>>> {
  if (principal.kind === 'sandbox') return sandboxed(apiKeysView(SANDBOX_API_KEYS, environment));
  return apiKeysView((await readAccount(await database(), reader(principal), 'apiKeys')).api_keys, environment);
}

/** The daily figures of a period ending `today` (YYYY-MM-DD, UTC). */
export async function getDailyEarnings(
  principal: Principal,
  database: Database,
  query: DailyQuery,
  today: string,
): Promise<Sandboxed<z.infer<typeof dailyBody>>> {
  if (principal.kind === 'sandbox') return sandboxed(dailyView(sandboxDaily(today), query, today));
  return dailyView((await readAccount(await database(), reader(principal), 'daily')).daily, query, today);
}
