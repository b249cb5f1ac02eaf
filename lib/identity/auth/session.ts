import { decode } from 'next-auth/jwt';
import type { Database } from '../../platform/db/roles';
import type { OAuthSecrets } from '../secrets';
import { sessionCookieName } from './options';
import { findUser, type SignedInUser } from './users';

/** Cookies of a request, by name (RFC 6265 §5.4 `cookie-string`). */
export function readCookies(header: string | null): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i <= 0) continue;
    const name = part.slice(0, i).trim();
    if (!out.has(name)) out.set(name, part.slice(i + 1).trim());
  }
  return out;
}

/**
 * The publisher signed in on this browser, from next-auth's session cookie (an encrypted JWT),
 * or null. The account must still exist: a deleted user's cookie signs in nobody.
 */
export async function sessionUser(request: { headers: Headers }, secrets: Pick<OAuthSecrets, 'sessionSecret'>, engine: Database): Promise<SignedInUser | null> {
  const payload = await sessionToken(request.headers, secrets);
  return payload ? findUser(payload.sub, engine) : null;
}

/**
 * Who the session cookie names, for the site's header only: read from the cookie alone, with no
 * database read on every page (so a deleted account's name can show there until the cookie
 * expires; everything that acts on the account uses sessionUser).
 */
export async function headerUser(
  headers: Headers,
  secrets: Pick<OAuthSecrets, 'sessionSecret'>,
): Promise<{ name: string | null; email: string | null } | null> {
  const payload = await sessionToken(headers, secrets);
  return payload ? { name: typeof payload.name === 'string' ? payload.name : null, email: typeof payload.email === 'string' ? payload.email : null } : null;
}

/** The session cookie's token as the browser sent it, whole or in next-auth's chunks (name.0, name.1, …); undefined without one. */
function sessionCookie(headers: Headers): string | undefined {
  const cookies = readCookies(headers.get('cookie'));
  const name = sessionCookieName();
  const whole = cookies.get(name);
  if (whole) return whole;
  const chunks: string[] = [];
  for (let i = 0; cookies.has(`${name}.${i}`); i++) chunks.push(cookies.get(`${name}.${i}`)!);
  return chunks.join('') || undefined;
}

/** Whether the request carries a session cookie at all: without one nobody is signed in, and no key needs reading. */
export function hasSessionCookie(headers: Headers): boolean {
  return sessionCookie(headers) !== undefined;
}

async function sessionToken(headers: Headers, secrets: Pick<OAuthSecrets, 'sessionSecret'>) {
  const token = sessionCookie(headers);
  if (!token) return null;
  try {
    const payload = await decode({ token, secret: secrets.sessionSecret });
    return payload?.sub ? { ...payload, sub: payload.sub } : null;
  } catch {
    return null;
  }
}

/** What reading a console's session needs: the session secret and the database. */
type SessionServices = { oauthSecrets(): Promise<OAuthSecrets | null>; database(): Promise<Database> };

/**
 * Who is using a console (the publisher's, the advertiser's, the buyer's, the operator's): the
 * user of the browser's session cookie, or null (signed out, a cookie of another deployment, or an
 * account deleted since).
 */
export async function signedInUser(headers: Headers, services: SessionServices): Promise<SignedInUser | null> {
  const secrets = await services.oauthSecrets();
  if (!secrets) return null;
  return sessionUser({ headers }, secrets, await services.database());
}
