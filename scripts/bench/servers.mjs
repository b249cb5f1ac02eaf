// The servers the bench starts: the targets the endpoints run on, the bare baseline beside them,
// the environment they get, and starting one until it answers (stopping is scripts/bench-process.mjs's).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import path from 'node:path';
import postgres from 'postgres';
import { assertPortFree, launch, logPath, root, tail, waitReady } from '../bench-process.mjs';
import { BEFORE, BEFORE_TARGET } from './before.mjs';

export const NEXT_BIN = path.join(root, 'node_modules/next/dist/bin/next');
export const APP_DIST_DIR = '.next-bench'; // not `.next`, so a developer's build or dev server is untouched

/**
 * Servers the endpoints run on. A target is a server configuration; endpoints name theirs.
 * Only one target server runs at a time, on its port, started before its endpoints are measured.
 * Each target's database is made fresh (created, migrated, seeded) before its first endpoint.
 * The PostgreSQL target uses a database `monetize_bench` on BENCH_POSTGRES_URL (default: the
 * local server), created anew; when no server answers there, its endpoints are skipped.
 */
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const TARGETS = {
  pglite: {
    port: 3300,
    // DATABASE_URL blank: the embedded database even if the shell points at a real one.
    env: { PGLITE_DATA_DIR: '.data/bench', DATABASE_URL: '' },
    ready: '/api/v1/pricing', // polled until 200 before measuring
  },
  postgres: {
    port: 3302,
    env: { DATABASE_URL: databaseOn(POSTGRES_SERVER, 'monetize_bench') },
    ready: '/api/v1/pricing',
    create: () => freshDatabase('monetize_bench'),
  },
};
// BENCH_BEFORE (./before.mjs): that revision's checkout, served beside ours, on the embedded
// database and on a PostgreSQL database of its own, migrated and filled by its own scripts.
if (BEFORE) {
  TARGETS.before = BEFORE_TARGET;
  TARGETS['before-postgres'] = {
    port: 3304,
    cwd: BEFORE_TARGET.cwd,
    env: { DATABASE_URL: databaseOn(POSTGRES_SERVER, 'monetize_before_bench') },
    ready: '/api/v1/pricing',
    create: () => freshDatabase('monetize_before_bench'),
  };
}

/** Creates the database `name` anew on the PostgreSQL server; false when none answers. */
async function freshDatabase(name) {
  const admin = postgres(POSTGRES_SERVER, { max: 1, connect_timeout: 5, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.unsafe(`create database ${name}`);
    return true;
  } catch (err) {
    console.log(`  (no PostgreSQL at ${new URL(POSTGRES_SERVER).host}: ${err.message}; its endpoints are skipped)`);
    return false;
  } finally {
    await admin.end({ timeout: 1 });
  }
}

function databaseOn(serverUrl, name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The bare route handler every endpoint is compared with. */
export const BASELINE = { name: 'baseline GET /api/ping', port: 3301, path: '/api/ping', dir: 'bench/baseline' };

/** Variables every target server gets, on top of its own `env`. */
export const TARGET_ENV = {
  NODE_ENV: 'production',
  // Production needs both for OAuth; the bench makes its own, and signs its tokens with the key.
  OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
  NEXT_DIST_DIR: APP_DIST_DIR,
  NEXT_TELEMETRY_DISABLED: '1',
  // The demo accounts: bench-token.ts seeds the fresh databases itself, but the BENCH_BEFORE
  // server seeds its own on start, which production does only when asked.
  SEED_DEMO: 'true',
  LOG_LEVEL: 'warn', // a log line per request would measure logging, not serving
  RATE_LIMIT_MAX: '1000000000', // one client sends every request: never limit it
  SDK_KEY_RATE_LIMIT_MAX: '1000000000', // nor its one key
  SDK_NETWORK_IMPRESSIONS_PER_HOUR: '1000000000', // nor cap the impressions of its one network
  SDK_CLIENT_IMPRESSIONS_PER_HOUR: '1000000000', // the same by its old name, for a BENCH_BEFORE revision that reads only that
  // Nor the frequency cap of that network: the ads bench's requests all come from 127.0.0.1, and the
  // bench campaign, which dwarfs the market, would stop filling after 400 of them (4 x its cap).
  SDK_NETWORK_FREQUENCY_FACTOR: '0',
  SDK_PUBLISHER_IMPRESSIONS_PER_HOUR: '1000000000', // and one publisher
  // The in-memory limiter even if the shell has Upstash credentials: no network in the numbers.
  UPSTASH_REDIS_REST_URL: '',
  UPSTASH_REDIS_REST_TOKEN: '',
};

const READY_TIMEOUT_MS = 120_000; // a fresh embedded database is created, migrated and seeded at start

/** Starts a server and waits until it answers; `quiet` prints nothing (it ends a progress line). */
export async function startServer(name, port, args, env, readyPath, quiet = false, cwd = root) {
  await assertPortFree(port);
  const started = Date.now();
  if (!quiet) process.stdout.write(`Starting ${name} on port ${port} ... `);
  const child = launch(`server-${name}`, args, { ...process.env, ...env }, cwd);
  const why = await waitReady(child, `http://127.0.0.1:${port}${readyPath}`, READY_TIMEOUT_MS);
  if (why) {
    console.error(tail(logPath(child.logName), 30));
    throw new Error(`${child.logName} ${why}; log: ${logPath(child.logName)}`);
  }
  if (!quiet) console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return child;
}
