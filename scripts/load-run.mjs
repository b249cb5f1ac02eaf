#!/usr/bin/env node
// `npm run bench:load`: a load run at the rate limit's ceiling, spread over many client addresses,
// that checks two things (the "load run at the ceiling" acceptance test):
//
//   1. Every answer is 2xx or 429: at the ceiling the limiter refuses, and nothing else breaks
//      (no 5xx, no 4xx other than 429, no 3xx, no connection error, no timeout).
//   2. The server's memory comes back: its resident set after LOAD_IDLE_SECONDS idle is at most
//      10% above where it started.
//
// How: builds the production app into its own dist dir (.next-load; a developer's .next and the
// bench's .next-bench stay untouched), makes a fresh embedded database (.data/load-bench: the name
// ends in `bench` because scripts/bench-sdk.ts, which makes the SDK keys, refuses any other), and
// starts `node scripts/serve.mjs` in production on 127.0.0.1:LOAD_PORT with the DEFAULT rate limits
// (RATE_LIMIT_MAX, RATE_LIMIT_WINDOW_S and SDK_KEY_RATE_LIMIT_MAX are removed from its environment,
// whatever the shell says: the point is to run at the real ceiling, which is then read back from
// the server's own `RateLimit-Policy` header). The server is started directly with this Node, not
// through npm, so the process whose memory is read is the server itself.
//
// The load: LOAD_CLIENTS (100) clients, each with its own source address in 127.0.0.0/8 (127.1.x.y;
// Linux routes all of 127/8 to `lo`, so binding `localAddress` needs no setup, and serve.mjs
// appends the socket's peer address to X-Forwarded-For, so each address is its own rate-limit
// client: the setup checks this before the load), its own keep-alive agent (at most 4 sockets, as
// a browser holds a few per origin), sending open-loop, each LOAD_OVER times the per-address
// ceiling (default 1.1: 2.2 requests a second against 120 per 60 s, so about a tenth are refused)
// for LOAD_SECONDS, over a mix of what real clients call:
//   - public reads: GET /api/v1/pricing, /api/v1/search?q=… (1 in 10 a query never seen before,
//     so the search cache's bound is exercised), /api/v1;
//   - the SDK, with a publishable key: GET /functions/v1/validate-key, GET /functions/v1/ads
//     (the app's active placements in turn, with the client's session id, as the browser SDK
//     sends it), then POST /functions/v1/events with the impression of the ad it got (and now and
//     then its click), as the SDK does once the ad was seen;
//   - account reads: GET /api/v1/me with the sandbox token, GET /api/v1/me/apps and
//     /api/v1/me/earnings with a real access token of the demo publisher (scripts/bench-token.ts).
// Why 100 clients: the whole load is clients × 2.2 requests a second, and one server process
// (one thread; the embedded database runs in it too) spent 2.5 to 4 ms of CPU on a request of
// this mix in our runs, so it serves at most 250 to 400 a second on this 2-core machine. 100
// clients (220 a second) stay below that with some room for whatever else runs here; 200 clients
// (440 a second) overload it, and then requests queue in the server without bound (nothing sheds load):
// latency climbs to the clients' timeout, and the run fails on timeouts, not on statuses.
// SDK keys: an app's key is shared by every user of that app, and all of a publisher's keys share
// one budget of SDK_KEY_RATE_LIMIT_MAX (6000) per window on top of the address's. One publisher
// for all the clients would make that budget the bottleneck (100 clients × 2.2/s × 44% SDK
// requests × 60 s = 5,808 per window, about the whole budget), which is a different test
// (LOAD_KEYS=1 runs it). By default the clients are spread over as many keys as keep every
// publisher under half its budget, each key of the next demo publisher in turn (bench-sdk.ts makes
// it on that publisher's first app, whose placements its clients ask for): 2 for 100 clients,
// i.e. 50 users of each of 2 publishers' apps at the ceiling. Past 2 keys the demo publishers'
// keys share their budgets. 429s for a publisher's budget are counted apart from the address's.
// Bounded: loopback only; at most LOAD_MAX_REQUESTS (default 1.1 × the planned number) requests;
// each request has LOAD_TIMEOUT_MS (default 10 s, from the moment it is issued, queueing in the
// agent included), and a timeout counts as a failure; a client with 16 requests unanswered skips
// its next ones (counted, and a failure too: the server fell behind).
//
// Memory: VmRSS (and RssAnon, RssFile, VmHWM) of the server's process from /proc/<pid>/status,
// sampled every second throughout, and every 5 s the V8 heap (process.memoryUsage()), the event
// loop's delay and the collector's pauses since the last sample, through a tiny preload
// (`--import data:…`, nothing in the app changes) that writes them to a file on SIGUSR2; the
// server's descendants are listed too (there should be none: Next runs in-process under a custom
// server).
//
// "Where it started" means after a warm-up, not at boot: LOAD_WARMUP_CLIENTS (20) other
// addresses (127.2.x.y) send the same mix at the same per-address rate for LOAD_WARMUP_SECONDS
// (15), so every route's module is loaded, hot code is compiled, the database's connection, key
// directory and caches are filled, and the first roll-ups have run; then LOAD_SETTLE_SECONDS (10)
// idle, and the start is the median of the last 5 one-second samples. (A warm-up at the load's
// full intensity was tried: it moves the start up by V8's heap, and a server that cold answers
// its first seconds of full load late; it changed nothing below.)
// What to expect of V8: under load it grows the heap it commits (in the last full run from 119
// MB at the start to 305 MB, while 62 to 82 MB were live after each full collection), and gives
// it back only in a full collection, which an idle process, allocating almost nothing, runs only
// when V8's memory reducer decides it is idle: 30 and 45 s after the load stopped in our two full
// runs, when two or three full collections in a row brought the committed heap back to about
// 68 MB and the resident set below the start. After a 20 s run at 80 clients it had not come
// within the idle minute, and the resident set read 11.5% above the start with the same live
// heap. So an idle minute is about what V8 needs, and the run also reports the heap just after
// the last full collection (the start's may date from the warm-up), and when the resident set has
// not come back, how much of the excess is heap V8 commits and whether it collected meanwhile.
// The end of load is taken when the last request was answered and the clients' sockets closed (a
// client that leaves closes its connections); "after idle" is the median of the last 5 samples of
// LOAD_IDLE_SECONDS (60) idle after that. The verdict is after-idle ≤ 1.10 × start. Nothing
// forces a garbage collection unless LOAD_GC=1 (an investigation aid: the server gets
// --expose-gc and each heap sample runs a full collection first, which changes what is measured;
// the verdict is then marked as such).
//
// Env: LOAD_CLIENTS (100), LOAD_SECONDS (60), LOAD_IDLE_SECONDS (60), LOAD_OVER (1.1),
// LOAD_WARMUP_CLIENTS (20), LOAD_WARMUP_SECONDS (15), LOAD_SETTLE_SECONDS (10),
// LOAD_KEYS (auto), LOAD_TIMEOUT_MS (10000), LOAD_MAX_REQUESTS (auto), LOAD_PORT (3310),
// LOAD_SKIP_BUILD=1 to reuse .next-load, LOAD_GC=1 (above).
// Results: bench-results/load-<timestamp>.json and .md, the server's and the build's logs beside
// them. Exit status 0 when both verdicts hold, 1 when one fails, 2 when the run could not be made.
//
// The parts, in scripts/load/: settings.mjs (the LOAD_* numbers), server.mjs (the server's
// environment, its database, starting it), memory.mjs (the heap preload and the RSS sampler),
// proc.mjs (what /proc says), mix.mjs (what the clients send), clients.mjs (the clients and their
// counts), setup-check.mjs (the checks before the load), statistics.mjs (quantiles and the
// summary of the counts), report.mjs (the verdicts' lines, the results files, the summary
// printed). Process plumbing is scripts/bench-process.mjs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanup, interrupted, nextBuild, root, setUp, stop } from './bench-process.mjs';
import { runClients, Stats } from './load/clients.mjs';
import { memoryFile, sleep, startSampler } from './load/memory.mjs';
import { SDK_SHARE } from './load/mix.mjs';
import { commandLine, cpuSeconds, descendants, machineCpu } from './load/proc.mjs';
import { verdictsOf, writeReport } from './load/report.mjs';
import { prepareDatabase, serverEnvironment, startServer } from './load/server.mjs';
import {
  CLIENTS,
  DATA_DIR,
  DEFAULT_KEY_MAX,
  DIST_DIR,
  IDLE_SECONDS,
  int,
  LOAD_SECONDS,
  MEMORY_TOLERANCE,
  OVER,
  SETTLE_SECONDS,
  SKIP_BUILD,
  WARMUP_CLIENTS,
  WARMUP_SECONDS,
} from './load/settings.mjs';
import { checkSetup } from './load/setup-check.mjs';
import { round, summarize } from './load/statistics.mjs';

// ---------------------------------------------------------------------------------------------
// Child processes (scripts/bench-process.mjs): each in its own process group, stopped on any way
// out; the memory file the server writes goes too.

setUp({ logPrefix: 'load-', stopTimeoutMs: 15_000, stopping: 'the server' });
process.on('exit', () => fs.rmSync(memoryFile, { force: true }));

// ---------------------------------------------------------------------------------------------

async function main() {
  const runStarted = Date.now();
  const perAddressDefault = 120 / 60;
  const plannedRate = perAddressDefault * OVER;
  const keys = process.env.LOAD_KEYS ? int('LOAD_KEYS', 1) : Math.max(1, Math.ceil((CLIENTS * plannedRate * 60 * SDK_SHARE) / (DEFAULT_KEY_MAX / 2)));
  console.log(
    `Load run: ${CLIENTS} clients (127.1.x.y) at ${OVER}x the per-address ceiling for ${LOAD_SECONDS} s, ${IDLE_SECONDS} s idle after; warm-up ${WARMUP_CLIENTS} clients for ${WARMUP_SECONDS} s, ${SETTLE_SECONDS} s settle; ${keys} SDK key(s); ${os.cpus().length} CPUs, Node ${process.version}`,
  );

  if (SKIP_BUILD) {
    if (!fs.existsSync(path.join(root, DIST_DIR, 'BUILD_ID'))) throw new Error(`LOAD_SKIP_BUILD=1 but ${DIST_DIR} holds no build: run without it once`);
    console.log(`LOAD_SKIP_BUILD=1: reusing ${DIST_DIR}`);
  } else {
    await nextBuild(`into ${DIST_DIR}`, 'build', [], { NEXT_DIST_DIR: DIST_DIR });
  }
  const buildDoneAt = Date.now();

  const env = serverEnvironment();
  process.stdout.write(`Preparing ${DATA_DIR} (fresh, seeded, a token, ${keys} key(s)) ... `);
  const prepared = prepareDatabase(env, keys);
  console.log('done');
  const server = await startServer(env);
  const pid = server.pid;
  const cmd = commandLine(pid);
  if (!cmd.split(' ').some((arg) => arg.endsWith('scripts/serve.mjs')) || !fs.readlinkSync(`/proc/${pid}/exe`).includes('node'))
    throw new Error(`process ${pid} is not the server (${cmd})`);
  const sampler = startSampler(pid);

  const { placements, policies } = await checkSetup(prepared);
  const ceiling = policies.default.q / policies.default.w;
  const rate = ceiling * OVER;
  console.log(
    `Server ${pid} (${cmd}); policy default q=${policies.default.q} w=${policies.default.w}, key q=${policies.key.q}; ${placements.length} active placements; addresses counted apart: yes`,
  );
  if (policies.key.q !== DEFAULT_KEY_MAX && !process.env.LOAD_KEYS)
    console.log(`  (the key budget is ${policies.key.q}, not ${DEFAULT_KEY_MAX}: the key count was planned for ${DEFAULT_KEY_MAX})`);
  const setup = { ...prepared, placements };
  const planned = Math.ceil(CLIENTS * rate * LOAD_SECONDS);
  const budget = { left: process.env.LOAD_MAX_REQUESTS ? int('LOAD_MAX_REQUESTS', 1) : Math.ceil(planned * 1.1) + CLIENTS, exhausted: false };

  // Warm-up, from addresses of its own, then settle: the start is what the warm server holds idle.
  process.stdout.write(`Warm-up: ${WARMUP_CLIENTS} clients for ${WARMUP_SECONDS} s ... `);
  sampler.setPhase('warm-up');
  const warmStats = new Stats();
  await runClients({ octet: 2, count: WARMUP_CLIENTS, rate, seconds: WARMUP_SECONDS, setup, stats: warmStats, budget: { left: Infinity } });
  console.log(`${warmStats.sent} requests; settling ${SETTLE_SECONDS} s`);
  sampler.setPhase('settle');
  await sleep(SETTLE_SECONDS * 1000);
  const start = sampler.settled('settle');
  const startHeap = sampler.lastHeap('settle');
  const cpuAtStart = cpuSeconds(pid);
  const machineAtStart = machineCpu();
  const loaderAtStart = process.cpuUsage();
  const loadAverageAtStart = os.loadavg()[0];

  process.stdout.write(`Load: ${CLIENTS} clients × ${round(rate, 2)}/s for ${LOAD_SECONDS} s (about ${planned} requests) ... `);
  sampler.setPhase('load');
  const stats = new Stats();
  const loadStarted = performance.now();
  await runClients({ octet: 1, count: CLIENTS, rate, seconds: LOAD_SECONDS, setup, stats, budget });
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const cpuUsed = cpuSeconds(pid) - cpuAtStart;
  // How busy the machine was meanwhile, and with what: this server, this load generator, or others.
  const machineNow = machineCpu();
  const loaderUsage = process.cpuUsage(loaderAtStart);
  const machineLoad = {
    loadAverage1mAtStart: round(loadAverageAtStart, 2),
    loadAverage1mAtEnd: round(os.loadavg()[0], 2),
    busyCores: round((machineNow.busyS - machineAtStart.busyS) / loadSeconds, 2),
    serverCores: round(cpuUsed / loadSeconds, 2),
    loadGeneratorCores: round((loaderUsage.user + loaderUsage.system) / 1e6 / loadSeconds, 2),
  };
  machineLoad.otherCores = round(Math.max(0, machineLoad.busyCores - machineLoad.serverCores - machineLoad.loadGeneratorCores), 2);
  sampler.setPhase('end');
  await sleep(1500);
  const end = sampler.settled('end', 1);
  const peak = sampler.peak('load');
  console.log(`${stats.sent} sent in ${loadSeconds.toFixed(1)} s`);

  process.stdout.write(`Idle ${IDLE_SECONDS} s ... `);
  sampler.setPhase('idle');
  await sleep(IDLE_SECONDS * 1000);
  const afterIdle = sampler.settled('idle');
  const idleHeap = sampler.lastHeap('idle');
  const endHeap = sampler.heap.filter((h) => h.phase === 'load' || h.phase === 'end').at(-1);
  sampler.stop();
  const procs = descendants(pid);
  console.log('done');
  await stop(server);

  const load = summarize(stats, LOAD_SECONDS);
  const warmUp = summarize(warmStats, WARMUP_SECONDS);
  const statusOk =
    load.other === 0 &&
    warmUp.other === 0 &&
    Object.keys(load.errors).length === 0 &&
    Object.keys(warmUp.errors).length === 0 &&
    load.timeouts === 0 &&
    warmUp.timeouts === 0 &&
    stats.skipped === 0 &&
    warmStats.skipped === 0;
  const growth = afterIdle.rssMb / start.rssMb - 1;
  const memoryOk = growth <= MEMORY_TOLERANCE;
  const verdicts = verdictsOf({ statusOk, memoryOk, growth, start, afterIdle, startHeap, idleHeap, sampler });
  const report = writeReport({
    runStarted,
    buildDoneAt,
    keys,
    rate,
    policies,
    budget,
    stats,
    pid,
    cmd,
    procs,
    placements,
    cpuUsed,
    loadSeconds,
    machineLoad,
    load,
    warmUp,
    sampler,
    start,
    startHeap,
    peak,
    end,
    endHeap,
    afterIdle,
    idleHeap,
    growth,
    verdicts,
    statusOk,
    memoryOk,
  });
  return report.ok ? 0 : 1;
}

let code = 2;
try {
  code = await main();
} catch (err) {
  if (!interrupted) console.error(`\nload run failed: ${err.message}`);
} finally {
  await cleanup();
}
process.exit(interrupted ? 130 : code);
