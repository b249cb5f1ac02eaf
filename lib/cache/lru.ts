/**
 * A small least-recently-used map for values that never go stale while the process runs
 * (search results over an index built once). A Map keeps insertion order, so the first key
 * is the least recently used.
 */
export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  /** The most recently used key: a hit on it needs no reordering (a hot key asked for again). */
  private newest: K | undefined;

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined && key !== this.newest) {
      this.map.delete(key);
      this.map.set(key, value);
      this.newest = key;
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    this.newest = key;
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  clear(): void {
    this.map.clear();
    this.newest = undefined;
  }

  get size(): number {
    return this.map.size;
  }
}
