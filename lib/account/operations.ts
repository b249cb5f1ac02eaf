import type { z } from 'zod';
import { Lru } from '../cache/lru';
import type { Principal } from '../oauth/bearer';
import type { apiKeysBody, appsBody, earningsBody, profileBody } from '../schemas/account';
import { readAccount, type AccountReader } from './reads';
import { SANDBOX_API_KEYS, SANDBOX_APPS, SANDBOX_PAYOUTS, SANDBOX_PLACEMENTS, SANDBOX_PROFILE } from './sandbox';
import { apiKeysView, appsView, earningsView, profileView, type EnvironmentFilter, type PlacementFilter } from './views';

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

/** The sandbox's answers never change: each is built once per filter and kept (a few dozen at most). */
const sandboxAnswers = new Lru<string, object>('sandbox', 100);
function sandboxAnswer<T extends object>(key: string, build: () => T): Sandboxed<T> {
  let answer = sandboxAnswers.get(key);
  if (!answer) sandboxAnswers.set(key, (answer = sandboxed(build())));
  return answer as Sandboxed<T>;
}

export async function getProfile(principal: Principal): Promise<Sandboxed<z.infer<typeof profileBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer('profile', () => profileView(SANDBOX_PROFILE));
  return profileView(await readAccount(reader(principal), 'profile'));
}

export async function listApps(principal: Principal, filter: PlacementFilter): Promise<Sandboxed<z.infer<typeof appsBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer(`apps:${filter}`, () => appsView(SANDBOX_APPS, SANDBOX_PLACEMENTS, filter));
  const { apps, placements } = await readAccount(reader(principal), 'apps');
  return appsView(apps, placements, filter);
}

export async function getEarnings(principal: Principal, payoutLimit: number): Promise<Sandboxed<z.infer<typeof earningsBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer(`earnings:${payoutLimit}`, () => earningsView(SANDBOX_PLACEMENTS, SANDBOX_PAYOUTS, payoutLimit));
  const { placements, payouts } = await readAccount(reader(principal), 'earnings');
  return earningsView(placements, payouts, payoutLimit);
}

export async function listApiKeys(principal: Principal, environment: EnvironmentFilter): Promise<Sandboxed<z.infer<typeof apiKeysBody>>> {
  if (principal.kind === 'sandbox') return sandboxAnswer(`api-keys:${environment}`, () => apiKeysView(SANDBOX_API_KEYS, environment));
  return apiKeysView((await readAccount(reader(principal), 'apiKeys')).api_keys, environment);
}
