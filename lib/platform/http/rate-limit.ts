import { env } from '../env';
import { log, describeError } from '../log';

/**
 * Rate limiting (content/docs/rate-limits.md): 120 requests per 60 s per client IP by default, one
 * budget across every rate-limited surface. In process memory unless Upstash is configured,
 * then `@upstash/ratelimit` (sliding window) over `@upstash/redis`, shared by all instances.
 */

export interface RateLimitConfig {
  max: number;
  windowSeconds: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the budget is whole again (Unix milliseconds). */
  resetAt: number;
  /** When this answer was given (Unix milliseconds), if the limiter read the clock. */
  at?: number;
}

export interface RateLimiter {
  readonly config: RateLimitConfig;
  /**
   * Takes `cost` units from `key`'s budget, or none when they do not all fit; a cost of 0 only
   * reads the budget (a preflight's headers). The in-memory limiter answers at once (no promise,
   * so no microtask on every request); a shared one answers when its store has.
   */
  consume(key: string, cost?: number): RateLimitResult | Promise<RateLimitResult>;
  /** Gives back `units` that `key` consumed in this window (an attempt that turned out not to count). */
  refund(key: string, units: number): void | Promise<void>;
  /** Forgets everything `key` has consumed. */
  reset(key: string): void | Promise<void>;
}

export const POLICY_NAME = 'default';

/**
 * What a full in-memory limiter does with a key it has no room for: forget the oldest live
 * window (the API budget: a flood of new addresses must not lock out new clients), or refuse the
 * new key (sign-in budgets: a flood of made-up accounts must not make the limiter forget the
 * failures it is counting).
 */
export type WhenFull = 'forget-oldest' | 'refuse';

/**
 * A fixed window that opens at a client's first request. Entries are swept as they expire,
 * and the map is bounded so a flood of spoofed-looking keys cannot grow it without end.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { used: number; resetAt: number }>();
  private nextSweep = 0;

  constructor(
    readonly config: RateLimitConfig,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 100_000,
    private readonly whenFull: WhenFull = 'forget-oldest',
  ) {}

  consume(key: string, cost = 1): RateLimitResult {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (cost === 0) {
      // A look opens no window: the budget's window still starts at the first counted request.
      const live = w && now < w.resetAt ? w : undefined;
      const used = live?.used ?? 0;
      return {
        allowed: used <= this.config.max,
        limit: this.config.max,
        remaining: Math.max(0, this.config.max - used),
        resetAt: live?.resetAt ?? now + this.config.windowSeconds * 1000,
        at: now,
      };
    }
    if (!w || now >= w.resetAt) {
      w = { used: 0, resetAt: now + this.config.windowSeconds * 1000 };
      if (this.windows.size >= this.maxKeys && this.whenFull === 'refuse' && !this.windows.has(key)) {
        return { allowed: false, limit: this.config.max, remaining: 0, resetAt: now + 1000, at: now };
      }
      this.windows.set(key, w);
    }
    const allowed = w.used + cost <= this.config.max;
    if (allowed) w.used += cost;
    return { allowed, limit: this.config.max, remaining: Math.max(0, this.config.max - w.used), resetAt: w.resetAt, at: now };
  }

  refund(key: string, units: number): void {
    const w = this.windows.get(key);
    if (!w) return;
    w.used = Math.max(0, w.used - units);
    // Nothing left to count: no entry, so refunded attempts never fill the map.
    if (w.used === 0) this.windows.delete(key);
  }

  reset(key: string): void {
    this.windows.delete(key);
  }

  private sweep(now: number): void {
    if (now < this.nextSweep && this.windows.size < this.maxKeys) return;
    this.nextSweep = now + 1000;
    for (const [k, w] of this.windows) if (now >= w.resetAt) this.windows.delete(k);
    if (this.whenFull === 'refuse') return;
    // Still full of live windows: forget the oldest (Map keeps insertion order).
    for (const k of this.windows.keys()) {
      if (this.windows.size < this.maxKeys) break;
      this.windows.delete(k);
    }
  }
}

export interface UpstashOptions {
  url: string;
  token: string;
  /** Key prefix in Redis; tests give each run its own. */
  prefix?: string;
}

/** Shared across instances through Redis. A Redis failure lets the request through (logged). */
export class UpstashRateLimiter implements RateLimiter {
  private limiter: Promise<import('@upstash/ratelimit').Ratelimit> | undefined;

  constructor(
    readonly config: RateLimitConfig,
    private readonly options: UpstashOptions,
  ) {}

  private load() {
    this.limiter ??= (async () => {
      const [{ Ratelimit }, { Redis }] = await Promise.all([import('@upstash/ratelimit'), import('@upstash/redis')]);
      return new Ratelimit({
        // One quick retry: a dead endpoint should fail fast (and open), not hold every request.
        redis: new Redis({ url: this.options.url, token: this.options.token, retry: { retries: 1, backoff: () => 50 } }),
        limiter: Ratelimit.slidingWindow(this.config.max, `${this.config.windowSeconds} s`),
        prefix: this.options.prefix ?? 'monetize:ratelimit',
        analytics: false,
        timeout: 2000,
      });
    })();
    return this.limiter;
  }

  async consume(key: string, cost = 1): Promise<RateLimitResult> {
    try {
      const limiter = await this.load();
      const r = await limiter.limit(key, { rate: cost });
      // On its own timeout the library answers "allowed" with remaining 0 and reset 0: treat it
      // as the outage it is, so the headers do not claim an empty budget.
      if (r.reason === 'timeout') throw new Error('Upstash rate limiter timed out');
      return { allowed: r.success, limit: this.config.max, remaining: Math.max(0, r.remaining), resetAt: r.reset };
    } catch (err) {
      // Failing open: the limit protects the service, it is not a promise to callers; an outage of
      // Redis must not take the API down with it.
      log.error('rate limiter unavailable', describeError(err));
      return { allowed: true, limit: this.config.max, remaining: this.config.max, resetAt: Date.now() + this.config.windowSeconds * 1000 };
    }
  }

  // The sliding window script takes a negative rate as units given back (it refuses only positive ones).
  refund(key: string, units: number): Promise<void> {
    return quietly('refund', async () => (await this.load()).limit(key, { rate: -units }));
  }

  reset(key: string): Promise<void> {
    return quietly('reset', async () => (await this.load()).resetUsedTokens(key));
  }
}

/** A Redis failure while giving back is logged and ignored: the budget then errs on the strict side. */
async function quietly(what: string, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (err) {
    log.error(`rate limiter could not ${what}`, describeError(err));
  }
}

/** The API budget from configuration, or another budget (sign-in attempts) in the same store. */
export function createRateLimiter(override?: RateLimitConfig, prefix?: string, whenFull?: WhenFull): RateLimiter {
  const e = env();
  const config = override ?? { max: e.RATE_LIMIT_MAX, windowSeconds: e.RATE_LIMIT_WINDOW_S };
  if (e.UPSTASH_REDIS_REST_URL && e.UPSTASH_REDIS_REST_TOKEN) {
    return new UpstashRateLimiter(config, { url: e.UPSTASH_REDIS_REST_URL, token: e.UPSTASH_REDIS_REST_TOKEN, prefix });
  }
  return new MemoryRateLimiter(config, Date.now, 100_000, whenFull);
}

/** `Retry-After` for a budget refused until `resetAt` (Unix ms): whole seconds, at least one. */
export function retryAfterSeconds(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

/**
 * The headers content/docs/rate-limits.md documents, to the character, written into `target`;
 * `Retry-After` only when refused. Names are lowercase, as they go on the wire: a Headers object
 * stores names that are already lowercase without converting them (about 5 µs less per response
 * in `npm run bench`).
 */
export function writeRateLimitHeaders(target: Record<string, string>, r: RateLimitResult, config: RateLimitConfig, now: number): void {
  const secondsLeft = Math.max(0, Math.ceil((r.resetAt - now) / 1000));
  const fixed = policyHeaders(config);
  target['ratelimit-policy'] = fixed.policy;
  target['ratelimit'] = `"${POLICY_NAME}";r=${r.remaining};t=${secondsLeft}`;
  target['x-ratelimit-limit'] = fixed.limit;
  target['x-ratelimit-remaining'] = String(r.remaining);
  target['x-ratelimit-reset'] = String(Math.ceil(r.resetAt / 1000));
  if (!r.allowed) target['retry-after'] = String(retryAfterSeconds(r.resetAt, now));
}

export const KEY_POLICY_NAME = 'key';

/**
 * An SDK key's budget (its publisher's, shared by all their keys) beside the address's (written first): both policies in `RateLimit-Policy`
 * and `RateLimit`, as the draft allows a list, and the `X-RateLimit-*` headers of whichever has
 * fewer requests left (or refused).
 */
export function writeKeyRateLimitHeaders(target: Record<string, string>, r: RateLimitResult, config: RateLimitConfig, now: number): void {
  const secondsLeft = Math.max(0, Math.ceil((r.resetAt - now) / 1000));
  target['ratelimit-policy'] = `${target['ratelimit-policy'] ?? ''}, "${KEY_POLICY_NAME}";q=${config.max};w=${config.windowSeconds}`;
  target['ratelimit'] = `${target['ratelimit'] ?? ''}, "${KEY_POLICY_NAME}";r=${r.remaining};t=${secondsLeft}`;
  const addressLeft = Number(target['x-ratelimit-remaining'] ?? Infinity);
  if (!r.allowed || r.remaining < addressLeft) {
    target['x-ratelimit-limit'] = String(config.max);
    target['x-ratelimit-remaining'] = String(r.remaining);
    target['x-ratelimit-reset'] = String(Math.ceil(r.resetAt / 1000));
  }
  if (!r.allowed) target['retry-after'] = String(retryAfterSeconds(r.resetAt, now));
}

/** The two values that depend only on the configuration, made once per configuration. */
let lastConfig: RateLimitConfig | undefined;
let lastFixed = { policy: '', limit: '' };
function policyHeaders(config: RateLimitConfig): { policy: string; limit: string } {
  if (config !== lastConfig) {
    lastFixed = { policy: `"${POLICY_NAME}";q=${config.max};w=${config.windowSeconds}`, limit: String(config.max) };
    lastConfig = config;
  }
  return lastFixed;
}
