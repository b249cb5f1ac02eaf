import { sessionUser } from '../auth/session';
import type { SignedInUser } from '../auth/users';
import { userAccount, type AccountSource, type OpenDatabase } from '../account/operations';
import { SCOPES } from '../schemas/account';
import type { Database } from '../platform/db/roles';
import type { OAuthSecrets } from '../oauth/secrets';

/** What reading the console's session needs: the session secret and the database. */
type Services = { oauthSecrets(): Promise<OAuthSecrets | null>; database(): Promise<Database> };

/**
 * Who is using the console: the publisher of the browser's session cookie, or null (signed
 * out, a cookie of another deployment, or an account deleted since). The console reads the
 * account through the same operations as the API, as this publisher with every read scope, so
 * what it shows is what `GET /api/v1/me/...` answers them.
 */
export async function signedInPublisher(headers: Headers, services: Services): Promise<SignedInUser | null> {
  const secrets = await services.oauthSecrets();
  if (!secrets) return null;
  return sessionUser({ headers }, secrets, await services.database());
}

/** The publisher's own account, as the console reads it: the API's reads, run as the user under RLS with every read scope. */
export function consoleAccount(user: SignedInUser, database: OpenDatabase): AccountSource {
  return userAccount(database, { userId: user.id, clientId: 'console', scopes: [...SCOPES] });
}
