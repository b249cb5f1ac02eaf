// One endpoint measured against the baseline: rounds of freshly started servers (its target and
// the baseline), each warmed, then taking turns under load in slice pairs.
import path from 'node:path';
import { root, stop } from '../bench-process.mjs';
import { mintToken, prepareSdk } from './fixtures.mjs';
import { combine, measure } from './measure.mjs';
import { sdkLoadFor } from './sdk-load.mjs';
import { BASELINE, NEXT_BIN, startServer, TARGET_ENV, TARGETS } from './servers.mjs';
import { PAIRS, ROUNDS, SLICE, WARMUP } from './settings.mjs';
import { bootstrapInterval } from './statistics.mjs';

const baselineUrl = `http://127.0.0.1:${BASELINE.port}${BASELINE.path}`;

/**
 * Measures `endpoint` and its baseline slices, printing a progress line and the ratio; undefined
 * when its target has no database (no PostgreSQL answers). `prepared` is the run's record of the
 * targets whose database was made, shared by all endpoints.
 */
export async function measureEndpoint(endpoint, prepared) {
  const target = TARGETS[endpoint.target];
  if (!target) throw new Error(`unknown target ${endpoint.target}`);
  const serverEnv = { ...TARGET_ENV, ...target.env, ...endpoint.env, PORT: String(target.port), PUBLIC_BASE_URL: `http://127.0.0.1:${target.port}` };
  if (!prepared.has(endpoint.target)) prepared.set(endpoint.target, target.create ? await target.create() : true);
  if (!prepared.get(endpoint.target)) return undefined;
  // A fresh database once per target and run (later servers reopen it), and a token of an hour
  // for each endpoint that needs one: minted while no server holds the embedded database.
  const fresh = target.fresh !== false && !prepared.has(`${endpoint.target} fresh`);
  prepared.set(`${endpoint.target} fresh`, true);
  const token = endpoint.token || fresh ? mintToken(serverEnv, fresh, target.cwd) : undefined;
  let headers = endpoint.token ? { ...endpoint.headers, authorization: `Bearer ${token}` } : endpoint.headers;
  let pathAndQuery = endpoint.path;
  const request = { method: endpoint.method, body: endpoint.body, connections: endpoint.connections };
  let sdkLoad;
  if (endpoint.sdk) {
    sdkLoad = sdkLoadFor(endpoint.sdk, prepareSdk(serverEnv, target.cwd));
    ({ headers, path: pathAndQuery } = sdkLoad);
    Object.assign(request, sdkLoad.request);
  }
  const url = `http://127.0.0.1:${target.port}${pathAndQuery}`;
  const expect = endpoint.expect ?? 200;
  process.stdout.write(`  ${endpoint.name}: ${ROUNDS} rounds of fresh servers, warm-up ${WARMUP} s each, ${PAIRS} pairs of ${SLICE} s slices `);
  const pairs = [];
  let steady;
  for (let round = 0; round < ROUNDS; round++) {
    const baselineServer = await startServer(
      'baseline',
      BASELINE.port,
      [NEXT_BIN, 'start', BASELINE.dir, '-p', String(BASELINE.port)],
      { NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1' },
      BASELINE.path,
      true,
    );
    const dir = target.cwd ?? root;
    const server = await startServer(endpoint.target, target.port, [path.join(dir, 'scripts/serve.mjs')], serverEnv, target.ready, true, dir);
    // JIT, caches and connection pools of both servers warm before anything counts.
    await measure(BASELINE.name, baselineUrl, {}, 200, { connections: request.connections }, WARMUP);
    await measure(endpoint.name, url, headers, expect, request, WARMUP);
    // This round's share of the pairs (the first rounds take any remainder).
    const share = Math.floor(PAIRS / ROUNDS) + (round < PAIRS % ROUNDS ? 1 : 0);
    for (let i = 0; i < share; i++) {
      // Baseline first in even pairs, the endpoint first in odd ones (B E E B …): a steady drift
      // favours neither side.
      const sides = [
        () => measure(BASELINE.name, baselineUrl, {}, 200, { connections: request.connections }),
        () => measure(endpoint.name, url, headers, expect, request),
      ];
      const [first, second] = i % 2 === 0 ? sides : sides.reverse();
      const a = await first();
      const b = await second();
      pairs.push(i % 2 === 0 ? { round, baseline: a, run: b } : { round, baseline: b, run: a });
      process.stdout.write('.');
    }
    // At the end, the endpoint's latency at a steady rate well below what it serves (endpoint.steady):
    // what one request waits when the service is busy but not saturated.
    if (endpoint.steady && round === ROUNDS - 1) {
      steady = await measure(endpoint.name, url, headers, expect, { ...request, ...endpoint.steady }, endpoint.steady.seconds);
      process.stdout.write('s');
    }
    await stop(server);
    await stop(baselineServer);
    if (round < ROUNDS - 1) process.stdout.write('|');
  }
  const run = combine(
    endpoint.name,
    pairs.map((p) => p.run),
  );
  const baseline = combine(
    BASELINE.name,
    pairs.map((p) => p.baseline),
  );
  const pairRatios = pairs.map((p) => p.run.reqPerSec / p.baseline.reqPerSec);
  const interval = bootstrapInterval(pairs);
  console.log(
    ` ${(run.reqPerSec / baseline.reqPerSec).toFixed(3)}x, 95% interval ${interval.low.toFixed(3)}–${interval.high.toFixed(3)} (${Math.round(run.reqPerSec)} vs ${Math.round(baseline.reqPerSec)} req/s)`,
  );
  const check = sdkLoad?.verify ? await sdkLoad.verify(serverEnv.DATABASE_URL) : undefined;
  if (check) console.log(`    ${check.line}`);
  return { endpoint, run, baseline, pairs, pairRatios, interval, check, steady: steady && { ...steady, latencies: undefined } };
}
