import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../platform/crypto';
import type { KeyEnvironment, KeyKind } from '../../schemas/account';

/**
 * An app's SDK keys, 32 random base62 characters after a tag that says what the key is:
 *
 * - publishable keys, `pk_live_…` (production) or `pk_test_…` (development), sent in `x-api-key`
 *   from pages and apps, where anyone may read them;
 * - server keys, `sk_live_…` or `sk_test_…`, secrets of the app's server, sent as
 *   `Authorization: Bearer` and never from a web page (./directory.ts).
 *
 * Shown once; we keep a lookup prefix, the last 4 characters and a SHA-256 of the whole key:
 * secrets are stored hashed, never in the clear. 190 random bits need no slow hash: nobody can
 * guess one from its SHA-256.
 */

export type { KeyEnvironment, KeyKind };

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BODY_LENGTH = 32;
const PREFIX_BODY = 8;

/** `length` random base62 characters, each equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function keyTag(environment: KeyEnvironment, kind: KeyKind = 'publishable'): string {
  return `${kind === 'server' ? 'sk' : 'pk'}_${environment === 'production' ? 'live' : 'test'}_`;
}

/** Every publishable key this module generates, and nothing else: the tag of an environment, then 32 base62 characters. */
export const API_KEY_PATTERN = new RegExp(`^pk_(?:live|test)_[A-Za-z0-9]{${BODY_LENGTH}}$`);
/** Every server key this module generates, and nothing else. */
export const SERVER_KEY_PATTERN = new RegExp(`^sk_(?:live|test)_[A-Za-z0-9]{${BODY_LENGTH}}$`);

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export interface NewApiKey {
  key: string;
  prefix: string;
  last4: string;
  hash: string;
}

export function generateApiKey(environment: KeyEnvironment, kind: KeyKind = 'publishable'): NewApiKey {
  const key = keyTag(environment, kind) + randomBase62(BODY_LENGTH);
  return { key, ...describeApiKey(key) };
}

export function describeApiKey(key: string): Omit<NewApiKey, 'key'> {
  return { prefix: key.slice(0, keyTag('production').length + PREFIX_BODY), last4: key.slice(-4), hash: hashApiKey(key) };
}

/** What a publisher or a third party is shown: the prefix and the last 4 characters only. */
export function maskApiKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}
