import { loadOAuthSecrets, type OAuthSecrets } from './identity/secrets';
import { LivePricing } from './money/pricing/settings';
import { openDatabase } from './platform/db/database';
import type { Database } from './platform/db/roles';
import { env, type Env } from './platform/env';
import { keptOnSuccess, type Slot } from './platform/kit/kept';
import { describeError, log } from './platform/log';

/**
 * What the process holds once, apart from the rest of its services (lib/services.ts): its
 * database, and the two things the site's shell reads on every public page, the pricing and the
 * session secret. Each is kept on globalThis, so the services use the very same ones.
 *
 * Why apart: Next compiles every module a page reaches, and lib/services.ts reaches nearly all of
 * lib/ (Stripe, S3, the rate limiters, every route's dependencies). instrumentation.ts, the root
 * layout and the home page import this module instead, a few dozen modules, so `npm run dev`
 * answers its first page seconds sooner (`npm run dev:first-run` measures it), and a public page's
 * server code is the smaller in production too.
 */

/**
 * Whether a start seeds the embedded database with the demo accounts: as SEED_DEMO says, and
 * when it says nothing, outside production only. Their password is published (README), so a
 * production start seeds them only when asked.
 */
export function seedsDemo(e: Pick<Env, 'NODE_ENV' | 'SEED_DEMO'>): boolean {
  return e.SEED_DEMO === undefined ? e.NODE_ENV !== 'production' : e.SEED_DEMO === 'true';
}

/**
 * The process's database, opened and migrated once and kept on globalThis (Next gives
 * instrumentation.ts and the pages modules of their own, and evaluates them again on change in
 * development, and a second PGlite on the same directory would corrupt it). The site's shell reads
 * the pricing and the secrets from it, which the migrations alone provide; the services use it
 * once the demo accounts are seeded where `seedsDemo` says (`processDatabase` in lib/services.ts,
 * where the seed's code is imported, so that no page's shell compiles it). scripts/serve.mjs
 * closes it when the server stops, so PGlite flushes. A failed opening is not kept: the next call
 * tries again.
 */
const OPENED = Symbol.for('monetize.database');
const PRICING = Symbol.for('monetize.pricing');
const SECRETS = Symbol.for('monetize.oauth-secrets');
const held = globalThis as unknown as Record<symbol, unknown>;

export function openedDatabase(): Promise<Database> {
  return keptInProcess(OPENED, openDatabase);
}

/** The pricing settings the process reads, reread at most every 15 seconds (lib/money/pricing/settings.ts); `services().pricing` is this one. */
export function processPricing(): LivePricing {
  return (held[PRICING] ??= new LivePricing(openedDatabase, Date.now)) as LivePricing;
}

/** The token signing key and session secret, or null when the deployment lacks them; `services().oauthSecrets()` answers these. */
export function processOAuthSecrets(): Promise<OAuthSecrets | null> {
  return keptInProcess(SECRETS, () => loadOAuthSecrets(openedDatabase));
}

/** The first successful answer of `load`, kept on globalThis under `key`; a failure is not, so the next call tries again. */
export function keptInProcess<T>(key: symbol, load: () => Promise<T>): Promise<T> {
  return keptOnSuccess(slotOf(key) as Slot<T>, load);
}

/** The slot on globalThis under `key`, made once: the database and the secrets are asked for on every request. */
const slots = new Map<symbol, Slot<unknown>>();
function slotOf(key: symbol): Slot<unknown> {
  const made = slots.get(key);
  if (made) return made;
  const slot: Slot<unknown> = {
    get: () => held[key] as Promise<unknown> | undefined,
    set: (value) => {
      if (value) held[key] = value;
      else delete held[key];
    },
  };
  slots.set(key, slot);
  return slot;
}

/**
 * Opens the process's database as the server starts (instrumentation.ts calls it in the Node.js
 * runtime only, so nothing here is compiled for the Edge runtime), creating and migrating the
 * embedded one, so that requests find it open.
 *
 * A production server waits for it before it listens, and then seeds it (where `seedsDemo` says
 * so) as its timers start (`startTimers` in lib/services.ts). The development server waits for
 * neither: Next compiles the first page a developer asks for meanwhile, and the demo accounts are
 * seeded by the first request that uses the services (a sign-in, the demo app, a console, the API).
 * The public pages never need them, and seeding during that first compile made it a second slower
 * on two cores (`npm run dev:first-run`).
 *
 * A database that cannot open now is retried on the first request that needs it; an embedded one
 * that another process has is not, and the server stops, saying which process it is. Answers
 * whether it opened (always false in development, which does not wait).
 */
export async function openAtStart(): Promise<boolean> {
  const opening = openedDatabase().then(
    () => true,
    (err: unknown) => {
      if (err instanceof Error && err.name === 'DataDirInUse') {
        console.error(err.message);
        process.exit(1);
      }
      log.error('database did not open at start', describeError(err));
      return false;
    },
  );
  return env().NODE_ENV === 'development' ? false : opening;
}
