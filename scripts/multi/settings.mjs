// The numbers of `npm run test:instances` (scripts/multi-instance.mjs), in one place. Each may be
// overridden from the environment (INSTANCES_<NAME>), but the defaults are what the run in
// ARCHITECTURE.md ("Many instances") used; the limits below are chosen together, see each comment.

function number(name, fallback) {
  const raw = process.env[`INSTANCES_${name}`];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`INSTANCES_${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return value;
}

/** The PostgreSQL server (trust auth) and the database the run makes, and drops at the end. */
export const POSTGRES_SERVER = process.env.INSTANCES_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const DATABASE_NAME = 'monetize_instances';

/** Where the build goes: a dist dir of its own, so that a concurrent `npm run test:e2e` rebuilding .next-test cannot pull files from under the servers. */
export const DIST_DIR = '.next-instances';

/** The balancer, then the three instances. All on 127.0.0.1. */
export const BALANCER_PORT = number('PORT', 3410);
export const INSTANCE_PORTS = [BALANCER_PORT + 1, BALANCER_PORT + 2, BALANCER_PORT + 3];

/** Seconds during which the simulated browsers start new page views; those under way then finish. */
export const TRAFFIC_SECONDS = number('SECONDS', 45);
/** Simulated browsers: each its own loopback address and user agent, half on each demo publisher. */
export const CLIENTS = Math.round(number('CLIENTS', 150));

/**
 * The rate-limit window, short so that the sharing checks at the end fit into one window, and the
 * two budgets. Chosen so that the traffic never reaches them: a browser sends about 4 requests per
 * window (RATE_LIMIT_MAX 40), and each demo publisher's 75 browsers about 300 (SDK_KEY_RATE_LIMIT_MAX
 * 500); the checks then spend a fresh address's and a fresh publisher's budget on purpose.
 */
export const WINDOW_S = Math.round(number('WINDOW_S', 10));
export const ADDRESS_LIMIT = Math.round(number('ADDRESS_LIMIT', 40));
export const KEY_LIMIT = Math.round(number('KEY_LIMIT', 500));

/** Seconds between two roll-ups in each instance. */
export const ROLLUP_INTERVAL_S = 2;

/**
 * The campaign whose budget the traffic exceeds. It serves with a large budget until the ads it
 * served are worth BUDGET_USD plus OVER_BY impressions, then its budget is cut to BUDGET_USD (see
 * scripts/multi-instance.mjs, "Why the budget is cut"); its ads' impressions, still to come, are
 * then worth more than what is left of it. Sponsored cards cost $0.008 each at the seeded prices.
 */
export const BUDGET_USD = number('BUDGET_USD', 2);
export const OVER_BY = 40;
/**
 * Seconds between an ad and its impression: at least the format's second in view (plus a margin
 * for the clocks), up to a few more, as for an ad further down a page. The longer the delay, the
 * more ads are served and not yet billed when the budget is cut.
 */
export const VIEW_DELAY_S = [1.2, 8];

/** When things happen, in seconds after the traffic starts. */
export const REVOKE_AT_S = number('REVOKE_AT_S', 8);
export const KILL_AT_S = number('KILL_AT_S', 20);
export const RESTART_AT_S = number('RESTART_AT_S', 27);
/** The instance killed (0-based): the second. */
export const KILLED = 1;

/** How long a revoked key may still be accepted on an instance (the docs: within 5 s). */
export const REVOCATION_BOUND_MS = 5_000;

/** A request not answered in this time is abandoned (and retried as a failure). */
export const REQUEST_TIMEOUT_MS = 15_000;
/**
 * The browsers' retry delays after a network failure, a 429 or a 5xx: the SDK's are 5, 10, 20 and
 * 40 s (ARCHITECTURE.md, The browser SDK); the same schedule divided by 10 keeps the run short.
 */
export const RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000];
