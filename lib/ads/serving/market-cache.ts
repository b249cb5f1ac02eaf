import { cacheOff } from '../../platform/cache/lru';
import type { MarketAt } from './market';

/**
 * The market as this process last read it (market.ts says how its version keeps it right). Apart
 * from market.ts, so that the services, which every page imports, hold the cache without the
 * reading of conversations it serves: that code is compiled and loaded with the ad route alone.
 */
export class MarketCache {
  private current: MarketAt | null = null;
  private reading: Promise<MarketAt> | null = null;
  /** The oldest version still good: a decision said the market moved past the one before it. */
  private atLeast = 0;
  private readonly off = cacheOff('market');

  /**
   * The market as last read, or read now when there is none or it was found stale; one read at a
   * time for the whole process. A read that began before the market was found stale, and so may
   * hold the old version, is not used: the market is read again.
   */
  async get(read: () => Promise<MarketAt>): Promise<MarketAt> {
    for (;;) {
      if (this.current && !this.off && this.current.version >= this.atLeast) return this.current;
      if (!this.reading) {
        this.reading = read().finally(() => {
          this.reading = null;
        });
      }
      const m = await this.reading;
      // A slower read never replaces a newer one.
      if (!this.current || m.version >= this.current.version) this.current = m;
      if (m.version >= this.atLeast) return m;
    }
  }

  /** The decision said the market moved past `version`: the next request reads it again. */
  stale(version: number): void {
    this.atLeast = Math.max(this.atLeast, version + 1);
  }
}
