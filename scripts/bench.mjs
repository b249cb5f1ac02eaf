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
import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { assertPortFree, cleanup, interrupted, launch, logPath, nextBuild, resultsDir, root, setUp, stamp, stop, tail, waitReady } from './bench-process.mjs';

const NEXT_BIN = path.join(root, 'node_modules/next/dist/bin/next');
const APP_DIST_DIR = '.next-bench'; // not `.next`, so a developer's build or dev server is untouched

/**
 * Servers the endpoints run on. A target is a server configuration; endpoints name theirs.
 * Only one target server runs at a time, on its port, started before its endpoints are measured.
 * Each target's database is made fresh (created, migrated, seeded) before its first endpoint.
 * The PostgreSQL target uses a database `monetize_bench` on BENCH_POSTGRES_URL (default: the
 * local server), created anew; when no server answers there, its endpoints are skipped.
 */
const POSTGRES_SERVER = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const TARGETS = {
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
    /** Creates the database anew; false when no PostgreSQL answers. */
    async create() {
      const admin = postgres(POSTGRES_SERVER, { max: 1, connect_timeout: 5, onnotice: () => {} });
      try {
        await admin.unsafe('drop database if exists monetize_bench with (force)');
        await admin.unsafe('create database monetize_bench');
        return true;
      } catch (err) {
        console.log(`  (no PostgreSQL at ${new URL(POSTGRES_SERVER).host}: ${err.message}; its endpoints are skipped)`);
        return false;
      } finally {
        await admin.end({ timeout: 1 });
      }
    },
  },
};

/**
 * BENCH_BEFORE=<git revision>: the same endpoints measured on that revision too, built from a
 * checkout of it in the system's temporary folder (our node_modules, hard-linked), in the same run: what a change
 * did, on the same machine in the same hour. Its embedded database is its own, seeded on start.
 */
const BEFORE = process.env.BENCH_BEFORE?.trim() || undefined;
// Outside this folder: a checkout inside it would see our lockfile and node_modules above its own,
// and the build would mix the two (two copies of React).
const BEFORE_DIR = path.join(os.tmpdir(), 'monetize-bench-before');
if (BEFORE) {
  TARGETS.before = {
    port: 3303,
    cwd: BEFORE_DIR,
    env: { PGLITE_DATA_DIR: '.data/bench', DATABASE_URL: '' },
    ready: '/api/v1/pricing',
    async create() {
      fs.rmSync(path.join(BEFORE_DIR, '.data/bench'), { recursive: true, force: true });
      return true;
    },
    // The server seeds its own database on first start; no token is needed for what it measures.
    fresh: false,
  };
}

function databaseOn(serverUrl, name) {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * What is measured, in this order. `target` names an entry of TARGETS; `headers` are sent with
 * every request; `expect` is the status every response must have (default 200); `atLeast` is the
 * ratio to the baseline the endpoint must reach (0.9 for pricing and search: the public reads may
 * cost at most a tenth of a bare route's throughput).
 */
const SANDBOX = { authorization: 'Bearer svc_sandbox' };
const SANDBOX_PATHS = ['/api/v1/me', '/api/v1/me/apps', '/api/v1/me/earnings', '/api/v1/me/api-keys'];
/**
 * Account reads with a real access token, as a client that went through the browser flow
 * sends them: the token of the demo publisher, minted with the server's signing key. 50
 * connections, as many clients at once would: the reads wait for the database, and a few
 * connections would measure the wait, not the throughput.
 */
const REAL_TOKEN = { token: true, connections: 50 };
const MAIN_ENDPOINTS = [
  { name: 'GET /api/v1/pricing', target: 'pglite', path: '/api/v1/pricing', atLeast: 0.9, compareBefore: true },
  { name: 'GET /api/v1/search?q=payout', target: 'pglite', path: '/api/v1/search?q=payout', atLeast: 0.9, compareBefore: true },
  { name: 'GET /api/v1/me/apps (sandbox)', target: 'pglite', path: '/api/v1/me/apps', headers: SANDBOX, compareBefore: true },
  {
    name: 'POST /api/v1/batch, 20 sandbox sub-requests',
    compareBefore: true,
    target: 'pglite',
    path: '/api/v1/batch',
    method: 'POST',
    headers: { ...SANDBOX, 'content-type': 'application/json' },
    body: JSON.stringify({ requests: Array.from({ length: 20 }, (_, i) => ({ path: SANDBOX_PATHS[i % SANDBOX_PATHS.length] })) }),
  },
  { name: 'GET /api/v1/me/apps (token, PGlite)', target: 'pglite', path: '/api/v1/me/apps', ...REAL_TOKEN, atLeast: 0.4 },
  { name: 'GET /api/v1/me/apps (token, PostgreSQL)', target: 'postgres', path: '/api/v1/me/apps', ...REAL_TOKEN, atLeast: 0.6 },
  // The SDK's hot paths, as publishers' apps load them: an app's key, 50 connections (many
  // clients at once), on PostgreSQL. Ads: one placement, no session (no frequency cap). Events:
  // 50 first impressions per request, each of its own decision (scripts/bench-sdk.ts), so every
  // one is recorded; afterwards the database must hold each exactly once.
  { name: 'GET /functions/v1/ads (PostgreSQL)', target: 'postgres', sdk: 'ads', connections: 50, atLeast: 0.5, p99AtMost: 2 },
  { name: 'POST /functions/v1/events, 50 per request (PostgreSQL)', target: 'postgres', sdk: 'events', connections: 50, atLeast: 0.3 },
  // What each in-process cache is worth: the same endpoint with the cache turned off
  // (CACHES_OFF, lib/cache/lru.ts). BENCH_ONLY=cache measures only these and their endpoints.
  { name: 'GET /api/v1/pricing [cache: pricing off]', target: 'pglite', path: '/api/v1/pricing', env: { CACHES_OFF: 'pricing' } },
  { name: 'GET /api/v1/search?q=payout [cache: search-pages off]', target: 'pglite', path: '/api/v1/search?q=payout', env: { CACHES_OFF: 'search-pages' } },
  { name: 'GET /api/v1/me/apps (token, PGlite) [cache: tokens off]', target: 'pglite', path: '/api/v1/me/apps', ...REAL_TOKEN, env: { CACHES_OFF: 'tokens' } },
  { name: 'GET /api/v1/me/apps (sandbox) [cache: sandbox off]', target: 'pglite', path: '/api/v1/me/apps', headers: SANDBOX, env: { CACHES_OFF: 'sandbox' } },
];
// With BENCH_BEFORE, each endpoint marked `compareBefore` is measured on that revision right after.
const ENDPOINTS = MAIN_ENDPOINTS.flatMap((e) =>
  BEFORE && e.compareBefore ? [e, { ...e, name: `${e.name} [before ${BEFORE}]`, target: 'before', atLeast: undefined }] : [e],
);

/**
 * Latency comparisons reported beside the table (a batch of 20 sandbox sub-requests must take
 * less than twice the time of one request: its sub-requests run in parallel, not in turn).
 */
const COMPARISONS = [
  {
    name: 'batch of 20 sandbox sub-requests vs one sandbox request (mean latency)',
    subject: 'POST /api/v1/batch, 20 sandbox sub-requests',
    reference: 'GET /api/v1/me/apps (sandbox)',
    limit: 2,
  },
];

/** The bare route handler every endpoint is compared with. */
const BASELINE = { name: 'baseline GET /api/ping', port: 3301, path: '/api/ping', dir: 'bench/baseline' };

/** Variables every target server gets, on top of its own `env`. */
const TARGET_ENV = {
  NODE_ENV: 'production',
  // Production needs both for OAuth; the bench makes its own, and signs its tokens with the key.
  OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }),
  NEXTAUTH_SECRET: randomBytes(32).toString('base64url'),
  NEXT_DIST_DIR: APP_DIST_DIR,
  NEXT_TELEMETRY_DISABLED: '1',
  LOG_LEVEL: 'warn', // a log line per request would measure logging, not serving
  RATE_LIMIT_MAX: '1000000000', // one client sends every request: never limit it
  SDK_KEY_RATE_LIMIT_MAX: '1000000000', // nor its one key
  // The in-memory limiter even if the shell has Upstash credentials: no network in the numbers.
  UPSTASH_REDIS_REST_URL: '',
  UPSTASH_REDIS_REST_TOKEN: '',
};

const SLICE = positiveNumber('BENCH_SLICE', 2);
const CONNECTIONS = Math.max(1, Math.round(positiveNumber('BENCH_CONNECTIONS', 10)));
const WARMUP = positiveNumber('BENCH_WARMUP', 3);
// This 2-core machine's speed drifts by ±20% over tens of seconds (the same build measured in
// 10 s rounds read 0.73x to 1.02x of the baseline): short alternating slices see the same
// conditions on both sides, and many of them narrow the spread.
const PAIRS = Math.max(1, Math.round(positiveNumber('BENCH_PAIRS', 30)));
// Two fresh server processes of the same build differ by more than the noise within one of
// them: ten single-round runs of pricing read 0.90x to 0.98x, while each one's interval from its
// own pairs was only about ±0.015. So each endpoint's pairs are spread over several rounds, each
// on freshly started servers, and the interval resamples rounds as well as pairs.
const ROUNDS = Math.min(PAIRS, Math.max(1, Math.round(positiveNumber('BENCH_ROUNDS', 3))));
const SKIP_BUILD = process.env.BENCH_SKIP_BUILD === '1';
const ONLY = (process.env.BENCH_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const selectedByName = (text) => ENDPOINTS.filter((e) => e.name.includes(text));
// `cache` also selects the endpoints the cache variants are compared with.
const SKIP = (process.env.BENCH_SKIP ?? '')
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);
const SELECTED = (
  ONLY.length === 0
    ? ENDPOINTS
    : ENDPOINTS.filter((e) =>
        ONLY.some((text) => e.name.includes(text) || (text === 'cache' && selectedByName('[cache:').some((c) => c.name.startsWith(`${e.name} [`)))),
      )
).filter((e) => !SKIP.some((text) => e.name.includes(text)));
if (SELECTED.length === 0) {
  console.error(`BENCH_ONLY=${JSON.stringify(process.env.BENCH_ONLY)} matches no endpoint; names: ${ENDPOINTS.map((e) => e.name).join('; ')}`);
  process.exit(2);
}
const READY_TIMEOUT_MS = 120_000; // a fresh embedded database is created, migrated and seeded at start

function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Child processes (scripts/bench-process.mjs): every one is tracked, so any way out (success,
// error, Ctrl-C) stops them all.

setUp({ logPrefix: '', stopTimeoutMs: 10_000, stopping: 'servers' });

/** Starts a server and waits until it answers; `quiet` prints nothing (it ends a progress line). */
async function startServer(name, port, args, env, readyPath, quiet = false, cwd = root) {
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

// ---------------------------------------------------------------------------------------------
// Measuring.

/** One slice of load on one server. `request`: method, body, connections. */
async function measure(name, url, headers = {}, expect = 200, request = {}, duration = SLICE) {
  // Bodies made before the clock starts: making them is the client's work, not the server's.
  request.refill?.(duration);
  const r = await autocannon({
    url,
    headers,
    connections: request.connections ?? CONNECTIONS,
    duration,
    method: request.method ?? 'GET',
    body: request.body,
    // A body of its own for each request (the SDK events), and a count of what was answered.
    requests: request.makeBody ? [{ setupRequest: (req) => ({ ...req, body: request.makeBody() }), onResponse: request.onResponse }] : undefined,
  });
  const responses = Object.values(r.statusCodeStats).reduce((sum, s) => sum + s.count, 0);
  const unexpected = responses - (r.statusCodeStats[expect]?.count ?? 0);
  return {
    name,
    url,
    expect,
    reqPerSec: r.requests.total / r.duration,
    requests: r.requests.total,
    latencyMs: { mean: r.latency.average, p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    non2xx: r.non2xx,
    unexpected,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count])),
    durationS: r.duration,
  };
}

/** Slices of one server, summed: requests over time, latency weighted by requests. */
function combine(name, slices) {
  const requests = slices.reduce((s, r) => s + r.requests, 0);
  const durationS = slices.reduce((s, r) => s + r.durationS, 0);
  const sum = (key) => slices.reduce((s, r) => s + r[key], 0);
  return {
    name,
    reqPerSec: requests / durationS,
    requests,
    durationS,
    latencyMs: {
      mean: slices.reduce((s, r) => s + r.latencyMs.mean * r.requests, 0) / Math.max(1, requests),
      p99: median(slices.map((r) => r.latencyMs.p99)),
    },
    non2xx: sum('non2xx'),
    unexpected: sum('unexpected'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    slices: slices.length,
  };
}

const failed = (run) => run.errors > 0 || run.timeouts > 0 || run.unexpected > 0;

// ---------------------------------------------------------------------------------------------
// Reporting.

function tableRows(measured) {
  return measured.flatMap(({ endpoint, run, baseline, pairRatios, interval }) => [
    {
      endpoint: `${BASELINE.name} (beside the next row)`,
      target: 'baseline',
      reqPerSec: baseline.reqPerSec,
      p99: baseline.latencyMs.p99,
      non2xx: baseline.non2xx,
      errors: baseline.errors + baseline.timeouts,
    },
    {
      endpoint: endpoint.name,
      target: endpoint.target,
      reqPerSec: run.reqPerSec,
      p99: run.latencyMs.p99,
      non2xx: run.non2xx,
      errors: run.errors + run.timeouts,
      ratio: run.reqPerSec / baseline.reqPerSec,
      pairRatios,
      interval,
    },
  ]);
}

const COLUMNS = [
  { title: 'endpoint', value: (r) => r.endpoint },
  { title: 'target', value: (r) => r.target },
  { title: 'req/s', value: (r) => Math.round(r.reqPerSec).toString(), right: true },
  { title: 'p99 ms', value: (r) => String(r.p99), right: true },
  { title: 'non-2xx', value: (r) => String(r.non2xx), right: true },
  { title: 'errors', value: (r) => String(r.errors), right: true },
  { title: 'vs baseline', value: (r) => (r.ratio === undefined ? '' : `${r.ratio.toFixed(3)}x`), right: true },
  { title: '95% interval', value: (r) => (r.interval ? `${r.interval.low.toFixed(3)}–${r.interval.high.toFixed(3)}` : ''), right: false },
  {
    title: 'slice pairs: median (middle half)',
    value: (r) =>
      r.pairRatios ? `${quantile(r.pairRatios, 0.5).toFixed(2)} (${quantile(r.pairRatios, 0.25).toFixed(2)}–${quantile(r.pairRatios, 0.75).toFixed(2)})` : '',
    right: false,
  },
];

/** The q-quantile of `values`, interpolated between neighbours. */
function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

const median = (values) => quantile(values, 0.5);

/** Requests per second of the endpoint over the baseline's, summed over `pairs`. */
function pairsRatio(pairs) {
  let runRequests = 0;
  let runSeconds = 0;
  let baseRequests = 0;
  let baseSeconds = 0;
  for (const p of pairs) {
    runRequests += p.run.requests;
    runSeconds += p.run.durationS;
    baseRequests += p.baseline.requests;
    baseSeconds += p.baseline.durationS;
  }
  return runRequests / runSeconds / (baseRequests / baseSeconds);
}

/**
 * A 95% interval for the ratio (a percentile bootstrap in two stages): rounds resampled with
 * replacement, then pairs within each chosen round, so both the noise between slices and the
 * difference between server processes widen it. A fixed seed: the same measurements always give
 * the same interval.
 */
function bootstrapInterval(pairs, resamples = 4000) {
  let seed = 0x9e3779b9;
  const random = () => {
    // mulberry32
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const rounds = [];
  for (const p of pairs) (rounds[p.round] ??= []).push(p);
  const ratios = [];
  for (let i = 0; i < resamples; i++) {
    const sample = [];
    for (let r = 0; r < rounds.length; r++) {
      const round = pick(rounds);
      for (let j = 0; j < round.length; j++) sample.push(pick(round));
    }
    ratios.push(pairsRatio(sample));
  }
  return { low: quantile(ratios, 0.025), high: quantile(ratios, 0.975) };
}

/** Met only when the whole interval clears the target; not met when the whole of it falls short. */
function verdict(interval, atLeast) {
  if (interval.low >= atLeast) return 'met';
  if (interval.high < atLeast) return 'NOT met';
  return 'not settled (the interval spans the target: run again with more BENCH_PAIRS or BENCH_ROUNDS)';
}

function textTable(rows) {
  const cells = [COLUMNS.map((c) => c.title), ...rows.map((r) => COLUMNS.map((c) => c.value(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const fmt = (line) => line.map((cell, i) => (COLUMNS[i].right ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ');
  return [fmt(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(fmt)].join('\n');
}

function markdownTable(rows) {
  const head = `| ${COLUMNS.map((c) => c.title).join(' | ')} |`;
  const rule = `| ${COLUMNS.map((c) => (c.right ? '---:' : '---')).join(' | ')} |`;
  return [head, rule, ...rows.map((r) => `| ${COLUMNS.map((c) => c.value(r).replaceAll('|', '\\|')).join(' | ')} |`)].join('\n');
}

function nextVersion() {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules/next/package.json'), 'utf8')).version;
}

/** A fresh checkout of BENCH_BEFORE in BEFORE_DIR, with our node_modules. */
function checkOutBefore() {
  const git = (...args) => {
    const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  };
  spawnSync('git', ['worktree', 'remove', '--force', BEFORE_DIR], { cwd: root }); // from a run before, if any
  fs.rmSync(BEFORE_DIR, { recursive: true, force: true });
  git('worktree', 'prune');
  git('worktree', 'add', '--detach', BEFORE_DIR, BEFORE);
  // Hard links, not a symlink: Turbopack resolves nothing outside the project's own folder.
  const copy = spawnSync('cp', ['-al', path.join(root, 'node_modules'), path.join(BEFORE_DIR, 'node_modules')]);
  if (copy.status !== 0) throw new Error(`could not link node_modules into ${BEFORE_DIR}: ${copy.stderr}`);
}

/**
 * An access token for the demo publisher, from scripts/bench-token.ts run with the server's
 * environment (`fresh`: it first makes the database fresh).
 */
function mintToken(serverEnv, fresh) {
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/bench-token.ts', ...(fresh ? ['fresh'] : [])], {
    cwd: root,
    env: { ...process.env, ...serverEnv },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`scripts/bench-token.ts failed: ${r.stderr || r.stdout}`);
  return r.stdout.trim();
}

/**
 * The SDK load's key, placement and decisions on the target's database (scripts/bench-sdk.ts),
 * once per run. BENCH_SDK_DECISIONS: how many decisions the events endpoint may use up.
 */
const SDK_DECISIONS = Math.round(positiveNumber('BENCH_SDK_DECISIONS', 4_000_000));
let sdkPrepared;
function prepareSdk(serverEnv) {
  if (sdkPrepared) return sdkPrepared;
  process.stdout.write(`(preparing ${SDK_DECISIONS} decisions) `);
  const r = spawnSync(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/bench-sdk.ts', String(SDK_DECISIONS)], {
    cwd: root,
    env: { ...process.env, ...serverEnv },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`scripts/bench-sdk.ts failed: ${r.stderr || r.stdout}`);
  sdkPrepared = JSON.parse(r.stdout);
  return sdkPrepared;
}

const EVENTS_PER_REQUEST = 50;

/** What one SDK endpoint sends, and for events, how to check afterwards that each was kept once. */
function sdkLoadFor(kind, prepared) {
  const headers = { 'x-api-key': prepared.key };
  if (kind === 'ads') return { headers, path: `/functions/v1/ads?placement_id=${prepared.placementId}` };
  // Decision tokens as the server signs them (lib/sdk/tokens.ts), for the decisions scripts/bench-sdk.ts made.
  const secret = Buffer.from(prepared.secret, 'base64url');
  const expiresAt = Math.floor(Date.now() / 1000) + 6 * 3600;
  let next = 0;
  let answered = 0;
  const decision = (i) => `00000000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
  const token = (d) =>
    `${d}.${prepared.appId}.${expiresAt}.${createHmac('sha256', secret).update(`v1.${d}.${prepared.appId}.${expiresAt}`).digest('base64url')}`;
  const viewability = { visible_share: 1, visible_seconds: 1.5 };
  const body = () => {
    if (next + EVENTS_PER_REQUEST > prepared.decisions) throw new Error('the bench used up its decisions: raise BENCH_SDK_DECISIONS');
    const events = [];
    for (let k = 0; k < EVENTS_PER_REQUEST; k++, next++) {
      events.push({ id: `bench-${next}`, type: 'impression', token: token(decision(next)), viewability });
    }
    return JSON.stringify({ events });
  };
  /** Bodies made ahead; `next` counts every event made, sent or not. */
  const ready = [];
  return {
    headers: { ...headers, 'content-type': 'application/json' },
    path: '/functions/v1/events',
    request: {
      method: 'POST',
      /** Up to 600 requests' bodies per second of the slice to come (a 2-core machine serves far fewer). */
      refill(seconds) {
        while (ready.length < 600 * seconds) ready.push(body());
      },
      makeBody() {
        return ready.shift() ?? body();
      },
      onResponse(status) {
        if (status === 200) answered++;
      },
    },
    /** Every event of a 200 answer recorded, and each exactly once. */
    async verify(databaseUrl) {
      // The roll-up and the last requests settle first.
      await new Promise((r) => setTimeout(r, 1000));
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
      try {
        // A billable impression is kept on its decision (the decision is the dedupe): count them
        // there, and any the server judged invalid in ad_events.
        const [row] = await sql.unsafe(
          `select count(*)::int as events, count(distinct impression_event_id)::int as ids, count(distinct id)::int as decisions,
                  count(*)::int as billable,
                  (select count(*)::int from public.ad_events where event_id like 'bench-%') as invalid
           from public.ad_decisions where impression_event_id like 'bench-%'`,
        );
        // Requests still in flight when a slice ended were not counted as answered, yet the server
        // may have recorded them: between what was answered and what was sent.
        const expected = answered * EVENTS_PER_REQUEST;
        const once = row.ids === row.events && row.decisions === row.events && row.invalid === 0;
        const ok = once && row.events >= expected && row.events <= next - ready.length * EVENTS_PER_REQUEST;
        return {
          ok,
          sent: next,
          answered200: answered,
          ...row,
          line: `${next - ready.length * EVENTS_PER_REQUEST} events sent, ${expected} of them answered 200; the database holds ${row.events} billable impressions, ${row.ids} distinct ids, on ${row.decisions} distinct decisions, ${row.invalid} invalid: ${ok ? 'every answered event, each exactly once' : 'NOT every answered event exactly once'}`,
        };
      } finally {
        await sql.end({ timeout: 1 });
      }
    },
  };
}

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

  const baselineUrl = `http://127.0.0.1:${BASELINE.port}${BASELINE.path}`;
  const measured = [];
  const prepared = new Map();
  // One endpoint at a time, each on freshly started servers (its target and the baseline): an
  // endpoint measured after another on the same process paid for the garbage the other left
  // behind (pricing after the batch endpoint read 0.89x on the same build that reads 0.92x
  // alone), so each number is the endpoint's own cost.
  for (const endpoint of SELECTED) {
    const target = TARGETS[endpoint.target];
    if (!target) throw new Error(`unknown target ${endpoint.target}`);
    const serverEnv = { ...TARGET_ENV, ...target.env, ...endpoint.env, PORT: String(target.port), PUBLIC_BASE_URL: `http://127.0.0.1:${target.port}` };
    if (!prepared.has(endpoint.target)) prepared.set(endpoint.target, target.create ? await target.create() : true);
    if (!prepared.get(endpoint.target)) continue;
    // A fresh database once per target and run (later servers reopen it), and a token of an hour
    // for each endpoint that needs one: minted while no server holds the embedded database.
    const fresh = target.fresh !== false && !prepared.has(`${endpoint.target} fresh`);
    prepared.set(`${endpoint.target} fresh`, true);
    const token = endpoint.token || fresh ? mintToken(serverEnv, fresh) : undefined;
    let headers = endpoint.token ? { ...endpoint.headers, authorization: `Bearer ${token}` } : endpoint.headers;
    let pathAndQuery = endpoint.path;
    const request = { method: endpoint.method, body: endpoint.body, connections: endpoint.connections };
    let sdkLoad;
    if (endpoint.sdk) {
      sdkLoad = sdkLoadFor(endpoint.sdk, prepareSdk(serverEnv));
      ({ headers, path: pathAndQuery } = sdkLoad);
      Object.assign(request, sdkLoad.request);
    }
    const url = `http://127.0.0.1:${target.port}${pathAndQuery}`;
    const expect = endpoint.expect ?? 200;
    process.stdout.write(`  ${endpoint.name}: ${ROUNDS} rounds of fresh servers, warm-up ${WARMUP} s each, ${PAIRS} pairs of ${SLICE} s slices `);
    const pairs = [];
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
    measured.push({ endpoint, run, baseline, pairs, pairRatios, interval, check });
  }

  const table = tableRows(measured);
  console.log(`\n${textTable(table)}\n`);

  // Each latency is taken relative to the baseline slice beside it, and the median over pairs is
  // compared: endpoints are measured minutes apart, and this machine's speed drifts by more than
  // 10% over such spans (one run read a 2.7x batch/request latency ratio from a slow spell that
  // the baseline showed too).
  const relativeLatency = (name) => {
    const m = measured.find((r) => r.endpoint.name === name);
    return m ? median(m.pairs.map((p) => p.run.latencyMs.mean / p.baseline.latencyMs.mean)) : undefined;
  };
  const comparisons = COMPARISONS.map((c) => {
    const subject = measured.find((r) => r.endpoint.name === c.subject)?.run;
    const reference = measured.find((r) => r.endpoint.name === c.reference)?.run;
    const subjectRelative = relativeLatency(c.subject);
    const referenceRelative = relativeLatency(c.reference);
    if (!subject || !reference || subjectRelative === undefined || referenceRelative === undefined) return null;
    const ratio = subjectRelative / referenceRelative;
    return { ...c, subjectMs: subject.latencyMs.mean, referenceMs: reference.latencyMs.mean, subjectRelative, referenceRelative, ratio, ok: ratio < c.limit };
  }).filter(Boolean);
  const comparisonLines = comparisons.map(
    (c) =>
      `${c.name}: ${c.subjectRelative.toFixed(2)}x vs ${c.referenceRelative.toFixed(2)}x the baseline's latency (${c.subjectMs.toFixed(2)} ms vs ${c.referenceMs.toFixed(2)} ms) = ${c.ratio.toFixed(2)}x (target < ${c.limit}x: ${c.ok ? 'met' : 'NOT met'})`,
  );
  const targets = measured
    .filter((m) => m.endpoint.atLeast !== undefined)
    .map((m) => ({
      endpoint: m.endpoint.name,
      atLeast: m.endpoint.atLeast,
      ratio: m.run.reqPerSec / m.baseline.reqPerSec,
      interval: m.interval,
      verdict: verdict(m.interval, m.endpoint.atLeast),
    }));
  // p99 beside the baseline's, slice pair by slice pair (the median of the ratios).
  const latencyTargets = measured
    .filter((m) => m.endpoint.p99AtMost !== undefined)
    .map((m) => {
      const ratio = median(m.pairs.map((p) => p.run.latencyMs.p99 / Math.max(1, p.baseline.latencyMs.p99)));
      return { endpoint: m.endpoint.name, ratio, atMost: m.endpoint.p99AtMost, ok: ratio <= m.endpoint.p99AtMost };
    });
  comparisonLines.push(
    ...latencyTargets.map(
      (t) => `${t.endpoint}: p99 ${t.ratio.toFixed(2)}x the baseline's (median over slice pairs), target at most ${t.atMost}x: ${t.ok ? 'met' : 'NOT met'}`,
    ),
    ...measured.filter((m) => m.check).map((m) => `${m.endpoint.name}: ${m.check.line}`),
  );
  comparisonLines.push(
    ...targets.map(
      (t) =>
        `${t.endpoint}: ${t.ratio.toFixed(3)}x the baseline's req/s (95% interval ${t.interval.low.toFixed(3)}–${t.interval.high.toFixed(3)}), target at least ${t.atLeast}x: ${t.verdict}`,
    ),
  );
  if (comparisonLines.length > 0) console.log(`${comparisonLines.join('\n')}\n`);

  const failures = [
    ...measured.flatMap((m) => [m.baseline, m.run]).filter(failed),
    ...measured.filter((m) => m.check && !m.check.ok).map((m) => ({ name: m.endpoint.name, errors: 0, timeouts: 0, unexpected: 0, check: m.check.line })),
  ];
  const report = {
    startedAt: stamp,
    settings,
    machine,
    table,
    comparisons,
    targets,
    latencyTargets,
    checks: measured.filter((m) => m.check).map((m) => ({ endpoint: m.endpoint.name, ...m.check })),
    endpoints: measured.map(({ endpoint, run, baseline, pairs, interval }) => ({
      endpoint: endpoint.name,
      target: endpoint.target,
      run,
      baseline,
      ratio: run.reqPerSec / baseline.reqPerSec,
      interval,
      pairs,
    })),
    ok: failures.length === 0,
  };
  const md = [
    `# Benchmark ${stamp}`,
    '',
    `${CONNECTIONS} connections (50 for the account reads with a real token and the SDK endpoints, and for their baseline slices); ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, Next ${machine.next}.`,
    `Baseline: a bare Next.js route handler (\`${BASELINE.dir}\`). Each endpoint ran in ${ROUNDS} rounds, each on freshly started servers (its target and the baseline), which took turns under load in ${PAIRS} pairs of ${SLICE} s slices in all, after ${WARMUP} s of warm-up each per round. "vs baseline" is the endpoint's requests per second over all its slices divided by the baseline's over theirs, with a 95% interval from a bootstrap over the rounds and their slice pairs; the last column is the spread of the per-pair ratios.`,
    '',
    markdownTable(table),
    '',
    ...comparisonLines.map((l) => `- ${l}`),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(resultsDir, `${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, `${stamp}.md`), md);
  console.log(`Results: ${path.relative(root, path.join(resultsDir, `${stamp}.json`))} and .md`);

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
