import { createHash } from 'node:crypto';
import { sameText } from '../../platform/crypto';

/**
 * PKCE (RFC 7636), S256 only: `plain` offers no protection when the authorization request leaks
 * (RFC 9700 §2.1.1).
 */

/** RFC 7636 §4.1: 43 to 128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** The S256 challenge is the base64url SHA-256 of the verifier: always 43 characters. */
export const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Does the verifier hash to the challenge the code was bound to? Constant time. */
export function verifyPkce(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  return sameText(s256(verifier), challenge);
}
