import { describe, expect, it } from 'vitest';
import { Lru } from './lru';

describe('Lru', () => {
  it('keeps at most max entries, dropping the least recently used', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // a is now the most recent
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('keeps the order right when the most recent key is asked for again', () => {
    const lru = new Lru<string, number>(3);
    lru.set('a', 1);
    lru.set('b', 2);
    lru.set('c', 3);
    expect(lru.get('c')).toBe(3); // already the newest: nothing moves
    expect(lru.get('a')).toBe(1); // order now b, c, a
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4); // drops b
    expect(lru.get('b')).toBeUndefined();
    lru.set('e', 5); // drops c
    expect(lru.get('c')).toBeUndefined();
    expect([lru.get('a'), lru.get('d'), lru.get('e')]).toEqual([1, 4, 5]);
  });

  it('forgets everything on clear, the newest key included', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.clear();
    expect(lru.get('a')).toBeUndefined();
    lru.set('b', 2);
    lru.set('a', 1);
    lru.set('c', 3); // drops b, the oldest
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
  });
});
