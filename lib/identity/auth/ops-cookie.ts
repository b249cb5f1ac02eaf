import { decode } from 'next-auth/jwt';
import type { OAuthSecrets } from '../secrets';
import { usesSecureCookies } from './options';
import { readCookies } from './session';
import type { SignedInUser } from './users';

/**
 * The operator console's cookie, read without the rest of the staff sign-in (staff.ts): the site's
 * header, on every page, asks only who it names, and imports no more than this.
 */

/** Separates the ops session's key from the publisher session's (next-auth derives each from the secret and its salt). */
export const OPS_SALT = 'monetize-ops-session';

export function opsCookieName(): string {
  // __Host-: on https only, for this host and path only (RFC 6265bis §4.1.3.2).
  return `${usesSecureCookies() ? '__Host-' : ''}monetize-ops`;
}

/** Whether the request carries an ops cookie at all (no key is read for a request without one). */
export function hasOpsCookie(headers: Headers): boolean {
  return readCookies(headers.get('cookie')).has(opsCookieName());
}

/** The claims of the ops cookie, read as it is (no database): null when none, expired, of another key, or not both factors. */
export async function opsClaims(
  headers: Headers,
  services: { oauthSecrets(): Promise<Pick<OAuthSecrets, 'sessionSecret'> | null> },
): Promise<{ user: SignedInUser; sid: string } | null> {
  const token = readCookies(headers.get('cookie')).get(opsCookieName());
  if (!token) return null;
  const secrets = await services.oauthSecrets();
  if (!secrets) return null;
  try {
    const payload = await decode({ token, secret: secrets.sessionSecret, salt: OPS_SALT });
    if (!payload?.sub || payload.aal !== 'aal2' || typeof payload.email !== 'string' || typeof payload.sid !== 'string') return null;
    return { user: { id: payload.sub, email: payload.email, name: typeof payload.name === 'string' ? payload.name : null }, sid: payload.sid };
  } catch {
    return null;
  }
}

/**
 * Who the ops cookie names, for the site's header only (it offers the operator console): from the
 * cookie alone, with no database read on every page. Everything that acts uses signedInStaff.
 */
export async function headerStaff(
  headers: Headers,
  services: { oauthSecrets(): Promise<Pick<OAuthSecrets, 'sessionSecret'> | null> },
): Promise<{ email: string } | null> {
  const claims = await opsClaims(headers, services);
  return claims?.user.email ? { email: claims.user.email } : null;
}
