// The server under load: its environment, its database prepared before it starts, and starting
// it (with the memory preload of ./memory.mjs) until it answers.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { assertPortFree, launch, logPath, root, tail, waitReady } from '../bench-process.mjs';
import { MEMORY_PRELOAD, memoryFile } from './memory.mjs';
import { DATA_DIR, DIST_DIR, FORCE_GC, HOST, PORT } from './settings.mjs';

const TSX_CLI = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const READY_TIMEOUT_MS = 180_000;
/** The demo publishers (lib/demo/seed.ts), whose keys the load's clients use in turn. */
const PUBLISHERS = ['demo@example.com', 'demo2@example.com'];

/**
 * The server's environment: production, fresh OAuth secrets, the default limits, no Upstash. No
 * SEED_DEMO: prepareDatabase seeds the database (bench-token.ts fresh) before the server starts.
 */
export function serverEnvironment() {
  const env = { ...process.env };
  for (const name of [
    'RATE_LIMIT_MAX',
    'RATE_LIMIT_WINDOW_S',
    'SDK_KEY_RATE_LIMIT_MAX',
    'UPSTASH_REDIS_REST_URL',
    'UPSTASH_REDIS_REST_TOKEN',
    'DATABASE_URL',
    'CACHES_OFF',
    'NODE_OPTIONS',
    'HOST',
  ]) {
    delete env[name];
  }
  return {
    ...env,
    NODE_ENV: 'production',
    // Production refuses OAuth without both (503); fresh ones per run, as playwright.config.ts makes them.
    OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
    NEXT_DIST_DIR: DIST_DIR,
    NEXT_TELEMETRY_DISABLED: '1',
    LOG_LEVEL: 'warn',
    PGLITE_DATA_DIR: DATA_DIR,
    PORT: String(PORT),
    PUBLIC_BASE_URL: `http://${HOST}:${PORT}`,
    LOAD_MEMORY_FILE: memoryFile,
  };
}

function runTsx(script, args, env) {
  const r = spawnSync(process.execPath, [TSX_CLI, script, ...args], { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${script} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout.trim();
}

/**
 * Wipes and seeds the database and mints the demo publisher's token (bench-token.ts fresh), then
 * makes `keys` SDK keys (bench-sdk.ts, no decisions: the load gets its own from /functions/v1/ads),
 * each of the two demo publishers in turn: a publisher's keys share one SDK budget.
 * Before the server starts: the embedded database is one process's.
 */
export function prepareDatabase(env, keys) {
  fs.rmSync(path.join(root, DATA_DIR), { recursive: true, force: true });
  const token = runTsx('scripts/bench-token.ts', ['fresh'], env);
  const sdk = [];
  for (let i = 0; i < keys; i++) sdk.push(JSON.parse(runTsx('scripts/bench-sdk.ts', ['0', PUBLISHERS[i % PUBLISHERS.length]], env)));
  return { token, sdk };
}

export async function startServer(env) {
  await assertPortFree(PORT, 'stop whatever listens there, or set LOAD_PORT');
  fs.rmSync(memoryFile, { force: true });
  const started = Date.now();
  process.stdout.write(`Starting the server on ${HOST}:${PORT} ... `);
  const execArgv = [`--import=data:text/javascript,${encodeURIComponent(MEMORY_PRELOAD)}`, ...(FORCE_GC ? ['--expose-gc'] : [])];
  const child = launch('server', [...execArgv, path.join(root, 'scripts/serve.mjs'), '-H', HOST], { ...env, LOAD_GC: FORCE_GC ? '1' : '0' });
  const why = await waitReady(child, `http://${HOST}:${PORT}/api/v1/pricing`, READY_TIMEOUT_MS);
  if (why) {
    console.log('failed');
    console.error(tail(logPath('server'), 40));
    throw new Error(`the server ${why === 'exited' ? why : `was ${why}`}; log: ${logPath('server')}`);
  }
  console.log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return child;
}
