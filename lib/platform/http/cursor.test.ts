import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor';
import { ApiError } from './errors';

const ONE = Buffer.alloc(32, 1);
const TWO = Buffer.alloc(32, 2);

describe('pagination cursors', () => {
  it('round-trips the offset for the binding it was issued for', () => {
    const cursor = encodeCursor(ONE, 'search\npayout\n5', 10);
    expect(decodeCursor(ONE, 'search\npayout\n5', cursor)).toBe(10);
  });

  it('issues the same cursor for the same page again (reused, not re-signed differently)', () => {
    const first = encodeCursor(ONE, 'pages\n50', 50);
    expect(encodeCursor(ONE, 'pages\n50', 50)).toBe(first);
    expect(encodeCursor(ONE, 'pages\n50', 100)).not.toBe(first);
    expect(encodeCursor(ONE, 'pages\n20', 50)).not.toBe(first);
  });

  it('signs with the key it is given: under another key, old cursors are refused and new ones differ', () => {
    const before = encodeCursor(ONE, 'search\napi\n3', 3);
    const after = encodeCursor(TWO, 'search\napi\n3', 3);
    expect(after).not.toBe(before);
    expect(decodeCursor(TWO, 'search\napi\n3', after)).toBe(3);
    expect(() => decodeCursor(TWO, 'search\napi\n3', before)).toThrow(ApiError);
  });

  it('refuses a cursor issued for another binding', () => {
    const cursor = encodeCursor(ONE, 'search\napi\n3', 3);
    expect(() => decodeCursor(ONE, 'search\napi\n4', cursor)).toThrow(expect.objectContaining({ status: 400, code: 'invalid_request' }));
  });
});
