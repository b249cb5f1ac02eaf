import { env } from '../env';

/**
 * The in-process caches, by name. Those on the paths `npm run bench` measures (search-pages,
 * pricing, sandbox, tokens, account, market) are kept only because their endpoint ran at least 5% faster with
 * them than without them in the same run; `CACHES_OFF=<name>[,<name>…]` turns caches off, which
 * is how the bench measures them (and a way to rule one out when debugging). client-metadata
 * follows HTTP caching, each miss being a fetch from another server.
 */
export const CACHE_NAMES = ['search-pages', 'pricing', 'sandbox', 'tokens', 'account', 'market', 'ask-answers', 'client-metadata'] as const;
export type CacheName = (typeof CACHE_NAMES)[number];

/** True when configuration turned the named cache off. */
export function cacheOff(name: CacheName): boolean {
  return env().CACHES_OFF.includes(name);
}

/**
 * A small least-recently-used map for values that never go stale while the process runs
 * (search results over an index built once). A Map keeps insertion order, so the first key
 * is the least recently used. A cache turned off keeps nothing.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private readonly off: boolean;

  constructor(
    name: CacheName,
    private readonly max: number,
  ) {
    this.off = cacheOff(name);
  }

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.off) return;
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  clear(): void {
    this.map.clear();
  }

  get size(): number {
    return this.map.size;
  }
}
