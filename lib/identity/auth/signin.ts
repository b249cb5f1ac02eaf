import { encode } from 'next-auth/jwt';
import { clientIp } from '../../platform/http/client-ip';
import { log } from '../../platform/log';
import { requireOAuthSecrets } from '../secrets';
import type { AuthServices as Services } from './services';
import { safeCallbackUrl, textField } from './messages';
import { SESSION_MAX_AGE_S, sessionCookieName, usesSecureCookies } from './options';
import { DEVICE_COOKIE, DEVICE_COOKIE_MAX_AGE_S, deviceCookieValue, trustedDevice } from './device';
import { readCookies } from './session';
import { allowAttempt, settleSignIn } from './throttle';
import { checkPassword, type SignedInUser } from './users';

/**
 * The sign-in form's submission, as a server action: it works as a plain form post before (or
 * without) the page's script, and Next checks that the post came from our own origin. A
 * success sets the same session cookie next-auth issues (an encrypted JWT naming the user), so
 * next-auth's session and sign-out endpoints, the consent page and the console all read it.
 */

export interface SessionCookie {
  name: string;
  value: string;
  options: { httpOnly: true; sameSite: 'lax'; secure: boolean; path: '/'; maxAge: number };
}

export type SignInOutcome = { ok: true; user: SignedInUser; cookies: SessionCookie[]; location: string } | { ok: false; location: string };

export async function signInFromForm(form: FormData, headers: Headers, services: Services): Promise<SignInOutcome> {
  const field = (name: string) => textField(form, name);
  const email = field('email').trim().slice(0, 254);
  const password = field('password').slice(0, 1000);
  const callbackUrl = safeCallbackUrl(field('callbackUrl'));
  // The email comes back to the form; the password never does.
  const back = (error: string) => ({ ok: false as const, location: `/signin?${new URLSearchParams({ error, email, callbackUrl })}` });
  // No email has control characters (and PostgreSQL text cannot hold NUL).
  if (!email || !password || /[\u0000-\u001f\u007f]/.test(email)) return back('CredentialsSignin');

  const ip = clientIp(headers);
  const { sessionSecret } = await requireOAuthSecrets(services);
  const device = trustedDevice(sessionSecret, email, readCookies(headers.get('cookie')).get(DEVICE_COOKIE));
  const attempt = await allowAttempt(services.attempts, 'signin', email, ip, services.now(), device);
  if (!attempt.allowed) {
    log.warn('sign-in throttled', { ip });
    return back('TooManyAttempts');
  }
  const holder = await checkPassword(email, password, await services.database());
  // Staff sign in at /ops with both factors: their right password here is answered, and counted,
  // exactly as a wrong one, so this form neither signs them in nor says the password was right.
  const user = holder && !holder.staff ? { id: holder.id, email: holder.email, name: holder.name } : null;
  await settleSignIn(services.attempts, email, ip, attempt, user !== null);
  if (!user) return back('CredentialsSignin');
  // This browser is now one the publisher uses: its attempts at this account count on its own budget.
  const deviceCookie: SessionCookie = {
    name: DEVICE_COOKIE,
    value: deviceCookieValue(sessionSecret, email),
    options: { httpOnly: true, sameSite: 'lax', secure: usesSecureCookies(), path: '/', maxAge: DEVICE_COOKIE_MAX_AGE_S },
  };
  // Without a destination of its own, the console of the account's role (app/console/page.tsx).
  return { ok: true, user, cookies: [await sessionCookie(user, services), deviceCookie], location: callbackUrl === '/' ? '/console' : callbackUrl };
}

/** The session cookie of `user`, as next-auth writes it (JWT strategy, `SESSION_MAX_AGE_S`). */
export async function sessionCookie(user: SignedInUser, services: Services): Promise<SessionCookie> {
  const { sessionSecret } = await requireOAuthSecrets(services);
  const value = await encode({ token: { sub: user.id, email: user.email, name: user.name }, secret: sessionSecret, maxAge: SESSION_MAX_AGE_S });
  return {
    name: sessionCookieName(),
    value,
    options: { httpOnly: true, sameSite: 'lax', secure: usesSecureCookies(), path: '/', maxAge: SESSION_MAX_AGE_S },
  };
}
