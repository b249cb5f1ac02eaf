import type { SignedInUser } from '../identity/auth/users';
import { userAccount, type AccountSource, type OpenDatabase } from '../account/operations';
import { SCOPES } from '../schemas/account';

/**
 * The publisher's own account, as the console reads it: the account API's reads, run as the
 * user under RLS with every read scope, so what the console shows is what `GET /api/v1/me/...`
 * answers them.
 */
export function consoleAccount(user: SignedInUser, database: OpenDatabase): AccountSource {
  return userAccount(database, { userId: user.id, clientId: 'console', scopes: [...SCOPES] });
}

/**
 * The company the user named at sign-up (or since): where a role's first form starts, so that
 * becoming an advertiser or a data buyer does not ask for it again. Empty when none was given.
 */
export async function accountCompany(user: SignedInUser, database: OpenDatabase): Promise<string> {
  const profile = await consoleAccount(user, database).read('profile');
  return profile.company ?? '';
}
