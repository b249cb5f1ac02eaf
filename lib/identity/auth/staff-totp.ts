import { Secret, TOTP } from 'otpauth';

/**
 * Staff's second factor (content/docs/payouts.md, The operator): a time-based one-time password
 * (RFC 6238: HMAC-SHA-1, 6 digits, 30-second steps, what every authenticator app speaks), whose
 * secret `staff_members` keeps sealed for TOTP_SECRET_PURPOSE (lib/platform/crypto.ts).
 */
export const TOTP_SECRET_PURPOSE = 'totp-secret';

function totp(secretBase32: string): TOTP {
  return new TOTP({ issuer: 'Monetize', algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secretBase32) });
}

/**
 * The 30-second step `code` belongs to, when it is the code of `secretBase32` at `now` or one step
 * either side (RFC 6238 §5.2: a clock a little off, a code typed as it changed); otherwise null.
 * The caller refuses a step already used (RFC 6238 §5.2: a code is accepted once).
 */
export function totpStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const delta = totp(secretBase32).validate({ token: code, timestamp: now.getTime(), window: 1 });
  return delta === null ? null : Math.floor(now.getTime() / 30_000) + delta;
}

/** The code of `secretBase32` at `now` (tests and the seed's README line use it). */
export function totpCode(secretBase32: string, now: Date): string {
  return totp(secretBase32).generate({ timestamp: now.getTime() });
}
