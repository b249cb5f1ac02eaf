import { createHash, timingSafeEqual } from 'node:crypto';

/** Small primitives that secrets, codes, keys and tokens share. */

/** SHA-256 as hex: how high-entropy secrets are stored (API keys, client secrets, codes). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Equal strings, compared in constant time (MACs, hashes, PKCE challenges). */
export function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
