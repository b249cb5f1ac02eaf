import { afterEach, describe, expect, it } from 'vitest';
import { resetEnv } from '../env';
import { Lru } from './lru';

afterEach(() => {
  delete process.env.CACHES_OFF;
  resetEnv();
});

describe('Lru', () => {
  it('keeps at most max entries, dropping the least recently used', () => {
    const lru = new Lru<string, number>('search-pages', 2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('forgets everything on clear', () => {
    const lru = new Lru<string, number>('search-pages', 2);
    lru.set('a', 1);
    lru.clear();
    expect(lru.get('a')).toBeUndefined();
    lru.set('b', 2);
    lru.set('a', 1);
    lru.set('c', 3); // drops b, the oldest
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
  });

  it('keeps nothing when CACHES_OFF names it, and other caches go on', () => {
    process.env.CACHES_OFF = 'sandbox, tokens';
    resetEnv();
    const off = new Lru<string, number>('tokens', 2);
    const on = new Lru<string, number>('search-pages', 2);
    off.set('a', 1);
    on.set('a', 1);
    expect([off.get('a'), off.size, on.get('a')]).toEqual([undefined, 0, 1]);
  });
});
