import { describe, expect, it } from 'vitest';
import { marketAt, type MarketAt } from './market';
import { MarketCache } from './market-cache';

/** A market read that answers the versions given, in turn, when released. */
function reads(...versions: number[]) {
  let n = 0;
  const pending: (() => void)[] = [];
  const read = (): Promise<MarketAt> => {
    const version = versions[Math.min(n++, versions.length - 1)]!;
    return new Promise((resolve) => pending.push(() => resolve(marketAt(version, [], []))));
  };
  return { read, count: () => n, release: () => pending.splice(0).forEach((go) => go()) };
}

describe('the market kept in memory', () => {
  it('is read once for many requests, at once or later', async () => {
    const cache = new MarketCache();
    const r = reads(1);
    const both = Promise.all([cache.get(r.read), cache.get(r.read)]);
    r.release();
    expect((await both).map((m) => m.version)).toEqual([1, 1]);
    expect((await cache.get(r.read)).version).toBe(1);
    expect(r.count()).toBe(1);
  });

  it('is read again once a decision finds it stale, and an older read never replaces a newer one', async () => {
    const cache = new MarketCache();
    const r = reads(1, 2);
    const first = cache.get(r.read);
    r.release();
    expect((await first).version).toBe(1);
    cache.stale(1);
    const second = cache.get(r.read);
    r.release();
    expect((await second).version).toBe(2);
    expect(r.count()).toBe(2);
    // A decision holding version 1 finds it stale again: version 2 is kept.
    cache.stale(1);
    expect((await cache.get(r.read)).version).toBe(2);
    expect(r.count()).toBe(2);
  });

  it('does not trust a read that began before the market was found stale: it reads again', async () => {
    const cache = new MarketCache();
    // The first read is still in flight, and will answer version 1, when a decision finds 1 stale.
    let release = (): void => {};
    let n = 0;
    const read = (): Promise<MarketAt> => {
      n++;
      return n === 1 ? new Promise((resolve) => (release = () => resolve(marketAt(1, [], [])))) : Promise.resolve(marketAt(2, [], []));
    };
    const request = cache.get(read);
    cache.stale(1);
    release();
    expect((await request).version).toBe(2);
    expect(n).toBe(2);
  });
});
