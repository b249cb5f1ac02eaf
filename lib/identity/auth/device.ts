import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser
 * that has signed in to an account gets a cookie naming that account (by a keyed hash, not the
 * email) and the browser (a random nonce), signed with the session secret. Its sign-in attempts
 * are then counted on the device's own budget and not on the account's shared one, so a stranger
 * spending the account's budget from elsewhere cannot lock out a browser the publisher already
 * uses. The nonce is the device's budget key; the cookie grants nothing else, and a session
 * still needs the password.
 */

export const DEVICE_COOKIE = 'mz_device';
/** A year: a device the publisher keeps using keeps its place. */
export const DEVICE_COOKIE_MAX_AGE_S = 365 * 24 * 3600;

const tag = (secret: string, email: string) => hmac(secret, `device-account:${email.trim().toLowerCase()}`).slice(0, 22);
const hmac = (secret: string, text: string) => createHmac('sha256', secret).update(text).digest('base64url');

/** A new device cookie's value for `email`'s account. */
export function deviceCookieValue(secret: string, email: string): string {
  const body = `${tag(secret, email)}.${randomBytes(16).toString('base64url')}`;
  return `${body}.${hmac(secret, `device:${body}`)}`;
}

/** The device's nonce when `value` is a cookie we signed for `email`'s account; otherwise null. */
export function trustedDevice(secret: string, email: string, value: string | undefined): string | null {
  const [account, nonce, signature, ...rest] = (value ?? '').split('.');
  if (!account || !nonce || !signature || rest.length > 0) return null;
  const expected = Buffer.from(hmac(secret, `device:${account}.${nonce}`));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return account === tag(secret, email) ? nonce : null;
}
