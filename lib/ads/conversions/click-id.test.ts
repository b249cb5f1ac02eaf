import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { clickIdKey, signClickId, verifyClickId, withClickId } from './click-id';

describe('click ids', () => {
  const key = clickIdKey(randomBytes(32));
  const decision = randomUUID();

  it('names the decision it was signed for, and only with our key', () => {
    const id = signClickId(key, decision);
    expect(id).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{22}$/);
    expect(verifyClickId(key, id)).toBe(decision);
    expect(verifyClickId(clickIdKey(randomBytes(32)), id)).toBeNull();
  });

  it('refuses a signature moved to another decision, altered, cut or padded', () => {
    const id = signClickId(key, decision);
    const [, sig] = id.split('.');
    expect(verifyClickId(key, `${randomUUID()}.${sig}`)).toBeNull();
    const flipped = sig![0] === 'A' ? `B${sig!.slice(1)}` : `A${sig!.slice(1)}`;
    expect(verifyClickId(key, `${decision}.${flipped}`)).toBeNull();
    expect(verifyClickId(key, `${decision}.${sig!.slice(1)}`)).toBeNull();
    expect(verifyClickId(key, `${id}A`)).toBeNull();
    for (const bad of ['', decision, `${decision}.`, '.'.repeat(3), `${decision.toUpperCase()}.${sig}`, `x.${sig}`]) expect(verifyClickId(key, bad)).toBeNull();
  });

  it('is derived from the token key, not the token key itself', () => {
    const tokenKey = randomBytes(32);
    expect(clickIdKey(tokenKey).equals(tokenKey)).toBe(false);
    expect(clickIdKey(tokenKey).equals(clickIdKey(tokenKey))).toBe(true);
  });

  it('is added to the landing URL, the rest of it exactly as written, replacing an mclid it had', () => {
    expect(withClickId('https://example.com/p?a=1#top', 'X.Y')).toBe('https://example.com/p?a=1&mclid=X.Y#top');
    expect(withClickId('https://example.com/?mclid=old', 'new')).toBe('https://example.com/?mclid=new');
    expect(withClickId('https://example.com/start', 'X.Y')).toBe('https://example.com/start?mclid=X.Y');
    // Spaces, bare flags and slashes in the query, as a signed or affiliate URL has them, are left alone.
    expect(withClickId('https://example.com/s?q=a%20b&flag&next=/x&sig=AbC%2F&mclid=1', 'X.Y')).toBe(
      'https://example.com/s?q=a%20b&flag&next=/x&sig=AbC%2F&mclid=X.Y',
    );
  });
});
