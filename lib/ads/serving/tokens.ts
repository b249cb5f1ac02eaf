import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Decision tokens. Every ad the SDK surface serves comes with a token that names its decision
 * (the row `GET /functions/v1/ads` wrote), the decision's app and an expiry, signed with the
 * service's token key (HMAC-SHA256, the same key on every instance: lib/services.ts). An event
 * carries the token of the ad it is about: the signature proves we served that decision, so a
 * beacon, which cannot send `x-api-key`, is authenticated by its tokens alone.
 *
 * The form is `<decision>.<app>.<expiry>.<signature>`: two UUIDs, Unix seconds, and 43
 * base64url characters. Nothing in it is secret; it only cannot be made without the key.
 */

/** How long an ad's impression and click can be recorded after it was served. */
export const DECISION_TOKEN_TTL_SECONDS = 60 * 60;

export interface DecisionClaims {
  decisionId: string;
  appId: string;
  /** Unix seconds. */
  expiresAt: number;
}

const VERSION = 'v1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// No leading zero: one expiry, one spelling.
const SECONDS = /^[1-9][0-9]{0,11}$/;

/** The signature, in the token's own spelling (base64url). */
function signature(key: Buffer, decisionId: string, appId: string, expiresAt: number): string {
  return createHmac('sha256', key).update(`${VERSION}.${decisionId}.${appId}.${expiresAt}`).digest('base64url');
}

export function signDecisionToken(key: Buffer, claims: DecisionClaims): string {
  const { decisionId, appId, expiresAt } = claims;
  return `${decisionId}.${appId}.${expiresAt}.${signature(key, decisionId, appId, expiresAt)}`;
}

export type DecisionTokenCheck = { ok: true; claims: DecisionClaims } | { ok: false; reason: 'invalid_token' | 'expired_token'; claims?: DecisionClaims };

/**
 * The token's claims when we signed it. An expired token still answers its claims (the click
 * endpoint then redirects without counting), under `reason: 'expired_token'`.
 */
export function verifyDecisionToken(key: Buffer, token: string, nowMs: number): DecisionTokenCheck {
  const parts = token.split('.');
  if (parts.length !== 4) return { ok: false, reason: 'invalid_token' };
  const [decisionId = '', appId = '', expiry = '', sent = ''] = parts;
  if (!UUID.test(decisionId) || !UUID.test(appId) || !SECONDS.test(expiry)) return { ok: false, reason: 'invalid_token' };
  const expiresAt = Number(expiry);
  // Compared as text: base64url has several spellings of one signature (the last character's
  // unused bits), and a token must have exactly one. Equal lengths first: timingSafeEqual throws
  // on a mismatch, and the length is no secret.
  const given = Buffer.from(sent);
  const expected = Buffer.from(signature(key, decisionId, appId, expiresAt));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid_token' };
  const claims = { decisionId, appId, expiresAt };
  if (nowMs >= expiresAt * 1000) return { ok: false, reason: 'expired_token', claims };
  return { ok: true, claims };
}
