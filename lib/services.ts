import { randomBytes } from 'node:crypto';
import { createAttemptLimiters, type AttemptLimiters } from './auth/throttle';
import { openDatabase } from './db/database';
import type { Engine } from './db/engine';
import { serviceSecret } from './db/service-secrets';
import { createRateLimiter, type RateLimiter } from './http/rate-limit';
import { describeError, log } from './log';
import { loadOAuthSecrets, type OAuthSecrets } from './oauth/secrets';
import { LivePricing } from './pricing/settings';

/**
 * What the service depends on and a test replaces: the database, the rate limiters, the clock
 * and the secrets kept in the database. The kernel hands them to every handler as `ctx.services`
 * and handlers pass on what they use; nothing below reaches for a dependency of its own.
 *
 * A running process has one set, made from the environment on first use (`services()`). A test
 * makes its own with `createServices` and runs a route with it (`route.with(services)`), so no
 * production module keeps a setter for tests.
 */
export interface Services {
  /** The database, opened (and migrated) on first use. */
  database(): Promise<Engine>;
  /** The API budget per client address. */
  readonly rateLimiter: RateLimiter;
  /** The budgets of sign-in and sign-up attempts. */
  readonly attempts: AttemptLimiters;
  /** Milliseconds since the epoch. */
  now(): number;
  /** The token signing key and session secret, or null when the deployment lacks them. */
  oauthSecrets(): Promise<OAuthSecrets | null>;
  /** The key pagination cursors are signed with, the same on every instance. */
  cursorKey(): Promise<Buffer>;
  /** The pricing settings, reread at most every 15 seconds. */
  readonly pricing: LivePricing;
}

export interface ServiceOverrides {
  /** An engine already open, or how to open one; by default the environment's (DATABASE_URL, or PGlite). */
  database?: Engine | (() => Promise<Engine>);
  rateLimiter?: RateLimiter;
  attempts?: AttemptLimiters;
  now?: () => number;
}

export function createServices(overrides: ServiceOverrides = {}): Services {
  const given = overrides.database;
  const database = typeof given === 'function' ? retrying(given) : given ? () => Promise.resolve(given) : retrying(openDatabase);
  const now = overrides.now ?? Date.now;
  return {
    database,
    rateLimiter: overrides.rateLimiter ?? createRateLimiter(),
    attempts: overrides.attempts ?? createAttemptLimiters(),
    now,
    oauthSecrets: retrying(async () => loadOAuthSecrets(database)),
    cursorKey: once(async () => {
      try {
        const stored = await serviceSecret('cursor_key', () => randomBytes(32).toString('base64url'), await database());
        return Buffer.from(stored, 'base64url');
      } catch (err) {
        // Without the database, cursors still work, but only within this process.
        log.warn('cursor key not stored; using a key of this process only', describeError(err));
        return randomBytes(32);
      }
    }),
    pricing: new LivePricing(database, now),
  };
}

/** The first answer of `load`, kept. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => (kept ??= load());
}

/** The first successful answer of `load`, kept; a failure is not, so the next call tries again. */
function retrying<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => {
    if (!kept) {
      const attempt = load();
      kept = attempt;
      attempt.catch(() => {
        if (kept === attempt) kept = undefined;
      });
    }
    return kept;
  };
}

/**
 * The process's services. Kept on globalThis because Next's dev server evaluates modules again
 * on change, and a second PGlite on the same directory would corrupt it.
 */
const KEY = Symbol.for('monetize.services');
type Holder = { [KEY]?: Services };

export function services(): Services {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= createServices());
}
