import type { z } from 'zod';
import type { Principal } from '../oauth/bearer';
import type { apiKeysBody, appsBody, earningsBody, profileBody } from '../schemas/account';
import { apiKeyRows, appRows, payoutRows, placementRows, readAccount, type AccountReader } from './reads';
import { SANDBOX_API_KEYS, SANDBOX_APPS, SANDBOX_PAYOUTS, SANDBOX_PLACEMENTS, SANDBOX_PROFILE } from './sandbox';
import { apiKeysView, appsView, earningsView, profileView, type EnvironmentFilter, type PlacementFilter } from './views';

/**
 * The four account operations, for REST and MCP alike: a principal in, a body out. The sandbox
 * principal gets the fixed demo account and `sandbox: true`; a user's reads run through RLS.
 */

type Sandboxed<T> = T & { sandbox?: true };

function reader(principal: Extract<Principal, { kind: 'user' }>): AccountReader {
  return { userId: principal.userId, clientId: principal.clientId, scopes: principal.scopes };
}

const sandboxed = <T extends object>(body: T): Sandboxed<T> => ({ ...body, sandbox: true });

/** The sandbox's answers never change: each is built once per filter and kept. */
const sandboxAnswers = new Map<string, object>();
function sandboxAnswer<T extends object>(key: string, build: () => T): Sandboxed<T> {
  let answer = sandboxAnswers.get(key);
  if (!answer) sandboxAnswers.set(key, (answer = sandboxed(build())));
  return answer as Sandboxed<T>;
}

export async function getProfile(principal: Principal): Promise<Sandboxed<z.infer<typeof profileBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer('profile', () => profileView(SANDBOX_PROFILE));
  return readAccount(reader(principal), async (_db, profile) => profileView(profile));
}

export async function listApps(principal: Principal, filter: PlacementFilter): Promise<Sandboxed<z.infer<typeof appsBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer(`apps:${filter}`, () => appsView(SANDBOX_APPS, SANDBOX_PLACEMENTS, filter));
  return readAccount(reader(principal), async (db) =>
    appsView(await appRows(db, principal.userId), await placementRows(db, principal.userId), filter),
  );
}

export async function getEarnings(principal: Principal, payoutLimit: number): Promise<Sandboxed<z.infer<typeof earningsBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer(`earnings:${payoutLimit}`, () => earningsView(SANDBOX_PLACEMENTS, SANDBOX_PAYOUTS, payoutLimit));
  return readAccount(reader(principal), async (db) =>
    earningsView(await placementRows(db, principal.userId), await payoutRows(db, principal.userId), payoutLimit),
  );
}

export async function listApiKeys(principal: Principal, environment: EnvironmentFilter): Promise<Sandboxed<z.infer<typeof apiKeysBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer(`api-keys:${environment}`, () => apiKeysView(SANDBOX_API_KEYS, environment));
  return readAccount(reader(principal), async (db) => apiKeysView(await apiKeyRows(db, principal.userId), environment));
}
