import { encode } from 'next-auth/jwt';
import { OPS_SALT, opsClaims, opsCookieName } from './ops-cookie';
import { unseal } from '../../platform/crypto';
import { as, type Database, type Session } from '../../platform/db/roles';
import { clientIp } from '../../platform/http/client-ip';
import { log } from '../../platform/log';
import { requireOAuthSecrets } from '../secrets';
import { textField } from './messages';
import { usesSecureCookies } from './options';
import type { SessionCookie } from './signin';
import type { AuthServices } from './services';
import { TOTP_SECRET_PURPOSE, totpStep } from './staff-totp';
import { allowAttempt, settleSignIn } from './throttle';
import {
  checkPassword,
  endStaffSession,
  settleStaffFactorAttempt,
  spendTotpStep,
  staffFactorLocked,
  staffSessionActive,
  staffTotpSecret,
  startStaffSession,
  takeStaffFactorAttempt,
  type SignedInUser,
} from './users';

/**
 * Staff sign-in (the operator console, /ops; content/docs/payouts.md, The operator): a password
 * and a TOTP code (RFC 6238), both required, each code accepted once. Success sets a session of its
 * own, apart from the publisher's: the `monetize-ops` cookie, an encrypted JWT for one hour whose
 * claims say `aal2` (both factors) and name a row of `staff_sessions`, which sign-out closes on
 * the server (a copy of the cookie kept from before signs in nobody). Staff act in the database
 * as themselves with those claims, and the database's public.is_staff decides: a publisher's
 * session, or staff signed in with a password alone, reaches no staff function, whatever the page
 * shows. Staff accounts have no publisher session at all (lib/identity/auth/signin.ts refuses their
 * password as it refuses a wrong one).
 *
 * The code is guessed at under two budgets: the sign-in throttle's (lib/identity/auth/throttle.ts, per
 * address and account, in the rate limiter's store) and a hard one of the database's,
 * STAFF_FACTOR_BUDGET: that many wrong codes after the right password, per staff account, from
 * every address together, in a rolling window. When it is spent the factor locks (an audit line
 * says so) and stays locked, refusing every code, until `npm run staff:unlock -- <email>`
 * (scripts/staff.ts). A six-digit code, three steps accepted, is then guessed with a chance of at
 * most 20 × 3 / 10^6 a day, whatever the number of addresses. Only a right password reaches the
 * code, so strangers cannot lock staff out; a lock means someone has the password.
 */

export const OPS_SESSION_MAX_AGE_S = 3600;
/** Wrong codes a staff account may have, from anywhere, in a rolling 24 hours, before its factor locks. */
export const STAFF_FACTOR_BUDGET = { codes: 20, windowS: 24 * 3600 };

type Services = AuthServices & { dataKey(): Promise<Buffer> };

export type StaffSignIn = { ok: true; user: SignedInUser; cookie: SessionCookie } | { ok: false; error: 'CredentialsSignin' | 'TooManyAttempts' | 'Locked' };

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
  // Said before the password is checked, whatever was typed: the answer tells nothing of the password.
  if (await staffFactorLocked(email, db)) {
    await settleSignIn(services.attempts, `ops:${email}`, ip, attempt, false);
    log.warn('staff sign-in refused: second factor locked', { ip });
    return { ok: false, error: 'Locked' };
  }
  const user = await checkPassword(email, password, db);
  const staff = user?.staff ? await secondFactor(user, code, db, services) : null;
  await settleSignIn(services.attempts, `ops:${email}`, ip, attempt, staff !== null);
  // One answer for every failure: which factor failed, or that the account is no staff, is not said.
  if (!staff) return { ok: false, error: 'CredentialsSignin' };
  log.info('staff signed in', { user_id: staff.id });
  return { ok: true, user: staff, cookie: await opsCookie(staff, services) };
}

/**
 * The code checked under the budget (module comment): a unit taken first, so parallel guesses
 * cannot all pass a count made before any of them failed, and settled with the outcome.
 */
async function secondFactor(user: SignedInUser, code: string, db: Database, services: Services): Promise<SignedInUser | null> {
  const sealed = await staffTotpSecret(user.id, db);
  if (!sealed) return null;
  const attempt = await takeStaffFactorAttempt(user.id, STAFF_FACTOR_BUDGET, db);
  if (attempt === null) return null;
  const step = totpStep(unseal(await services.dataKey(), sealed, TOTP_SECRET_PURPOSE), code, new Date(services.now()));
  // A code of the secret that was used before (a second tab, a retry) is refused but is no wrong
  // guess: it gives its unit back, so the operator's own retries do not lock them out.
  const spent = step !== null && (await spendTotpStep(user.id, step, db));
  const locked = await settleStaffFactorAttempt(attempt, step !== null, STAFF_FACTOR_BUDGET, db);
  if (locked) log.warn('staff second factor locked: too many wrong codes', { user_id: user.id });
  return spent && !locked ? user : null;
}

async function opsCookie(user: SignedInUser, services: Services): Promise<SessionCookie> {
  const { sessionSecret } = await requireOAuthSecrets(services);
  const sid = await startStaffSession(user.id, OPS_SESSION_MAX_AGE_S, await services.database());
  const value = await encode({
    token: { sub: user.id, email: user.email, name: user.name, aal: 'aal2', amr: ['pwd', 'otp'], sid },
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

type CookieServices = Pick<AuthServices, 'oauthSecrets' | 'database'>;

export { opsCookieName };

/**
 * Staff signed in with both factors, from the ops cookie, whose session is still open in the
 * database; null otherwise (no cookie, expired, signed out, a publisher's session, tampered).
 */
export async function signedInStaff(headers: Headers, services: CookieServices): Promise<SignedInUser | null> {
  const claims = await opsClaims(headers, services);
  if (!claims) return null;
  return (await staffSessionActive(claims.sid, claims.user.id, await services.database())) ? claims.user : null;
}

/** Sign-out: closes the session of the ops cookie on the server, so that no copy of the cookie works again. */
export async function staffSignOut(headers: Headers, services: CookieServices): Promise<void> {
  const claims = await opsClaims(headers, services);
  if (!claims) return;
  if (await endStaffSession(claims.sid, claims.user.id, await services.database())) log.info('staff signed out', { user_id: claims.user.id });
}

/** Staff at work in the database: as themselves, with the claim of their second factor (public.is_staff reads it). */
export function asStaff(db: Database, staff: SignedInUser): Session {
  return as(db, 'authenticated', { sub: staff.id, client_id: 'ops', aal: 'aal2' });
}
