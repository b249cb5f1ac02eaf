import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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

const SEALED_VERSION = 'v1';

/**
 * Encrypts `plaintext` with AES-256-GCM under `key` (32 bytes), for storing what must be read
 * back (a payout method's bank details, a TOTP secret): `v1.<iv>.<ciphertext>.<tag>`, base64url.
 * `purpose` is bound as associated data, so a value sealed for one purpose does not open as
 * another (a bank account moved into a TOTP secret's column fails to open).
 */
export function seal(key: Buffer, plaintext: string, purpose: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(purpose));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [SEALED_VERSION, iv, body, cipher.getAuthTag()].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

/** What `seal` sealed, with the same key and purpose; throws on any other value or a tampered one. */
export function unseal(key: Buffer, sealed: string, purpose: string): string {
  const [version, iv, body, tag, ...rest] = sealed.split('.');
  if (version !== SEALED_VERSION || iv === undefined || body === undefined || tag === undefined || rest.length > 0) {
    throw new Error('not a sealed value');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}
