// The load run's settings from the environment (scripts/load-run.mjs lists them all) and its
// fixed numbers. A value that is not a positive number ends the run with exit status 2.

export const DIST_DIR = '.next-load';
// Must end in `bench`: scripts/bench-sdk.ts refuses to write keys into any other database.
export const DATA_DIR = '.data/load-bench';
export const HOST = '127.0.0.1';

export const CLIENTS = int('LOAD_CLIENTS', 100);
export const LOAD_SECONDS = num('LOAD_SECONDS', 60);
export const IDLE_SECONDS = num('LOAD_IDLE_SECONDS', 60);
export const OVER = num('LOAD_OVER', 1.1);
export const WARMUP_CLIENTS = int('LOAD_WARMUP_CLIENTS', 20);
export const WARMUP_SECONDS = num('LOAD_WARMUP_SECONDS', 15);
export const SETTLE_SECONDS = num('LOAD_SETTLE_SECONDS', 10);
export const TIMEOUT_MS = int('LOAD_TIMEOUT_MS', 10_000);
export const PORT = int('LOAD_PORT', 3310);
export const SKIP_BUILD = process.env.LOAD_SKIP_BUILD === '1';
export const FORCE_GC = process.env.LOAD_GC === '1';
export const MEMORY_TOLERANCE = 0.1;
/** The server's defaults (lib/platform/env.ts); checked against its headers once it runs. */
export const DEFAULT_KEY_MAX = 6000;
if (CLIENTS > 250 * 256) fail(`LOAD_CLIENTS at most ${250 * 256} (one 127.1.x.y address each)`);

function num(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) fail(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}
export function int(name, fallback) {
  return Math.max(1, Math.round(num(name, fallback)));
}
function fail(message) {
  console.error(message);
  process.exit(2);
}
