/**
 * The fuzzer's randomness: mulberry32, a small 32-bit PRNG, seeded per request from the run's
 * seed and the request's index, so request `i` of seed `s` is the same whatever ran before it
 * (and can be replayed alone with FUZZ_ONLY=i). Never Math.random or crypto: a seed must say it all.
 */

import { mulberry32 } from '@/lib/platform/random';

export { mulberry32 };

/** The seed of request `index` of a run: the run's seed and the index mixed (murmur3's finalizer). */
export function streamSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** `FUZZ_SEED` as given: decimal or `0x` hex, a 32-bit unsigned integer. */
export function parseSeed(text: string | undefined, fallback: number): number {
  if (text === undefined || text.trim() === '') return fallback;
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t.slice(2), 16) : /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff)
    throw new Error(`FUZZ_SEED must be a 32-bit unsigned integer (decimal or 0x hex), not ${JSON.stringify(text)}`);
  return n;
}

export function formatSeed(seed: number): string {
  return `0x${seed.toString(16).padStart(8, '0')}`;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  static forRequest(seed: number, index: number): Rng {
    return new Rng(streamSeed(seed, index));
  }

  /** In [0, 1). */
  float(): number {
    return this.next();
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of `entries`, each as likely as its weight. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [value, w] of entries) {
      r -= w;
      if (r < 0) return value;
    }
    return entries[entries.length - 1]![0];
  }

  /** `count` distinct items of `items`, in a random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, count);
  }

  string(length: number, alphabet = BASE62): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[Math.floor(this.next() * alphabet.length)];
    return out;
  }

  hex(length: number): string {
    return this.string(length, '0123456789abcdef');
  }

  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[this.int(0, 3)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}
