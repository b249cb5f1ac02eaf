#!/usr/bin/env node
// `npm run bench`: builds and starts the production server, then load-tests chosen endpoints
// with autocannon next to a bare Next.js route handler (bench/baseline) measured in the same run,
// so the ratio shows what our code costs on top of Next's own overhead, whatever the machine.
//
// How: each endpoint runs in rounds, each on freshly started servers (its target and the
// baseline), which take turns under load in short slices (baseline, endpoint, endpoint,
// baseline, …), so a slow spell of this shared machine weighs on both alike. The ratio is the
// endpoint's requests per second over all its slices divided by the baseline's over theirs.
//
// Env: BENCH_SLICE (seconds per slice, default 2), BENCH_PAIRS (baseline/endpoint slice pairs per
// endpoint, default 30), BENCH_ROUNDS (fresh server pairs per endpoint the pairs are spread over,
// default 3), BENCH_CONNECTIONS (default 10), BENCH_WARMUP (seconds of warm-up of each server
// before its first slice in each round, default 3), BENCH_SKIP_BUILD=1 to reuse the last builds,
// BENCH_ONLY=<text>[,<text>…] to measure only the endpoints whose name contains one of the texts
// (`cache`: the cache variants and the endpoints they are compared with), BENCH_POSTGRES_URL for
// the PostgreSQL target's server (default postgres://postgres@127.0.0.1:5432/postgres),
// BENCH_SKIP=<text>[,<text>…] to leave out the endpoints whose name contains one of the texts.
// Results: bench-results/<timestamp>.json and .md; server and build logs beside them.
//
// Each ratio comes with a 95% interval (a bootstrap over its rounds and slice pairs), and an
// endpoint with a `target` is reported as met only when the whole interval clears it: one run
// here is good to about ±3% (slices of the same server two slices apart differ by 6–10%).
//
// The parts, in scripts/bench/: settings.mjs (the BENCH_* numbers), endpoints.mjs (what is
// measured, and the selection), servers.mjs (targets, baseline, starting a server), before.mjs
// (the BENCH_BEFORE checkout), fixtures.mjs (token and SDK data on the target's database),
// sdk-load.mjs (the SDK endpoints' requests and check), rounds.mjs (one endpoint's rounds and
// slice pairs), measure.mjs (one autocannon slice), statistics.mjs (quantiles, the bootstrap
// interval, a target's verdict), comparisons.mjs (the lines beside the table), report.mjs (the
// table and the results files). Process plumbing is scripts/bench-process.mjs.
import os from 'node:os';
import { cleanup, interrupted, nextBuild, setUp } from './bench-process.mjs';
import { BEFORE, BEFORE_DIR, checkOutBefore } from './bench/before.mjs';
import { compare } from './bench/comparisons.mjs';
import { selectedEndpoints } from './bench/endpoints.mjs';
import { failed } from './bench/measure.mjs';
import { nextVersion, tableRows, textTable, writeResults } from './bench/report.mjs';
import { measureEndpoint } from './bench/rounds.mjs';
import { APP_DIST_DIR, BASELINE } from './bench/servers.mjs';
import { CONNECTIONS, PAIRS, ROUNDS, SKIP_BUILD, SLICE, WARMUP } from './bench/settings.mjs';

const SELECTED = selectedEndpoints();

// ---------------------------------------------------------------------------------------------
// Child processes (scripts/bench-process.mjs): every one is tracked, so any way out (success,
// error, Ctrl-C) stops them all.

setUp({ logPrefix: '', stopTimeoutMs: 10_000, stopping: 'servers' });

// ---------------------------------------------------------------------------------------------

async function main() {
  const settings = { sliceS: SLICE, pairs: PAIRS, rounds: ROUNDS, warmupS: WARMUP, connections: CONNECTIONS };
  const machine = { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, next: nextVersion() };
  console.log(
    `Bench: ${PAIRS} pairs of ${SLICE} s slices per endpoint over ${ROUNDS} rounds of fresh servers, ${CONNECTIONS} connections, ${WARMUP} s warm-up; ${machine.cpus} CPUs, Node ${machine.node}, Next ${machine.next}`,
  );

  if (SKIP_BUILD) {
    console.log('BENCH_SKIP_BUILD=1: reusing the last builds');
  } else {
    // One at a time: the machine has two cores.
    await nextBuild('baseline', 'build-baseline', [BASELINE.dir]);
    await nextBuild('app', 'build-app', [], { NEXT_DIST_DIR: APP_DIST_DIR });
    if (BEFORE) {
      checkOutBefore();
      await nextBuild(`app at ${BEFORE}`, `build-app at ${BEFORE}`, [], { NEXT_DIST_DIR: APP_DIST_DIR }, BEFORE_DIR);
    }
  }

  const measured = [];
  const prepared = new Map();
  // One endpoint at a time, each on freshly started servers (its target and the baseline): an
  // endpoint measured after another on the same process paid for the garbage the other left
  // behind (pricing after the batch endpoint read 0.89x on the same build that reads 0.92x
  // alone), so each number is the endpoint's own cost.
  for (const endpoint of SELECTED) {
    const m = await measureEndpoint(endpoint, prepared);
    if (m) measured.push(m);
  }

  const table = tableRows(measured);
  console.log(`\n${textTable(table)}\n`);

  const { comparisons, comparisonLines, targets, latencyTargets } = compare(measured);
  if (comparisonLines.length > 0) console.log(`${comparisonLines.join('\n')}\n`);

  // Failed: a slice with errors, timeouts or an unexpected status, or an SDK check not met. A
  // target not met is reported above, not failed on.
  const failures = [
    ...measured.flatMap((m) => [m.baseline, m.run]).filter(failed),
    ...measured.filter((m) => m.check && !m.check.ok).map((m) => ({ name: m.endpoint.name, errors: 0, timeouts: 0, unexpected: 0, check: m.check.line })),
  ];
  writeResults({ settings, machine, table, comparisons, comparisonLines, targets, latencyTargets, measured, failures });

  for (const run of failures) {
    console.error(`FAILED ${run.name}: ${run.check ?? `${run.errors} errors, ${run.timeouts} timeouts, ${run.unexpected} responses not as expected`}`);
  }
  return failures.length === 0 ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!interrupted) console.error(`\nbench failed: ${err.message}`);
} finally {
  await cleanup();
}
process.exit(interrupted ? 130 : code);
