import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sameText, seal, sha256Hex, unseal } from './crypto';

describe('sha256Hex', () => {
  it('is the hex SHA-256 of the text', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('pk_live_x')).toBe(createHash('sha256').update('pk_live_x').digest('hex'));
  });
});

describe('sameText', () => {
  it.each([
    ['equal strings', 'abc', 'abc', true],
    ['one character differs', 'abc', 'abd', false],
    ['different lengths', 'abc', 'abcd', false],
    ['empty and non-empty', '', 'a', false],
    ['two empty strings', '', '', true],
  ])('%s', (_name, a, b, expected) => {
    expect(sameText(a, b)).toBe(expected);
  });
});

describe('seal and unseal', () => {
  const key = randomBytes(32);

  it('opens what it sealed, with the same key and purpose, and seals the same text differently each time', () => {
    const a = seal(key, 'IBAN DE89 3704 0044 0532 0130 00', 'payout-details');
    const b = seal(key, 'IBAN DE89 3704 0044 0532 0130 00', 'payout-details');
    expect(a).not.toBe(b);
    expect(a).not.toContain('DE89');
    expect(unseal(key, a, 'payout-details')).toBe('IBAN DE89 3704 0044 0532 0130 00');
    expect(unseal(key, seal(key, '', 'x'), 'x')).toBe('');
  });

  it('refuses another key, another purpose, a tampered value and what it did not seal', () => {
    const sealed = seal(key, 'secret', 'payout-details');
    expect(() => unseal(randomBytes(32), sealed, 'payout-details')).toThrow();
    expect(() => unseal(key, sealed, 'totp-secret')).toThrow();
    const [v, iv, body, tag] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => unseal(key, [v, iv, flipped.toString('base64url'), tag].join('.'), 'payout-details')).toThrow();
    expect(() => unseal(key, 'secret', 'payout-details')).toThrow('not a sealed value');
    expect(() => unseal(key, `${sealed}.x`, 'payout-details')).toThrow('not a sealed value');
  });
});
