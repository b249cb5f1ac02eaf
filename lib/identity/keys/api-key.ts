import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../platform/crypto';
import type { KeyEnvironment } from '../../schemas/account';

/**
 * Publishable SDK keys: `pk_live_…` (production) or `pk_test_…` (development), 32 random
 * base62 characters after the tag. Shown once; we keep a lookup prefix, the last 4 characters
 * and a SHA-256 of the whole key: secrets are stored hashed, never in the clear.
 */

export type { KeyEnvironment };

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const BODY_LENGTH = 32;
const PREFIX_BODY = 8;

function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 4 * 62: rejecting larger bytes keeps every character equally likely.
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export function keyTag(environment: KeyEnvironment): string {
  return environment === 'production' ? 'pk_live_' : 'pk_test_';
}

/** Every key this module generates, and nothing else: the tag of an environment, then 32 base62 characters. */
export const API_KEY_PATTERN = new RegExp(`^pk_(?:live|test)_[A-Za-z0-9]{${BODY_LENGTH}}$`);

export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

export interface NewApiKey {
  key: string;
  prefix: string;
  last4: string;
  hash: string;
}

export function generateApiKey(environment: KeyEnvironment): NewApiKey {
  const key = keyTag(environment) + base62(BODY_LENGTH);
  return { key, ...describeApiKey(key) };
}

export function describeApiKey(key: string): Omit<NewApiKey, 'key'> {
  return { prefix: key.slice(0, keyTag('production').length + PREFIX_BODY), last4: key.slice(-4), hash: hashApiKey(key) };
}

/** What a publisher or a third party is shown: the prefix and the last 4 characters only. */
export function maskApiKey(prefix: string, last4: string): string {
  return `${prefix}…${last4}`;
}
