// What the target's database must hold before an endpoint is measured, made by the TypeScript
// helpers with the server's environment: the demo publisher's access token (scripts/bench-token.ts)
// and the SDK load's key, placement and decisions (scripts/bench-sdk.ts).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { root } from '../bench-process.mjs';
import { positiveNumber } from './settings.mjs';

/**
 * An access token for the demo publisher, from scripts/bench-token.ts run with the server's
 * environment (`fresh`: it first makes the database fresh).
 */
export function mintToken(serverEnv, fresh, cwd = root) {
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/bench-token.ts', ...(fresh ? ['fresh'] : [])], {
    cwd,
    env: { ...process.env, ...serverEnv },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`scripts/bench-token.ts failed: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
}

/**
 * The SDK load's key, placement and decisions on the target's database (scripts/bench-sdk.ts of
 * the target's own checkout, `cwd`), once per run and database. BENCH_SDK_DECISIONS: how many
 * decisions the events endpoint may use up.
 */
const SDK_DECISIONS = Math.round(positiveNumber('BENCH_SDK_DECISIONS', 4_000_000));
const sdkPrepared = new Map();
export function prepareSdk(serverEnv, cwd = root) {
  const database = serverEnv.DATABASE_URL;
  if (sdkPrepared.has(database)) return sdkPrepared.get(database);
  process.stdout.write(`(preparing ${SDK_DECISIONS} decisions) `);
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/bench-sdk.ts', String(SDK_DECISIONS)], {
    cwd,
    env: { ...process.env, ...serverEnv },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`scripts/bench-sdk.ts failed: ${r.stderr || r.stdout}`);
  sdkPrepared.set(database, JSON.parse(r.stdout));
  return sdkPrepared.get(database);
}
