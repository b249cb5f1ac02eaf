#!/usr/bin/env node
// `npm run dev:first-run`: a developer's first run of `npm run dev`, measured on this machine.
//
// 1. `npm run dev` on a free port of 127.0.0.1, with a fresh embedded database
//    (PGLITE_DATA_DIR=.data/first-run-<time>) and a fresh Next dist dir (.next-first-run/, so no
//    compiled code or Turbopack cache is reused, as in a fresh clone; the site's stylesheet, like
//    the database template, is as `npm install` left it): the time from the command to
//    the first successful answer of `/` (this start also creates, migrates and seeds
//    the database), with where it went (the server's own lines: listening, database ready, seeded,
//    Next's timing of GET /). The server then runs 5 s more, as a developer's would, so Turbopack
//    may write its cache.
// 2. Stopped (SIGTERM, as Ctrl-C) and started again on the same database and dist dir, three
//    times: the time to the first answer of `/` of each restart, and their median. One restart
//    alone is not a measure here: on this two-core machine the same restart took from 3.4 s to
//    5.4 s, run after run, and the bare page's from 2.8 s to 3.9 s.
// 3. 100 requests, one at a time, over the main pages, docs pages, markdown twins and the public
//    API, to the last restarted server; each must answer as expected (200; 401 for the account API
//    without a token).
// 4. No line of either server's output that looks like a warning (`warn`, `Warning`, `⚠`) may
//    appear twice (JSON log lines compared without their `time`).
// 5. The same starts (a first start, three restarts), first, of a bare Next.js page (one layout,
//    one page, written to .data/bare-next-<time>/ in TypeScript as create-next-app makes one, with
//    this checkout's node_modules hard-linked in, and served by `npm run dev`, whose script there
//    is `next dev`, with Turbopack rooted there): the yardstick.
//    Ours must answer within 5 s of the bare page's first start, and restart within 1.5 times its
//    restart (the medians of the three), in the same run on the same machine.
// Prints a report and exits 1 if any check fails. The times are this machine's, under whatever
// else it runs: the report gives its cores and load. It only talks to 127.0.0.1: the server
// listens there alone, and Next's telemetry and npm's update check are off. The server's output
// is in bench-results/dev-first-run-<time>-<start>.log; the database and dist dir are
// removed at the end unless `-- --keep`. `next dev` rewrites next-env.d.ts for its dist dir (and
// would add the dist dir's types to tsconfig.json if they were missing): both are put back at the
// end. Not part of `npm test`.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = new Date()
  .toISOString()
  .replace(/\.\d+Z$/, 'Z')
  .replaceAll(':', '-');
const HOST = '127.0.0.1';
const DATA_DIR = `.data/first-run-${stamp}`;
const DIST_DIR = '.next-first-run';
const RESULTS_DIR = path.join(root, 'bench-results');
/** Ours against the bare page's, in the same run: a first start at most this much later, a restart at most this many times as long. */
const FIRST_WITHIN_MS = 5_000;
const RESTART_WITHIN = 1.5;
const BARE_DIR = `.data/bare-next-${stamp}`;
/** How long a start may take before the run gives up on it. */
const START_TIMEOUT_MS = 180_000;
/** SIGTERM, then this long for the server to close its database and exit, then SIGKILL. */
const STOP_TIMEOUT_MS = 15_000;
/** Ports a developer's own servers use (`npm run dev`, the e2e runs): never these. */
const RESERVED_PORTS = new Set([3000, 3300]);
/** How long the first server runs after its first answer before it is stopped. */
const KEEP_RUNNING_MS = 5_000;
/** The rest after the bare app's files are linked or removed. */
const SETTLE_MS = 3_000;
/** Restarts of each server; the median of their times is compared. */
const RESTARTS = 3;
const REQUESTS = 100;
/**
 * The paths of the 100 requests, in turn: the site's main pages, docs pages, markdown twins and the
 * public API (21 API requests in all, within its budget of 120 a minute per address).
 */
const PATHS = [
  '/',
  '/docs',
  '/pricing',
  '/publishers',
  '/advertisers',
  '/signin',
  '/signup',
  '/demo',
  '/docs/quickstart',
  '/docs/authentication',
  '/docs/rest-api',
  '/docs/sdk-integration',
  '/docs/faq',
  '/index.md',
  '/docs/quickstart.md',
  '/llms.txt',
  '/sitemap.xml',
  '/robots.txt',
  '/.well-known/oauth-authorization-server',
  '/api/v1',
  '/api/v1/pricing',
  '/api/v1/search?q=payouts',
  '/api/v1/pages',
  '/api/v1/openapi.json',
  '/api/v1/me/apps',
];
/** Answers other than 2xx that a path is meant to give (no token: the account API's 401). */
const EXPECTED_STATUS = { '/api/v1/me/apps': 401 };
const WARNING = /warn|⚠/i;
/** Next's line for a request of `/`, with its timing. */
const GET_ROOT = /^\s*GET \/ \d{3} in /;
const RESTART_NAMES = Array.from({ length: RESTARTS }, (_, i) => `restart-${i + 1}`);
const label = (name) =>
  name.startsWith('bare-')
    ? `a bare Next page, ${label(name.slice('bare-'.length))}`
    : name === 'first'
      ? 'first start (fresh database and dist dir)'
      : `restart ${name.slice('restart-'.length)} of ${RESTARTS}`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const keep = process.argv.includes('--keep');

/** A port the system gives for 127.0.0.1, free when we asked, and not one of the reserved ones. */
async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen(0, HOST, () => {
        const { port } = server.address();
        server.close(() => resolve(port));
      });
    });
    if (!RESERVED_PORTS.has(port)) return port;
  }
}

// Files `next dev` rewrites outside its dist dir, put back when the run ends. Not between the two
// starts: a developer's restart finds them as the first start left them. (tsconfig.json already
// includes this dist dir's types, as it does .next's, so Next has nothing to add there.)
const REWRITTEN = ['tsconfig.json', 'next-env.d.ts'].map((file) => path.join(root, file));
const snapshot = () => REWRITTEN.map((full) => ({ full, content: fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null }));
function restore(files) {
  for (const { full, content } of files) {
    const now = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null;
    if (now === content) continue;
    if (content === null) fs.rmSync(full, { force: true });
    else fs.writeFileSync(full, content);
  }
}

/** The environment of a developer's `npm run dev`: nothing of ours but the database's place. */
function devEnvironment() {
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(npm_|NEXT_|PORT$|HOST$|DATABASE_URL$|PGLITE_DATA_DIR$|PUBLIC_BASE_URL$|SEED_DEMO$|NODE_ENV$|NODE_OPTIONS$|LOG_LEVEL$|CACHES_OFF$)/.test(name))
      delete env[name];
  }
  return { ...env, PGLITE_DATA_DIR: DATA_DIR, NEXT_DIST_DIR: DIST_DIR, NEXT_TELEMETRY_DISABLED: '1', npm_config_update_notifier: 'false' };
}

/**
 * A bare Next.js app: a layout and a page, nothing else, with this checkout's node_modules linked in
 * (hard links, made in a second or two and not timed) and Turbopack's root at the app itself.
 * Linked, not found by walking up: with its root at this checkout, Turbopack finds this checkout's
 * instrumentation.ts above the app and compiles it, so the yardstick would carry our code too.
 */
function writeBareApp() {
  const dir = path.join(root, BARE_DIR);
  fs.mkdirSync(path.join(dir, 'app'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "private": true, "scripts": { "dev": "next dev" } }\n');
  linkTree(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  // TypeScript, as create-next-app makes a new app and as ours is: Next checks a TypeScript
  // project's tsconfig.json at every start, which a JavaScript yardstick would not pay for.
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2017',
          lib: ['dom', 'dom.iterable', 'esnext'],
          allowJs: true,
          skipLibCheck: true,
          strict: true,
          noEmit: true,
          esModuleInterop: true,
          module: 'esnext',
          moduleResolution: 'bundler',
          resolveJsonModule: true,
          isolatedModules: true,
          jsx: 'react-jsx',
          incremental: true,
          plugins: [{ name: 'next' }],
          paths: { '@/*': ['./*'] },
        },
        include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts', '.next/dev/types/**/*.ts'],
        exclude: ['node_modules'],
      },
      null,
      2,
    )}\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'next.config.ts'),
    `import type { NextConfig } from 'next';\n\nconst nextConfig: NextConfig = { turbopack: { root: ${JSON.stringify(dir)} } };\n\nexport default nextConfig;\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'app', 'layout.tsx'),
    'export default function RootLayout({ children }: { children: React.ReactNode }) {\n  return (\n    <html lang="en">\n      <body>{children}</body>\n    </html>\n  );\n}\n',
  );
  fs.writeFileSync(path.join(dir, 'app', 'page.tsx'), 'export default function Page() {\n  return <h1>Hello</h1>;\n}\n');
  return dir;
}

/** `to` as a tree of hard links to the files under `from` (`cp -al` where there is one; copies where links cannot be made). */
function linkTree(from, to, tryCp = true) {
  if (tryCp) {
    try {
      execFileSync('cp', ['-al', from, to], { stdio: 'ignore' });
      return;
    } catch {
      fs.rmSync(to, { recursive: true, force: true });
    }
  }
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)];
    if (entry.isDirectory()) linkTree(source, target, false);
    else if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else {
      try {
        fs.linkSync(source, target);
      } catch {
        fs.copyFileSync(source, target);
      }
    }
  }
}

/**
 * `npm run dev` on `port`, here or in the bare app (`bare`, whose script is `next dev`), in its own
 * process group, its output lines kept with their time since the start.
 */
function startDev(name, port, bare = null) {
  const log = fs.openSync(path.join(RESULTS_DIR, `dev-first-run-${stamp}-${name}.log`), 'w');
  // Both as a developer types them: `npm run dev`, whose script is `next dev` in the bare app.
  const npmCli = process.env.npm_execpath;
  const [command, args] = npmCli?.endsWith('.js')
    ? [process.execPath, [npmCli, 'run', 'dev', '--', '-p', String(port), '-H', HOST]]
    : ['npm', ['run', 'dev', '--', '-p', String(port), '-H', HOST]];
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: bare ?? root,
    // The bare app's `next dev` also waits at Ctrl-C for Turbopack to write its cache, as ours
    // does (scripts/serve.mjs sets the same variable): both restarts find a whole cache.
    env: bare ? { ...devEnvironment(), __NEXT_DEV_WAIT_FOR_TURBOPACK_SHUTDOWN: '1' } : devEnvironment(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const server = { name, child, started, lines: [], exited: null };
  server.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      fs.writeSync(log, chunk);
      const parts = (rest + chunk).split('\n');
      rest = parts.pop();
      for (const text of parts) server.lines.push({ at: performance.now() - started, text: plain(text) });
    });
    stream.on('end', () => {
      if (rest) server.lines.push({ at: performance.now() - started, text: plain(rest) });
    });
  }
  // 'close', not 'exit': the pipes may still carry output after the process exits.
  child.once('close', () => fs.closeSync(log));
  return server;
}

const plain = (text) => text.replace(/\x1b\[[0-9;]*m/g, '').trimEnd();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * After the bare app's node_modules is linked or removed (some 60,000 files): the file system's
 * writes flushed and a few seconds' rest, so that neither start is timed while the machine is
 * still busy with them (our first start measured about 1 s slower without it).
 */
async function settle() {
  try {
    execFileSync('sync', { stdio: 'ignore' });
  } catch {
    // No sync command: the rest alone.
  }
  await sleep(SETTLE_MS);
}

function alive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the server's group (npm and the server, as Ctrl-C), SIGKILL if it has not exited in time. */
async function stopDev(server) {
  const { pid } = server.child;
  if (!alive(pid)) return;
  process.kill(-pid, 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  if (alive(pid)) {
    console.error(`  ${server.name}: still running ${STOP_TIMEOUT_MS / 1000} s after SIGTERM; killed`);
    process.kill(-pid, 'SIGKILL');
  }
}

/** Milliseconds from the command to the first 2xx answer of `path`, asked again every 100 ms. */
async function firstAnswer(server, port, urlPath) {
  const deadline = server.started + START_TIMEOUT_MS;
  let last = 'no answer';
  while (performance.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) throw new Error(`${server.name}: npm run dev exited before answering (${last})`);
    try {
      const res = await fetch(`http://${HOST}:${port}${urlPath}`, { redirect: 'manual', signal: AbortSignal.timeout(START_TIMEOUT_MS) });
      await res.arrayBuffer();
      if (res.ok) return performance.now() - server.started;
      last = `status ${res.status}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await sleep(100);
  }
  throw new Error(`${server.name}: no answer of ${urlPath} within ${START_TIMEOUT_MS / 1000} s (${last})`);
}

/** The last time anything in the dist dir's Turbopack cache was written, on Date.now()'s clock (0: nothing yet). */
function lastCacheWrite() {
  const cache = path.join(root, DIST_DIR, 'dev', 'cache');
  let newest = 0;
  if (!fs.existsSync(cache)) return newest;
  for (const entry of fs.readdirSync(cache, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    try {
      newest = Math.max(newest, fs.statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
    } catch {
      // Deleted since the listing: Turbopack replaces its files as it writes.
    }
  }
  return newest;
}

/** Where a start's time went, from the server's own lines. */
function breakdown(server) {
  const at = (test) => server.lines.find((l) => test(l.text));
  const json = (message) => {
    const line = at((t) => t.startsWith('{') && t.includes(`"message":"${message}"`));
    return line && { at: line.at, fields: JSON.parse(line.text) };
  };
  const ready = at((t) => /server ready on .* in \d+ ms/.test(t));
  const database = json('database ready');
  const seeded = json('demo accounts seeded');
  const get = at((t) => GET_ROOT.test(t));
  const rows = [];
  if (database) {
    const { ms, migrations_applied: migrations } = database.fields;
    rows.push(['database ready', database.at, `opened and migrated in ${s(ms)} (${migrations} migrations applied)`]);
  }
  if (seeded) rows.push(['demo accounts seeded', seeded.at, '']);
  if (ready) rows.push(['listening', ready.at, ready.text.replace(/^>\s*/, '')]);
  if (get) rows.push(['GET / answered', get.at, get.text.trim()]);
  return rows.sort((a, b) => a[1] - b[1]);
}

/** The warning-like lines of a server's output that appear more than once, with their counts. */
function repeatedWarnings(server) {
  const counts = new Map();
  for (const { text } of server.lines) {
    if (!WARNING.test(text)) continue;
    let key = text.trim();
    if (key.startsWith('{')) {
      try {
        const fields = JSON.parse(key);
        delete fields.time;
        key = JSON.stringify(fields);
      } catch {
        // Not a JSON log line after all: compared as it is.
      }
    }
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return { all: counts, repeated: [...counts].filter(([, n]) => n > 1) };
}

function removeRunDirs() {
  fs.rmSync(path.join(root, BARE_DIR), { recursive: true, force: true });
  fs.rmSync(path.join(root, DATA_DIR), { recursive: true, force: true });
  fs.rmSync(path.join(root, `${DATA_DIR}.lock`), { force: true });
  fs.rmSync(path.join(root, DIST_DIR), { recursive: true, force: true });
}

const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(', ');
const s = (ms) => `${(ms / 1000).toFixed(1)} s`;
const verdict = (ok) => (ok ? 'ok' : 'FAILED');

/** The 100 requests over PATHS, one at a time, each checked for its expected status. */
async function requests(port, checks) {
  const failures = [];
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const urlPath = PATHS[i % PATHS.length];
    try {
      const res = await fetch(`http://${HOST}:${port}${urlPath}`, { redirect: 'manual', signal: AbortSignal.timeout(60_000) });
      await res.arrayBuffer();
      if (res.status !== (EXPECTED_STATUS[urlPath] ?? 200)) failures.push(`${urlPath}: ${res.status}`);
    } catch (err) {
      failures.push(`${urlPath}: ${err.cause?.code ?? err.message}`);
    }
  }
  console.log(
    `  ${REQUESTS} requests over ${PATHS.length} paths in ${s(performance.now() - started)}${failures.length ? `; unexpected: ${failures.join(', ')}` : ', each answered as expected'}`,
  );
  checks.push([`${REQUESTS} requests answered as expected`, failures.length === 0, `${REQUESTS - failures.length} of ${REQUESTS}`]);
}

async function main() {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  fs.rmSync(path.join(root, DIST_DIR), { recursive: true, force: true });
  const port = await freePort();
  console.log(`npm run dev on ${HOST}:${port}, PGLITE_DATA_DIR=${DATA_DIR}, NEXT_DIST_DIR=${DIST_DIR} (both fresh); first, a bare Next page in ${BARE_DIR}`);
  console.log(`This machine: ${os.cpus().length} cores, load average ${load()} (the times below are this machine's, with whatever else it runs)`);
  const checks = [];
  files = snapshot();
  const answers = {};
  const run = async (name, then, bare = null) => {
    const server = startDev(name, port, bare);
    servers.push(server);
    try {
      const ms = await firstAnswer(server, port, '/');
      answers[name] = ms;
      const answeredAt = Date.now();
      console.log(`\n${label(name)}: first answer of / after ${s(ms)}`);
      // Next logs the request once its answer is sent: give the line a moment to arrive.
      for (let i = 0; i < 20 && !server.lines.some((l) => GET_ROOT.test(l.text)); i++) await sleep(100);
      for (const [what, at, detail] of breakdown(server)) console.log(`  ${s(at).padStart(7)}  ${what.padEnd(22)} ${detail}`);
      await then?.(answeredAt);
    } finally {
      await stopDev(server);
    }
  };
  try {
    // The yardstick first: a bare Next page's first start and restarts, on this machine, now.
    const bare = writeBareApp();
    await settle();
    await run('bare-first', () => sleep(KEEP_RUNNING_MS), bare);
    for (const name of RESTART_NAMES) await run(`bare-${name}`, null, bare);
    // Gone before ours start: its node_modules is inside this checkout, which our server watches.
    fs.rmSync(bare, { recursive: true, force: true });
    await settle();
    await run('first', async (answeredAt) => {
      // A developer looks at the page a moment before stopping the server; Turbopack writes its
      // cache when it has been idle a while, and `next dev` does not wait for it on exit.
      await sleep(KEEP_RUNNING_MS);
      const written = lastCacheWrite();
      console.log(
        `  kept running ${s(KEEP_RUNNING_MS)}; Turbopack's cache last written ${written ? `${s(written - answeredAt)} after the first answer` : 'never'}`,
      );
    });
    // The requests go to the last restart, so that every restart finds the cache as the first
    // start left it, as the bare page's do.
    const last = RESTART_NAMES.at(-1);
    for (const name of RESTART_NAMES) await run(name, name === last ? () => requests(port, checks) : null);
    const bareRestart = median(RESTART_NAMES.map((name) => answers[`bare-${name}`]));
    const restart = median(RESTART_NAMES.map((name) => answers[name]));
    const each = (prefix) => RESTART_NAMES.map((name) => s(answers[`${prefix}${name}`])).join(', ');
    console.log(`\nRestarts, in order: the bare page's ${each('bare-')}; ours ${each('')}.`);
    console.log(
      `The bare page: ${s(answers['bare-first'])} first, ${s(bareRestart)} after a restart (median). Ours: ${s(answers.first)} first (${s(answers.first - answers['bare-first'])} more), ${s(restart)} after a restart (median, ${(restart / bareRestart).toFixed(2)}x).`,
    );
    checks.push([
      `first start within ${s(FIRST_WITHIN_MS)} of the bare page's (${s(answers['bare-first'])})`,
      answers.first <= answers['bare-first'] + FIRST_WITHIN_MS,
      s(answers.first),
    ]);
    checks.push([
      `restart within ${RESTART_WITHIN}x the bare page's (median ${s(bareRestart)})`,
      restart <= bareRestart * RESTART_WITHIN,
      `median ${s(restart)}`,
    ]);
  } catch (err) {
    checks.push([err.message, false, '']);
  } finally {
    if (!keep) removeRunDirs();
  }

  // The yardstick must be bare: none of our log lines (JSON, from lib/platform/log.ts) in its output.
  const ours = servers.filter((x) => x.name.startsWith('bare')).flatMap((x) => x.lines.filter((l) => l.text.startsWith('{"time"')));
  checks.push(['the bare page ran none of our code', ours.length === 0, ours.length ? ours[0].text.slice(0, 160) : '']);

  console.log('');
  for (const server of servers.filter((x) => !x.name.startsWith('bare'))) {
    const { all, repeated } = repeatedWarnings(server);
    console.log(`${label(server.name)}: ${all.size} distinct warning line(s) in the output${repeated.length ? ', repeated:' : ''}`);
    for (const [line, n] of repeated) console.log(`  ${n}x ${line.slice(0, 200)}`);
    checks.push([`${label(server.name)}: no warning line twice`, repeated.length === 0, `${repeated.length} repeated`]);
  }

  console.log(`\nLoad average at the end: ${load()}`);
  console.log('\nChecks:');
  for (const [what, ok, detail] of checks) console.log(`  ${verdict(ok).padEnd(6)} ${what}${detail ? `: ${detail}` : ''}`);
  console.log(
    `\nServer output: bench-results/dev-first-run-${stamp}-{${servers.map((x) => x.name).join(',')}}.log${keep ? `; kept ${DATA_DIR} and ${DIST_DIR}` : ''}`,
  );
  process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
}

// Whatever way the run ends (an error, Ctrl-C): no server left running, the rewritten files put back.
const servers = [];
let files = [];
process.on('exit', () => {
  for (const { child } of servers) if (alive(child.pid)) process.kill(-child.pid, 'SIGKILL');
  restore(files);
  if (!keep) removeRunDirs();
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping`);
    process.exit(130);
  });
}

await main();
