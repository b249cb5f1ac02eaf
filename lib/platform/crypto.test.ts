import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sameText, sha256Hex } from './crypto';

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
