import { randomBytes } from 'node:crypto';
import { Lru } from './platform/cache/lru';
import { createAttemptLimiters, type AttemptLimiters } from './identity/auth/throttle';
import { createActionLimiters, type ActionLimiters } from './platform/kit/action-limit';
import { retrying } from './platform/kit/kept';
import type { Database } from './platform/db/roles';
import { dataEncryptionKey, serviceSecret } from './platform/db/service-secrets';
import { createRateLimiter, type RateLimiter } from './platform/http/rate-limit';
import { describeError, log } from './platform/log';
import type { AskAnswers } from './docs/ask/answer';
import { verifiedTokens, type VerifiedTokens } from './identity/oauth/bearer';
import { MetadataFetchBudget } from './identity/oauth/client-lookup';
import { loadOAuthSecrets, type OAuthSecrets } from './identity/secrets';
import { LivePricing } from './money/pricing/settings';
import type { ImpressionLimits } from './ads/serving/events';
import { SdkDirectory } from './identity/keys/directory';
import { env } from './platform/env';
import { stripeRail, type StripeRail } from './money/stripe/rail';
import { objectStorage, type ObjectStorage } from './platform/storage';
import type { AccountAnswers } from './account/reads';
import { MarketCache } from './ads/serving/market-cache';
import { openDatabase } from './platform/db/database';
import { keptInProcess, openedDatabase, processOAuthSecrets, processPricing, seedsDemo } from './process';

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
  database(): Promise<Database>;
  /** The API budget per client address. */
  readonly rateLimiter: RateLimiter;
  /** The budgets of sign-in and sign-up attempts. */
  readonly attempts: AttemptLimiters;
  /** The budgets of the consoles' server actions, per account and address (lib/platform/kit/action-limit.ts). */
  readonly actionLimits: ActionLimiters;
  /** Milliseconds since the epoch. */
  now(): number;
  /** The token signing key and session secret, or null when the deployment lacks them. */
  oauthSecrets(): Promise<OAuthSecrets | null>;
  /** The key pagination cursors are signed with, the same on every instance. */
  cursorKey(): Promise<Buffer>;
  /** The pricing settings, reread at most every 15 seconds. */
  readonly pricing: LivePricing;
  /** The SDK budget of each publisher, shared by all their keys, on top of the address's (content/docs/rate-limits.md). */
  readonly keyRateLimiter: RateLimiter;
  /** The hourly caps on billable impressions, per network and per publisher (lib/ads/serving/events.ts). */
  readonly impressionLimits: ImpressionLimits;
  /** Free sample views per data buyer and hour (lib/data/buyers/catalog.ts, listingSample). */
  readonly sampleViews: RateLimiter;
  /** The SDK keys and apps this instance looked up, trusted for a few seconds (lib/identity/keys/directory.ts). */
  readonly sdkDirectory: SdkDirectory;
  /** This instance's caches of answers that cannot go stale (Caches, below). */
  readonly caches: Caches;
  /** The key that signs decision tokens and hashes client addresses, the same on every instance. */
  sdkSecret(): Promise<Buffer>;
  /** The key that encrypts payout details, staff TOTP secrets and data buyers' webhook secrets (lib/platform/db/service-secrets.ts, dataEncryptionKey). */
  dataKey(): Promise<Buffer>;
  /** Stripe Connect as a payout rail, when configured (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET); null: the manual rail only. */
  readonly stripe: StripeRail | null;
  /** How many client metadata documents this instance may fetch, per address and overall (lib/identity/oauth/client-lookup.ts). */
  readonly metadataFetches: MetadataFetchBudget;
  /** Where uploaded files (creatives' images and videos) and data exports are kept: a local folder, or an S3 bucket (STORAGE_DRIVER; lib/platform/storage/). */
  readonly storage: ObjectStorage;
  /** The key that makes export pseudonyms and signs download links, the same on every instance (lib/data/buyers/export-job.ts). */
  exportSecret(): Promise<Buffer>;
  /** Runs the export job (and the deletion webhooks' deliveries) now, when this process runs it (the long-running server does; tests run it themselves). */
  readonly exports: { kick(): void };
  /** The scheduler's secret for `/api/cron/data-jobs` (CRON_SECRET), or null when scheduled calls are off. */
  readonly cronSecret: string | null;
}

/**
 * The in-process caches, one set per set of services, so fresh services mean fresh caches. Each
 * keeps answers that cannot go stale while the process runs, and each on a path `npm run bench`
 * measures stays only because its endpoint ran at least 5% faster with it than without it in the
 * same run (`CACHES_OFF=<name>` turns one off, which is how the bench measures it;
 * lib/platform/cache/lru.ts).
 */
export interface Caches {
  /** Verified access tokens (lib/identity/oauth/bearer.ts): real-token reads ran over 10% slower without it. */
  readonly tokens: VerifiedTokens;
  /**
   * Search answers as sent, by query, limit and offset, with the key their cursor was signed
   * with (lib/routes/search.ts): the index does not change while the process runs. The search
   * ran over 5% slower without it.
   */
  readonly searchPages: Lru<string, { key: Buffer; text: string }>;
  /** The sandbox's account answers as sent (lib/routes/account.ts): the sandbox's /me/apps ran about 10% slower without it. */
  readonly sandboxReplies: Lru<string, string>;
  /**
   * Users' timeless account reads, each kept with the database snapshot it was read in and
   * answered again only while that snapshot is unchanged (lib/account/reads.ts, AccountAnswers).
   */
  readonly accountAnswers: AccountAnswers;
  /** Answers of /ask and the A2A agent (lib/docs/ask/answer.ts): the docs do not change while the process runs. */
  readonly askAnswers: AskAnswers;
  /** The campaigns' hints and the apps' excluded topics that conversations are read against, with the version they were read at (lib/ads/serving/market.ts). */
  readonly adMarket: MarketCache;
}

function createCaches(): Caches {
  return {
    tokens: verifiedTokens(),
    searchPages: new Lru('search-pages', 500),
    sandboxReplies: new Lru('sandbox', 100),
    accountAnswers: new Lru('account', 1000),
    // The docs' answers (lib/docs/ask/answer.ts), imported as a type only: the search index is the /ask route's.
    askAnswers: new Lru('ask-answers', 500),
    adMarket: new MarketCache(),
  };
}

export interface ServiceOverrides {
  /** An engine already open, or how to open one; by default the environment's (DATABASE_URL, or PGlite). */
  database?: Database | (() => Promise<Database>);
  rateLimiter?: RateLimiter;
  keyRateLimiter?: RateLimiter;
  impressionLimits?: ImpressionLimits;
  sampleViews?: RateLimiter;
  attempts?: AttemptLimiters;
  actionLimits?: ActionLimiters;
  now?: () => number;
  /** Runs the ad traffic roll-up this often once the database is open (the process's set does; tests run it themselves). */
  rollUpEveryMs?: number;
  /** Stripe Connect as a payout rail: by default as configured (lib/money/stripe/rail.ts); tests give one that talks to a local stand-in. */
  stripe?: StripeRail | null;
  /** The file store: by default as configured (STORAGE_DRIVER); tests give a folder of their own, or an S3 stand-in. */
  storage?: ObjectStorage;
  /** The scheduler's secret: by default CRON_SECRET; tests give their own (null: none). */
  cronSecret?: string | null;
  /** The pricing settings as read: by default a reader of this set's own database. */
  pricing?: LivePricing;
  /** The token signing key and session secret: by default loaded from this set's own database. */
  oauthSecrets?: () => Promise<OAuthSecrets | null>;
}

/** `engine`, once the demo accounts are in it where `seedsDemo` says so (they are written the first time only). */
async function seeded(engine: Database): Promise<Database> {
  // The seed's code (the demo's data) is imported only where it runs.
  if (engine.kind === 'pglite' && seedsDemo(env()) && (await (await import('./demo/seed')).seed(engine))) log.info('demo accounts seeded');
  return engine;
}

/**
 * The environment's database, migrated, and seeded where `seedsDemo` says (a real PostgreSQL is
 * seeded on purpose, `npm run db:seed`). A new one each call: what a test's services open.
 */
export async function openProcessDatabase(): Promise<Database> {
  return seeded(await openDatabase());
}

/**
 * The process's database (lib/process.ts's `openedDatabase`, the very same one) once seeded where
 * `seedsDemo` says: what the process's services use. Kept on globalThis like it; a failed seed is
 * not kept, so the next call tries again.
 */
export function processDatabase(): Promise<Database> {
  return keptInProcess(Symbol.for('monetize.database.seeded'), async () => seeded(await openedDatabase()));
}

/** How often the long-running server deletes creatives' files that may go (and, once an hour, files no table knows). */
const FILE_SWEEP_EVERY_MS = 60_000;

/** How often the long-running server looks for exports to write, besides a purchase's kick. */
const EXPORT_EVERY_MS = 5_000;

export function createServices(overrides: ServiceOverrides = {}): Services {
  const given = overrides.database;
  const open = typeof given === 'function' ? retrying(given) : given ? () => Promise.resolve(given) : retrying(openProcessDatabase);
  const storage = overrides.storage ?? objectStorage();
  let scheduled = false;
  // The export job runs where the roll-up runs, from when the database is open: in the long-running server.
  let exportJob: { kick(): void } | undefined;
  const database = !overrides.rollUpEveryMs
    ? open
    : async () => {
        const engine = await open();
        if (!scheduled) {
          scheduled = true;
          // Imported here, not at the top: most pages import this module, and the timers' code
          // (the roll-up, the export job with its Parquet writer, the file sweep) is the server's
          // alone. A page's first compile is the shorter for it (`npm run dev:first-run`).
          const [{ scheduleRollUps }, { scheduleExports }, { scheduleFileSweeps }] = await Promise.all([
            import('./ads/serving/rollup'),
            import('./data/buyers/export-job'),
            import('./ads/advertisers/files'),
          ]);
          scheduleRollUps(open, overrides.rollUpEveryMs!);
          // The same timer sends deletion notices to buyers' webhooks (lib/data/buyers/webhooks.ts).
          exportJob = scheduleExports(open, storage, exportSecret, EXPORT_EVERY_MS, dataKey);
          // And the creatives' files no creative or recent decision names (lib/ads/advertisers/files.ts).
          scheduleFileSweeps(open, storage, FILE_SWEEP_EVERY_MS);
        }
        return engine;
      };
  const now = overrides.now ?? Date.now;
  const exportSecret = retrying(() => storedKey('data_export_key', database));
  const dataKey = retrying(async () => dataEncryptionKey(await database()));
  const exports = { kick: () => exportJob?.kick() };
  return {
    database,
    rateLimiter: overrides.rateLimiter ?? createRateLimiter(),
    attempts: overrides.attempts ?? createAttemptLimiters(),
    actionLimits: overrides.actionLimits ?? createActionLimiters(),
    now,
    oauthSecrets: overrides.oauthSecrets ?? retrying(async () => loadOAuthSecrets(database)),
    cursorKey: once(async () => {
      try {
        return await storedKey('cursor_key', database);
      } catch (err) {
        // Without the database, cursors still work, but only within this process.
        log.warn('cursor key not stored; using a key of this process only', describeError(err));
        return randomBytes(32);
      }
    }),
    pricing: overrides.pricing ?? new LivePricing(database, now),
    keyRateLimiter:
      overrides.keyRateLimiter ?? createRateLimiter({ max: env().SDK_KEY_RATE_LIMIT_MAX, windowSeconds: env().RATE_LIMIT_WINDOW_S }, 'monetize:sdk-key'),
    impressionLimits: overrides.impressionLimits ?? {
      network: createRateLimiter({ max: env().SDK_NETWORK_IMPRESSIONS_PER_HOUR, windowSeconds: 3600 }, 'monetize:impressions-network'),
      publisher: createRateLimiter({ max: env().SDK_PUBLISHER_IMPRESSIONS_PER_HOUR, windowSeconds: 3600 }, 'monetize:impressions-publisher'),
    },
    sampleViews: overrides.sampleViews ?? createRateLimiter({ max: env().DATA_SAMPLE_VIEWS_PER_HOUR, windowSeconds: 3600 }, 'monetize:data-samples'),
    sdkDirectory: new SdkDirectory(now),
    caches: createCaches(),
    // Tokens signed by one instance are checked by another: no fallback to a key of this
    // process, and a failure is retried on the next request.
    sdkSecret: retrying(() => storedKey('sdk_token_key', database)),
    dataKey,
    stripe: overrides.stripe === undefined ? stripeRail() : overrides.stripe,
    metadataFetches: new MetadataFetchBudget(now),
    // Touches nothing until a file is stored or read (the local folder is made on the first write; the S3 client is loaded on first use).
    storage,
    exportSecret,
    exports,
    cronSecret: overrides.cronSecret === undefined ? (env().CRON_SECRET ?? null) : overrides.cronSecret,
  };
}

/** 32 random bytes kept in `service_secrets` under `name`, made on first use. */
async function storedKey(name: string, database: () => Promise<Database>): Promise<Buffer> {
  return Buffer.from(await serviceSecret(name, () => randomBytes(32).toString('base64url'), await database()), 'base64url');
}

/** The first answer of `load`, kept. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let kept: Promise<T> | undefined;
  return () => (kept ??= load());
}

/**
 * The process's services. Kept on globalThis because Next's dev server evaluates modules again
 * on change (and gives instrumentation.ts and the pages modules of their own): one set of caches
 * and limiters per process. The database itself is lib/process.ts's, so a second PGlite is never
 * opened on the same directory, which would corrupt it.
 */
const KEY = Symbol.for('monetize.services');
type Holder = { [KEY]?: Services };

export function services(): Services {
  const holder = globalThis as Holder;
  // The database, pricing and secrets are the process's own (lib/process.ts), shared with the site's shell.
  return (holder[KEY] ??= createServices({
    database: processDatabase,
    pricing: processPricing(),
    oauthSecrets: processOAuthSecrets,
    rollUpEveryMs: env().ROLLUP_INTERVAL_S * 1000,
  }));
}

/**
 * Starts the long-running server's timers (the traffic roll-up, the export job, the file sweep),
 * which start with the services' first use of the database, after the demo seed where there is
 * one: a production server calls it as it starts (instrumentation.ts), so it listens seeded and the
 * timers do not wait for a first request. A database that cannot open now is tried again by that
 * first request.
 */
export async function startTimers(): Promise<void> {
  try {
    await services().database();
  } catch (err) {
    log.error('timers not started at start', describeError(err));
  }
}
