import { sessionUser } from '../auth/session';
import type { SignedInUser } from '../auth/users';
import type { Principal } from '../oauth/bearer';
import { SCOPES } from '../schemas/account';
import type { Services } from '../services';

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

/** The console's principal for `user`: the API's reads, run as the user under RLS. */
export function consolePrincipal(user: SignedInUser, now: number): Extract<Principal, { kind: 'user' }> {
  return { kind: 'user', userId: user.id, clientId: 'console', scopes: [...SCOPES], expiresAt: new Date(now + 60_000) };
}
