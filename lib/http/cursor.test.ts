import { afterEach, describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, useCursorKey } from './cursor';
import { ApiError } from './errors';

afterEach(() => useCursorKey(undefined));

describe('pagination cursors', () => {
  it('round-trips the offset for the binding it was issued for', async () => {
    useCursorKey(Buffer.alloc(32, 1));
    const cursor = await encodeCursor('search\npayout\n5', 10);
    expect(await decodeCursor('search\npayout\n5', cursor)).toBe(10);
  });

  it('issues the same cursor for the same page again (reused, not re-signed differently)', async () => {
    useCursorKey(Buffer.alloc(32, 1));
    const first = await encodeCursor('pages\n50', 50);
    expect(await encodeCursor('pages\n50', 50)).toBe(first);
    expect(await encodeCursor('pages\n50', 100)).not.toBe(first);
    expect(await encodeCursor('pages\n20', 50)).not.toBe(first);
  });

  it('signs with the key in force: after a key change, old cursors are refused and new ones differ', async () => {
    useCursorKey(Buffer.alloc(32, 1));
    const before = await encodeCursor('search\napi\n3', 3);
    useCursorKey(Buffer.alloc(32, 2));
    const after = await encodeCursor('search\napi\n3', 3);
    expect(after).not.toBe(before);
    expect(await decodeCursor('search\napi\n3', after)).toBe(3);
    await expect(decodeCursor('search\napi\n3', before)).rejects.toBeInstanceOf(ApiError);
  });

  it('refuses a cursor issued for another binding', async () => {
    useCursorKey(Buffer.alloc(32, 1));
    const cursor = await encodeCursor('search\napi\n3', 3);
    await expect(decodeCursor('search\napi\n4', cursor)).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
  });
});
