#!/usr/bin/env node
// `npm run bench:load`: a load run at the rate limit's ceiling, spread over many client addresses,
// that checks two things (the issue's "load run at the ceiling" acceptance test):
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
// SDK keys: an app's key is shared by every user of that app, and each key has its own budget of
// SDK_KEY_RATE_LIMIT_MAX (6000) per window on top of the address's. One key for all the clients
// would make the key's budget the bottleneck (100 clients × 2.2/s × 44% SDK requests × 60 s =
// 5,808 per window, about the whole budget), which is a different test (LOAD_KEYS=1 runs it). By
// default the clients are spread over as many keys (bench-sdk.ts makes each on the demo
// publisher's app) as keep every key under half its budget: 2 for 100 clients, i.e. 50 users of
// each of 2 apps at the ceiling. 429s for a key's budget are counted apart from the address's.
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
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { assertPortFree, cleanup, interrupted, launch, logPath, nextBuild, resultsDir, root, setUp, stamp, stop, tail, waitReady } from './bench-process.mjs';

const TSX_CLI = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const DIST_DIR = '.next-load';
// Must end in `bench`: scripts/bench-sdk.ts refuses to write keys into any other database.
const DATA_DIR = '.data/load-bench';
const HOST = '127.0.0.1';

const CLIENTS = int('LOAD_CLIENTS', 100);
const LOAD_SECONDS = num('LOAD_SECONDS', 60);
const IDLE_SECONDS = num('LOAD_IDLE_SECONDS', 60);
const OVER = num('LOAD_OVER', 1.1);
const WARMUP_CLIENTS = int('LOAD_WARMUP_CLIENTS', 20);
const WARMUP_SECONDS = num('LOAD_WARMUP_SECONDS', 15);
const SETTLE_SECONDS = num('LOAD_SETTLE_SECONDS', 10);
const TIMEOUT_MS = int('LOAD_TIMEOUT_MS', 10_000);
const PORT = int('LOAD_PORT', 3310);
const SKIP_BUILD = process.env.LOAD_SKIP_BUILD === '1';
const FORCE_GC = process.env.LOAD_GC === '1';
const MEMORY_TOLERANCE = 0.1;
/** The server's defaults (lib/env.ts); checked against its headers once it runs. */
const DEFAULT_KEY_MAX = 6000;
const MAX_IN_FLIGHT = 16;
const MAX_SOCKETS = 4;
const READY_TIMEOUT_MS = 180_000;
if (CLIENTS > 250 * 256) fail(`LOAD_CLIENTS at most ${250 * 256} (one 127.1.x.y address each)`);

function num(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) fail(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}
function int(name, fallback) {
  return Math.max(1, Math.round(num(name, fallback)));
}
function fail(message) {
  console.error(message);
  process.exit(2);
}

/** Client `i`'s own loopback address: 127.<octet>.<x>.<y>, never .0. */
const addressOf = (octet, i) => `127.${octet}.${Math.floor(i / 250)}.${(i % 250) + 1}`;

/**
 * The mix, by weight (per 100 requests). SDK share 44%: `validate-key`, `ads`, `events`.
 * `events` sends the impression (or click) of the client's last ad; a client with no ad to report
 * asks for one instead, so the SDK's share holds.
 */
const MIX = [
  { kind: 'pricing', weight: 14 },
  { kind: 'search', weight: 14 },
  { kind: 'index', weight: 6 },
  { kind: 'validate-key', weight: 4, sdk: true },
  { kind: 'ads', weight: 24, sdk: true },
  { kind: 'events', weight: 16, sdk: true },
  { kind: 'me (sandbox)', weight: 8 },
  { kind: 'me/apps (token)', weight: 10 },
  { kind: 'me/earnings (token)', weight: 4 },
];
const MIX_TOTAL = MIX.reduce((s, m) => s + m.weight, 0);
const SDK_SHARE = MIX.filter((m) => m.sdk).reduce((s, m) => s + m.weight, 0) / MIX_TOTAL;
const SEARCH_WORDS = [
  'payout',
  'rate limit',
  'sdk',
  'oauth',
  'consent',
  'placement',
  'impression',
  'pricing',
  'token',
  'mcp',
  'earnings',
  'api key',
  'viewability',
  'webhook',
  'batch',
  'scopes',
  'click',
  'sandbox',
  'video',
  'revenue share',
];

// ---------------------------------------------------------------------------------------------
// Child processes (scripts/bench-process.mjs): each in its own process group, stopped on any way
// out; the memory file the server writes goes too.

setUp({ logPrefix: 'load-', stopTimeoutMs: 15_000, stopping: 'the server' });
const memoryFile = path.join(os.tmpdir(), `monetize-load-${process.pid}-memory.json`);
process.on('exit', () => fs.rmSync(memoryFile, { force: true }));

// ---------------------------------------------------------------------------------------------
// Building, preparing and serving.

/** The server's environment: production, fresh OAuth secrets, the default limits, no Upstash. */
function serverEnvironment() {
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
 * makes `keys` SDK keys (bench-sdk.ts, no decisions: the load gets its own from /functions/v1/ads).
 * Before the server starts: the embedded database is one process's.
 */
function prepareDatabase(env, keys) {
  fs.rmSync(path.join(root, DATA_DIR), { recursive: true, force: true });
  const token = runTsx('scripts/bench-token.ts', ['fresh'], env);
  const sdk = [];
  for (let i = 0; i < keys; i++) sdk.push(JSON.parse(runTsx('scripts/bench-sdk.ts', ['0'], env)));
  return { token, sdk };
}

/**
 * Prints the V8 heap to LOAD_MEMORY_FILE on SIGUSR2, in the server process only (argv[1] is
 * serve.mjs). Writes the file once at start, so that no signal is sent before the handler is in
 * place (SIGUSR2's default action ends the process).
 */
const MEMORY_PRELOAD = `
import fs from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
const file = process.env.LOAD_MEMORY_FILE;
if (file && process.argv[1] && process.argv[1].endsWith('serve.mjs')) {
  // Since the last sample: the event loop's delay, and the garbage collector's pauses.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // And the heap just after the last full (mark-compact) collection: what is live, near enough,
  // without forcing a collection.
  let gcMs = 0, gcMaxMs = 0, gcCount = 0, majorGcs = 0, heapAfterMajor = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration; gcMaxMs = Math.max(gcMaxMs, e.duration); gcCount++;
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) { majorGcs++; heapAfterMajor = process.memoryUsage().heapUsed; }
    }
  }).observe({ entryTypes: ['gc'] });
  const write = (seq) => {
    if (seq > 0 && typeof globalThis.gc === 'function' && process.env.LOAD_GC === '1') globalThis.gc();
    const loop = { loopDelayP99Ms: delay.percentile(99) / 1e6, loopDelayMaxMs: delay.max / 1e6, gcMs, gcMaxMs, gcCount, majorGcs, heapAfterMajor };
    delay.reset();
    gcMs = 0; gcMaxMs = 0; gcCount = 0; majorGcs = 0;
    fs.writeFileSync(file + '.tmp', JSON.stringify({ seq, at: Date.now(), ...process.memoryUsage(), ...loop }));
    fs.renameSync(file + '.tmp', file);
  };
  let seq = 0;
  process.on('SIGUSR2', () => write(++seq));
  write(0);
}`;

async function startServer(env) {
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

// ---------------------------------------------------------------------------------------------
// The server's memory.

/** VmRSS and friends of `pid`, in kB, from /proc/<pid>/status. */
function procStatus(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM'), anonKb: field('RssAnon'), fileKb: field('RssFile'), shmemKb: field('RssShmem') };
}

/** CPU seconds (user + system) the process has used, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100 on Linux)
}

/** Busy and total CPU seconds of the whole machine so far, from /proc/stat (idle and iowait are not busy). */
function machineCpu() {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  const total = ticks.slice(0, 8).reduce((s, t) => s + t, 0);
  const idle = ticks[3] + ticks[4];
  return { busyS: (total - idle) / 100, totalS: total / 100 };
}

/** Every process below `pid`, with its command line and RSS. */
function descendants(pid) {
  const parents = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const found = [];
  const walk = (p) => {
    for (const [child, parent] of parents) {
      if (parent !== p) continue;
      try {
        found.push({ pid: child, cmd: commandLine(child), rssKb: procStatus(child).rssKb });
      } catch {
        // Gone meanwhile.
      }
      walk(child);
    }
  };
  walk(pid);
  return found;
}

/** The process's arguments, the preload's long `data:` URL shortened. */
function commandLine(pid) {
  return fs
    .readFileSync(`/proc/${pid}/cmdline`, 'utf8')
    .split('\0')
    .filter(Boolean)
    .map((arg) => (arg.length > 60 ? `${arg.slice(0, 40)}…` : arg))
    .join(' ');
}

/** The V8 heap of the server, as its preload writes it on SIGUSR2 (undefined if it does not answer in 2 s). */
async function heapSample(pid) {
  let before = -1;
  try {
    before = JSON.parse(fs.readFileSync(memoryFile, 'utf8')).seq;
  } catch {
    return undefined; // the preload never wrote: do not signal (SIGUSR2 would end the process)
  }
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    await sleep(20);
    try {
      const m = JSON.parse(fs.readFileSync(memoryFile, 'utf8'));
      if (m.seq > before) {
        return {
          heapUsedMb: mb(m.heapUsed),
          heapTotalMb: mb(m.heapTotal),
          externalMb: mb(m.external),
          arrayBuffersMb: mb(m.arrayBuffers),
          rssMb: mb(m.rss),
          // Since the previous sample (about 5 s): the event loop's delay, the collector's pauses.
          loopDelayP99Ms: round(m.loopDelayP99Ms),
          loopDelayMaxMs: round(m.loopDelayMaxMs),
          gcMs: round(m.gcMs),
          gcMaxMs: round(m.gcMaxMs),
          gcCount: m.gcCount,
          majorGcs: m.majorGcs,
          heapAfterLastFullGcMb: m.heapAfterMajor === null ? null : mb(m.heapAfterMajor),
        };
      }
    } catch {
      // Being renamed in place: try again.
    }
  }
  return undefined;
}

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
const kbToMb = (kb) => Math.round((kb / 1024) * 10) / 10;

/** Samples RSS every second (heap every 5 s) into `timeline`, tagged with the current phase. */
function startSampler(pid) {
  const timeline = [];
  const heap = [];
  const t0 = Date.now();
  let phase = 'ready';
  let ticks = 0;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const s = procStatus(pid);
      timeline.push({
        t: Math.round((Date.now() - t0) / 100) / 10,
        phase,
        rssMb: kbToMb(s.rssKb),
        anonMb: kbToMb(s.anonKb),
        fileMb: kbToMb(s.fileKb),
        cpuS: cpuSeconds(pid),
      });
      if (ticks++ % 5 === 0) {
        const h = await heapSample(pid);
        if (h) heap.push({ t: Math.round((Date.now() - t0) / 100) / 10, phase, ...h });
      }
    } catch {
      // The server is gone: the run notices elsewhere.
    } finally {
      busy = false;
    }
  }, 1000);
  return {
    timeline,
    heap,
    setPhase(p) {
      phase = p;
    },
    stop() {
      clearInterval(timer);
    },
    /** Median RSS (and the other fields) of the last `n` samples of `p`. */
    settled(p, n = 5) {
      const samples = timeline.filter((s) => s.phase === p).slice(-n);
      if (samples.length === 0) return undefined;
      const med = (key) => median(samples.map((s) => s[key]));
      return { rssMb: med('rssMb'), anonMb: med('anonMb'), fileMb: med('fileMb'), samples: samples.length };
    },
    peak(p) {
      const samples = timeline.filter((s) => s.phase === p);
      return samples.length ? Math.max(...samples.map((s) => s.rssMb)) : undefined;
    },
    lastHeap(p) {
      return heap.filter((h) => h.phase === p).at(-1);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The clients.

class Stats {
  constructor() {
    this.sent = 0;
    this.skipped = 0;
    this.statuses = {};
    this.byKind = {};
    this.latencies = [];
    this.errors = {};
    this.timeouts = 0;
    this.keyLimited = 0;
    this.unexpected = [];
    this.unexpectedCount = 0;
  }
  kind(k) {
    return (this.byKind[k] ??= { sent: 0, statuses: {}, latencies: [], errors: 0, timeouts: 0 });
  }
}

/** One HTTP exchange on `agent`; resolves with status, body (first 4 KB) and milliseconds, or error. */
function exchange(agent, { method = 'GET', path: p, headers = {}, body }) {
  return new Promise((resolve) => {
    const started = performance.now();
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...r, ms: performance.now() - started });
    };
    const req = http.request(
      { host: HOST, port: PORT, method, path: p, agent, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) monetize-load-run', ...headers } },
      (res) => {
        const chunks = [];
        let size = 0;
        res.on('data', (c) => {
          if (size < 4096) chunks.push(c);
          size += c.length;
        });
        res.on('end', () => finish({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8').slice(0, 4096) }));
        res.on('error', (err) => finish({ error: err.code ?? err.message }));
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error('timeout'));
      finish({ error: 'timeout' });
    }, TIMEOUT_MS);
    req.on('error', (err) => finish({ error: err.message === 'timeout' ? 'timeout' : (err.code ?? err.message) }));
    if (body !== undefined) {
      req.setHeader('content-type', 'application/json');
      req.setHeader('content-length', Buffer.byteLength(body));
      req.end(body);
    } else {
      req.end();
    }
  });
}

/** What a client with state `c` sends for `kind`. */
function requestFor(kind, c, setup) {
  switch (kind) {
    case 'pricing':
      return { path: '/api/v1/pricing' };
    case 'search': {
      const word = Math.random() < 0.1 ? `${pick(SEARCH_WORDS)} ${randomUUID().slice(0, 8)}` : pick(SEARCH_WORDS);
      return { path: `/api/v1/search?q=${encodeURIComponent(word)}` };
    }
    case 'index':
      return { path: '/api/v1' };
    case 'validate-key':
      return { path: '/functions/v1/validate-key', headers: { 'x-api-key': c.key } };
    case 'ads': {
      const placement = setup.placements[c.nextPlacement++ % setup.placements.length];
      return { path: `/functions/v1/ads?placement_id=${placement}&session_id=${c.session}`, headers: { 'x-api-key': c.key } };
    }
    case 'events': {
      const ad = c.ad;
      if (!ad || (ad.impressed && (ad.clicked || Math.random() >= 0.1))) return requestFor('ads', c, setup);
      const type = ad.impressed ? 'click' : 'impression';
      if (type === 'click') ad.clicked = true;
      else ad.impressed = true;
      const event = {
        id: `${ad.decision}-${type}`,
        type,
        token: ad.token,
        ...(type === 'impression' ? { viewability: { visible_share: 1, visible_seconds: 2.5, area_px: 300 * 250 } } : {}),
      };
      return { method: 'POST', path: '/functions/v1/events', headers: { 'x-api-key': c.key }, body: JSON.stringify({ events: [event] }) };
    }
    case 'me (sandbox)':
      return { path: '/api/v1/me', headers: { authorization: 'Bearer svc_sandbox' } };
    case 'me/apps (token)':
      return { path: '/api/v1/me/apps', headers: { authorization: `Bearer ${setup.token}` } };
    case 'me/earnings (token)':
      return { path: '/api/v1/me/earnings', headers: { authorization: `Bearer ${setup.token}` } };
    default:
      throw new Error(`unknown kind ${kind}`);
  }
}

const pick = (list) => list[Math.floor(Math.random() * list.length)];
function pickKind() {
  let r = Math.random() * MIX_TOTAL;
  for (const m of MIX) {
    r -= m.weight;
    if (r < 0) return m.kind;
  }
  return MIX.at(-1).kind;
}

/**
 * `count` clients on addresses 127.<octet>.x.y, each sending `rate` requests a second, open
 * loop (a fixed interval with ±10% jitter, the first at a random point of the first interval),
 * for `seconds`. Resolves once every request is answered or timed out, with the agents closed.
 */
async function runClients({ octet, count, rate, seconds, setup, stats, budget }) {
  const interval = 1000 / rate;
  const deadline = performance.now() + seconds * 1000;
  const clients = Array.from({ length: count }, (_, i) => ({
    address: addressOf(octet, i),
    agent: new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, localAddress: addressOf(octet, i) }),
    key: setup.sdk[i % setup.sdk.length].key,
    session: `load-${octet}-${i}-${randomUUID().slice(0, 8)}`,
    nextPlacement: i,
    inFlight: 0,
    ad: undefined,
  }));
  const pending = new Set();
  await new Promise((allScheduled) => {
    let live = clients.length;
    for (const c of clients) {
      const tick = () => {
        if (performance.now() >= deadline || interrupted) {
          if (--live === 0) allScheduled();
          return;
        }
        if (budget.left <= 0) {
          budget.exhausted = true;
        } else if (c.inFlight >= MAX_IN_FLIGHT) {
          stats.skipped++;
        } else {
          budget.left--;
          const p = send(c, setup, stats);
          pending.add(p);
          p.finally(() => pending.delete(p));
        }
        setTimeout(tick, interval * (0.9 + Math.random() * 0.2));
      };
      setTimeout(tick, Math.random() * interval);
    }
  });
  await Promise.all(pending);
  for (const c of clients) c.agent.destroy();
}

async function send(c, setup, stats) {
  const kind = pickKind();
  const request = requestFor(kind, c, setup);
  // An events turn with no ad to report became an ads request: count it as what it is.
  const actual = request.path.startsWith('/functions/v1/ads') ? 'ads' : kind;
  const k = stats.kind(actual);
  stats.sent++;
  k.sent++;
  c.inFlight++;
  const r = await exchange(c.agent, request);
  c.inFlight--;
  if (r.error) {
    if (r.error === 'timeout') {
      stats.timeouts++;
      k.timeouts++;
    } else {
      stats.errors[r.error] = (stats.errors[r.error] ?? 0) + 1;
      k.errors++;
    }
    if (stats.unexpected.length < 50)
      stats.unexpected.push({ address: c.address, method: request.method ?? 'GET', path: request.path, error: r.error, ms: Math.round(r.ms) });
    stats.unexpectedCount++;
    return;
  }
  stats.statuses[r.status] = (stats.statuses[r.status] ?? 0) + 1;
  k.statuses[r.status] = (k.statuses[r.status] ?? 0) + 1;
  stats.latencies.push(r.ms);
  k.latencies.push(r.ms);
  if (r.status === 429 && /API key's requests are over its budget/.test(r.body)) stats.keyLimited++;
  const ok = (r.status >= 200 && r.status < 300) || r.status === 429;
  if (!ok) {
    stats.unexpectedCount++;
    if (stats.unexpected.length < 50)
      stats.unexpected.push({ address: c.address, method: request.method ?? 'GET', path: request.path, status: r.status, body: r.body.slice(0, 300) });
  }
  if (actual === 'ads' && r.status === 200) {
    try {
      const ad = JSON.parse(r.body);
      c.ad = { decision: ad.decision_id, token: ad.token, impressed: false, clicked: false };
    } catch {
      // A body over 4 KB would be cut: keep the last ad.
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Setup checks, once the server runs (from addresses of their own, 127.3.0.x).

/** The active placements of the keys' app, the policies the server announces, and a check that addresses count apart. */
async function checkSetup(prepared) {
  const agent = (i) => new http.Agent({ keepAlive: false, localAddress: addressOf(3, i) });
  const apps = await exchange(agent(0), { path: '/api/v1/me/apps?placement_status=active', headers: { authorization: `Bearer ${prepared.token}` } });
  if (apps.status !== 200) throw new Error(`GET /api/v1/me/apps with the minted token answered ${apps.status ?? apps.error}: ${apps.body ?? ''}`);
  const appId = prepared.sdk[0].appId;
  const body = JSON.parse(apps.body);
  const placements = (body.placements ?? body.apps?.flatMap((a) => a.placements ?? []) ?? [])
    .filter((p) => p.app_id === appId && p.status === 'active')
    .map((p) => p.id);
  if (placements.length === 0) placements.push(prepared.sdk[0].placementId);

  const validate = await exchange(agent(1), { path: '/functions/v1/validate-key', headers: { 'x-api-key': prepared.sdk[0].key } });
  if (validate.status !== 200) throw new Error(`GET /functions/v1/validate-key answered ${validate.status ?? validate.error}: ${validate.body ?? ''}`);
  const policies = parsePolicies(String(validate.headers['ratelimit-policy'] ?? ''));
  if (!policies.default || !policies.key) throw new Error(`unexpected RateLimit-Policy: ${validate.headers['ratelimit-policy']}`);

  // Two fresh addresses each get the whole budget: the server counts them apart, so binding works.
  const a = await exchange(agent(2), { path: '/api/v1/pricing' });
  const b = await exchange(agent(3), { path: '/api/v1/pricing' });
  const full = String(policies.default.q - 1);
  const apart = a.headers?.['x-ratelimit-remaining'] === full && b.headers?.['x-ratelimit-remaining'] === full;
  if (!apart) {
    throw new Error(
      `two loopback addresses did not get budgets of their own (remaining ${a.headers?.['x-ratelimit-remaining'] ?? a.error} and ${b.headers?.['x-ratelimit-remaining'] ?? b.error}, expected ${full}): is 127.0.0.0/8 routed to lo, and does the server see the peer address?`,
    );
  }
  return { placements, policies };
}

/** `"default";q=120;w=60, "key";q=6000;w=60` → { default: {q, w}, key: {q, w} }. */
function parsePolicies(header) {
  const out = {};
  for (const part of header.split(',')) {
    const m = /"([^"]+)";q=(\d+);w=(\d+)/.exec(part);
    if (m) out[m[1]] = { q: Number(m[2]), w: Number(m[3]) };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reporting.

function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}
const median = (values) => quantile(values, 0.5);
const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

function summarize(stats, seconds) {
  const answered = Object.values(stats.statuses).reduce((s, n) => s + n, 0);
  const errors = Object.values(stats.errors).reduce((s, n) => s + n, 0);
  const twoXX = Object.entries(stats.statuses)
    .filter(([s]) => s >= 200 && s < 300)
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    sent: stats.sent,
    answered,
    perSecond: round(stats.sent / seconds),
    statuses: stats.statuses,
    '2xx': twoXX,
    429: stats.statuses[429] ?? 0,
    '429ForKeyBudget': stats.keyLimited,
    other: stats.unexpectedCount - errors - stats.timeouts,
    errors: stats.errors,
    timeouts: stats.timeouts,
    skippedClientBacklog: stats.skipped,
    latencyMs: {
      p50: round(quantile(stats.latencies, 0.5)),
      p90: round(quantile(stats.latencies, 0.9)),
      p99: round(quantile(stats.latencies, 0.99)),
      max: round(Math.max(0, ...stats.latencies)),
    },
    byKind: Object.fromEntries(
      Object.entries(stats.byKind).map(([kind, k]) => [
        kind,
        {
          sent: k.sent,
          statuses: k.statuses,
          errors: k.errors,
          timeouts: k.timeouts,
          p50: round(quantile(k.latencies, 0.5)),
          p99: round(quantile(k.latencies, 0.99)),
        },
      ]),
    ),
    unexpected: stats.unexpected,
  };
}

// ---------------------------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
  // Not back: how much of the excess is heap V8 commits, and did it collect in the idle time?
  const idleFullGcs = sampler.heap.filter((h) => h.phase === 'idle').reduce((n, h) => n + (h.majorGcs ?? 0), 0);
  const heapDelta = idleHeap && startHeap ? round(idleHeap.heapTotalMb - startHeap.heapTotalMb) : undefined;
  const diagnosis =
    memoryOk || heapDelta === undefined
      ? ''
      : ` (of the ${round(afterIdle.rssMb - start.rssMb)} MB above the start, V8's committed heap accounts for ${heapDelta} MB; ${
          idleFullGcs > 0
            ? `V8 ran ${idleFullGcs} full collection(s) in the idle time, after which ${idleHeap.heapAfterLastFullGcMb} MB of heap was live`
            : 'V8 ran no full collection in the idle time, so that heap is likely garbage not yet collected (LOAD_GC=1 forces collections to tell)'
        })`;
  const verdicts = {
    onlyTwoXXAnd429: { ok: statusOk, line: `only 2xx and 429 (no other status, no error, no timeout, nothing skipped): ${statusOk ? 'yes' : 'NO'}` },
    memoryBack: {
      ok: memoryOk,
      line: `memory after ${IDLE_SECONDS} s idle within 10% of start: RSS ${start.rssMb} MB at start, ${afterIdle.rssMb} MB after idle (${growth >= 0 ? '+' : ''}${round(growth * 100)}%): ${memoryOk ? 'yes' : `NO${diagnosis}`}${FORCE_GC ? ' (LOAD_GC=1: full collections were forced at each heap sample)' : ''}`,
    },
  };
  const report = {
    startedAt: stamp,
    settings: {
      clients: CLIENTS,
      loadSeconds: LOAD_SECONDS,
      idleSeconds: IDLE_SECONDS,
      over: OVER,
      ratePerClient: rate,
      ceilingPerAddress: policies.default,
      keyPolicy: policies.key,
      sdkKeys: keys,
      sdkShare: SDK_SHARE,
      warmUpClients: WARMUP_CLIENTS,
      warmUpSeconds: WARMUP_SECONDS,
      settleSeconds: SETTLE_SECONDS,
      timeoutMs: TIMEOUT_MS,
      maxRequests: budget.left + stats.sent,
      requestBudgetExhausted: budget.exhausted,
      forcedGc: FORCE_GC,
      mix: MIX,
    },
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, duringLoad: machineLoad },
    server: { pid, cmd, descendants: procs, placements, cpuSecondsDuringLoad: round(cpuUsed, 1), cpuShareDuringLoad: round(cpuUsed / loadSeconds, 2) },
    expected429Share: round(1 - 1 / OVER, 3),
    load,
    warmUp,
    memory: {
      atBoot: sampler.timeline[0],
      start: { ...start, heap: startHeap },
      peakDuringLoadMb: peak,
      endOfLoad: { ...end, heap: endHeap },
      afterIdle: { ...afterIdle, heap: idleHeap },
      growthAfterIdle: round(growth, 4),
      timeline: sampler.timeline,
      heapSamples: sampler.heap,
    },
    verdicts,
    durationS: { total: round((Date.now() - runStarted) / 1000), build: round((buildDoneAt - runStarted) / 1000) },
    ok: statusOk && memoryOk,
  };

  const loadHeap = sampler.heap.filter((h) => h.phase === 'load' || h.phase === 'end');
  report.server.duringLoad = {
    loopDelayMaxMs: Math.max(0, ...loadHeap.map((h) => h.loopDelayMaxMs ?? 0)),
    gcPauseMs: round(loadHeap.reduce((sum, h) => sum + (h.gcMs ?? 0), 0)),
    gcMaxPauseMs: Math.max(0, ...loadHeap.map((h) => h.gcMaxMs ?? 0)),
  };
  const statusLine = Object.entries(load.statuses)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  const lines = [
    `Requests: ${load.sent} sent over ${LOAD_SECONDS} s (${load.perSecond}/s; the last answered or timed out ${round(loadSeconds - LOAD_SECONDS)} s after), ${load.answered} answered; ${statusLine}; 429 for a key's budget: ${load['429ForKeyBudget']}; errors: ${JSON.stringify(load.errors)}; timeouts: ${load.timeouts}; skipped: ${load.skippedClientBacklog}`,
    `429 share: ${round(((load.statuses[429] ?? 0) / Math.max(1, load.answered)) * 100)}% (about ${round(report.expected429Share * 100)}% expected at ${OVER}x the ceiling)`,
    `Latency: p50 ${load.latencyMs.p50} ms, p90 ${load.latencyMs.p90} ms, p99 ${load.latencyMs.p99} ms, max ${load.latencyMs.max} ms`,
    `CPU during load, in cores of ${report.machine.cpus}: the machine ${machineLoad.busyCores} (this server ${machineLoad.serverCores}, the load generator ${machineLoad.loadGeneratorCores}, other processes ${machineLoad.otherCores}); load average ${machineLoad.loadAverage1mAtStart} → ${machineLoad.loadAverage1mAtEnd}; the server's child processes: ${procs.length}`,
    `Server's event loop during load: delay at most ${report.server.duringLoad.loopDelayMaxMs} ms; garbage collection paused it ${report.server.duringLoad.gcPauseMs} ms in all, ${report.server.duringLoad.gcMaxPauseMs} ms at most`,
    `RSS: at boot ${sampler.timeline[0]?.rssMb} MB, start ${start.rssMb} MB, peak during load ${peak} MB, end of load ${end?.rssMb} MB, after ${IDLE_SECONDS} s idle ${afterIdle.rssMb} MB`,
    `Heap just after the last full collection (what is live, near enough): start ${startHeap?.heapAfterLastFullGcMb ?? '?'} MB, end of load ${endHeap?.heapAfterLastFullGcMb ?? '?'} MB, after idle ${idleHeap?.heapAfterLastFullGcMb ?? '?'} MB; full collections during load: ${loadHeap.reduce((n, h) => n + (h.majorGcs ?? 0), 0)}`,
    `Heap used: start ${startHeap?.heapUsedMb ?? '?'} MB, end of load ${endHeap?.heapUsedMb ?? '?'} MB, after idle ${idleHeap?.heapUsedMb ?? '?'} MB (heap total ${startHeap?.heapTotalMb ?? '?'} / ${endHeap?.heapTotalMb ?? '?'} / ${idleHeap?.heapTotalMb ?? '?'} MB; external ${startHeap?.externalMb ?? '?'} / ${endHeap?.externalMb ?? '?'} / ${idleHeap?.externalMb ?? '?'} MB)`,
    `Warm-up: ${warmUp.sent} requests, ${Object.entries(warmUp.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
    verdicts.onlyTwoXXAnd429.line,
    verdicts.memoryBack.line,
  ];
  const kindRows = Object.entries(load.byKind).map(
    ([kind, k]) =>
      `| ${kind} | ${k.sent} | ${Object.entries(k.statuses)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')} | ${k.errors + k.timeouts} | ${k.p50} | ${k.p99} |`,
  );
  const md = [
    `# Load run ${stamp}`,
    '',
    `${CLIENTS} clients, each on its own loopback address, at ${OVER}x the per-address ceiling (${policies.default.q} per ${policies.default.w} s) for ${LOAD_SECONDS} s, then ${IDLE_SECONDS} s idle; ${keys} SDK key(s) (budget ${policies.key.q} each); ${report.machine.cpus} CPUs (${report.machine.cpuModel}), Node ${process.version}. Took ${report.durationS.total} s (build ${report.durationS.build} s).`,
    '',
    ...lines.map((l) => `- ${l}`),
    '',
    '| kind | sent | statuses | errors | p50 ms | p99 ms |',
    '| --- | ---: | --- | ---: | ---: | ---: |',
    ...kindRows,
    '',
    ...(load.unexpected.length ? ['Answers other than 2xx and 429 (first 50):', '', ...load.unexpected.map((u) => `- ${JSON.stringify(u)}`), ''] : []),
  ].join('\n');
  fs.writeFileSync(path.join(resultsDir, `load-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, `load-${stamp}.md`), md);
  console.log(`\n${lines.join('\n')}`);
  for (const u of [...load.unexpected, ...warmUp.unexpected].slice(0, 10)) console.log(`  unexpected: ${JSON.stringify(u)}`);
  console.log(`Took ${report.durationS.total} s. Results: bench-results/load-${stamp}.json and .md`);
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
