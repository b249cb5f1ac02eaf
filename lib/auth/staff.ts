import { decode, encode } from 'next-auth/jwt';
import { unseal } from '../platform/crypto';
import { as, type Database, type Session } from '../platform/db/roles';
import { clientIp } from '../platform/http/client-ip';
import { log } from '../platform/log';
import { requireOAuthSecrets } from '../oauth/secrets';
import { textField } from './messages';
import { usesSecureCookies } from './options';
import type { SessionCookie } from './signin';
import { readCookies } from './session';
import type { AuthServices } from './services';
import { TOTP_SECRET_PURPOSE, totpStep } from './staff-totp';
import { allowAttempt, settleSignIn } from './throttle';
import { checkPassword, staffTotpSecret, spendTotpStep, type SignedInUser } from './users';

/**
 * Staff sign-in (the operator console, /ops; content/docs/payouts.md, The operator): a password
 * and a TOTP code (RFC 6238), both required, each code accepted once. Success sets a session of its
 * own, apart from the publisher's: the `monetize-ops` cookie, an encrypted JWT for one hour whose
 * claims say `aal2` (both factors). Staff act in the database as themselves with those claims,
 * and the database's public.is_staff decides: a publisher's session, or staff signed in with a
 * password alone, reaches no staff function, whatever the page shows.
 */

export const OPS_SESSION_MAX_AGE_S = 3600;
/** Separates the ops session's key from the publisher session's (next-auth derives each from the secret and its salt). */
const OPS_SALT = 'monetize-ops-session';

export function opsCookieName(): string {
  // __Host-: on https only, for this host and path only (RFC 6265bis §4.1.3.2).
  return `${usesSecureCookies() ? '__Host-' : ''}monetize-ops`;
}

type Services = AuthServices & { dataKey(): Promise<Buffer> };

export type StaffSignIn = { ok: true; user: SignedInUser; cookie: SessionCookie } | { ok: false; error: 'CredentialsSignin' | 'TooManyAttempts' };

export async function staffSignIn(form: FormData, headers: Headers, services: Services): Promise<StaffSignIn> {
  const email = textField(form, 'email').trim().slice(0, 254);
  const password = textField(form, 'password').slice(0, 1000);
  const code = textField(form, 'code').replace(/\s/g, '').slice(0, 10);
  if (!email || !password || !code || /[\u0000-\u001f\u007f]/.test(email)) return { ok: false, error: 'CredentialsSignin' };

  const ip = clientIp(headers);
  const attempt = await allowAttempt(services.attempts, 'signin', `ops:${email}`, ip, services.now());
  if (!attempt.allowed) {
    log.warn('staff sign-in throttled', { ip });
    return { ok: false, error: 'TooManyAttempts' };
  }
  const db = await services.database();
  const user = await checkPassword(email, password, db);
  const staff = user ? await secondFactor(user, code, db, services) : null;
  await settleSignIn(services.attempts, `ops:${email}`, ip, attempt, staff !== null);
  // One answer for every failure: which factor failed, or that the account is no staff, is not said.
  if (!staff) return { ok: false, error: 'CredentialsSignin' };
  log.info('staff signed in', { user_id: staff.id });
  return { ok: true, user: staff, cookie: await opsCookie(staff, services) };
}

async function secondFactor(user: SignedInUser, code: string, db: Database, services: Services): Promise<SignedInUser | null> {
  const sealed = await staffTotpSecret(user.id, db);
  if (!sealed) return null;
  const step = totpStep(unseal(await services.dataKey(), sealed, TOTP_SECRET_PURPOSE), code, new Date(services.now()));
  if (step === null || !(await spendTotpStep(user.id, step, db))) return null;
  return user;
}

async function opsCookie(user: SignedInUser, services: Services): Promise<SessionCookie> {
  const { sessionSecret } = await requireOAuthSecrets(services);
  const value = await encode({
    token: { sub: user.id, email: user.email, name: user.name, aal: 'aal2', amr: ['pwd', 'otp'] },
    secret: sessionSecret,
    salt: OPS_SALT,
    maxAge: OPS_SESSION_MAX_AGE_S,
  });
  return {
    name: opsCookieName(),
    value,
    options: { httpOnly: true, sameSite: 'lax', secure: usesSecureCookies(), path: '/', maxAge: OPS_SESSION_MAX_AGE_S },
  };
}

/** Staff signed in with both factors, from the ops cookie; null otherwise (no cookie, expired, a publisher's session, tampered). */
export async function signedInStaff(headers: Headers, services: Pick<AuthServices, 'oauthSecrets'>): Promise<SignedInUser | null> {
  const token = readCookies(headers.get('cookie')).get(opsCookieName());
  const secrets = await services.oauthSecrets();
  if (!token || !secrets) return null;
  try {
    const payload = await decode({ token, secret: secrets.sessionSecret, salt: OPS_SALT });
    if (!payload?.sub || payload.aal !== 'aal2' || typeof payload.email !== 'string') return null;
    return { id: payload.sub, email: payload.email, name: typeof payload.name === 'string' ? payload.name : null };
  } catch {
    return null;
  }
}

/** Staff at work in the database: as themselves, with the claim of their second factor (public.is_staff reads it). */
export function asStaff(db: Database, staff: SignedInUser): Session {
  return as(db, 'authenticated', { sub: staff.id, client_id: 'ops', aal: 'aal2' });
}
