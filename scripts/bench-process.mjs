// Process and build plumbing shared by the benchmark scripts, scripts/bench.mjs (`npm run bench`)
// and scripts/load-run.mjs (`npm run bench:load`): child processes each in its own process group,
// logged to bench-results/ and stopped on any way out (success, error, Ctrl-C); `next build` with
// the files it rewrites outside its dist dir put back; a server's port and readiness checks.
// Call setUp() once before anything else of it.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const stamp = new Date()
  .toISOString()
  .replace(/\.\d+Z$/, 'Z')
  .replaceAll(':', '-');
export const resultsDir = path.join(root, 'bench-results');

let logPrefix = '';
let stopTimeoutMs = 10_000;

/** Set on a signal (Ctrl-C): failures of whatever was running are then our own doing, so stay quiet. */
export let interrupted = false;

/** @type {Set<import('node:child_process').ChildProcess>} */
const children = new Set();

/**
 * Makes bench-results/ and stops every child on any way out. `logPrefix` starts each log's file
 * name (bench-results/<logPrefix><stamp>-<name>.log), a child has `stopTimeoutMs` to exit after
 * SIGTERM before SIGKILL, and `stopping` is what the message on a signal says is being stopped.
 */
export function setUp(options) {
  ({ logPrefix, stopTimeoutMs } = options);
  fs.mkdirSync(resultsDir, { recursive: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      interrupted = true;
      console.error(`\n${signal}: stopping ${options.stopping}`);
      cleanup().finally(() => process.exit(130));
    });
  }
  // Last resort if we exit without awaiting cleanup (an exception in a callback): synchronous kill.
  process.on('exit', () => {
    for (const child of children) signalGroup(child, 'SIGKILL');
    restoreRewrittenFiles();
  });
}

export const logPath = (name) => path.join(resultsDir, `${logPrefix}${stamp}-${name}.log`);

/**
 * Starts `node ...args` in its own process group (`detached`), so stopping it also stops whatever
 * it spawned (`next start` may fork a worker), and a terminal's Ctrl-C reaches only us: we stop it.
 * `env` is its whole environment. Output goes to logPath(name), read back when something fails.
 */
export function launch(name, args, env, cwd = root) {
  if (interrupted) throw new Error('interrupted'); // cleanup has begun: start nothing new
  const log = fs.openSync(logPath(name), 'a');
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', log, log], detached: true });
  fs.closeSync(log); // the child holds its own copy of the descriptor
  child.logName = name;
  children.add(child);
  child.exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
    child.once('error', (error) => {
      children.delete(child);
      resolve({ code: null, signal: null, error });
    });
  });
  return child;
}

function signalGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}

const hasExited = (child) => child.exitCode !== null || child.signalCode !== null;

/** SIGTERM (serve.mjs then closes the database), SIGKILL if the group has not exited in time. */
export async function stop(child) {
  if (hasExited(child)) return;
  signalGroup(child, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), stopTimeoutMs);
  await child.exited;
  clearTimeout(timer);
  signalGroup(child, 'SIGKILL'); // anything of its group still left
}

export function tail(file, lines) {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

// Files `next build` rewrites outside its dist dir: it adds its dist dir's types to tsconfig.json
// and points next-env.d.ts at them, with no option to opt out. Put them back right after the build
// (or on the way out if it is interrupted). The snapshot is dropped once restored, so a `next dev`
// started later can still rewrite next-env.d.ts without us undoing it.

let rewrittenByBuild = [];

function snapshotRewrittenFiles() {
  rewrittenByBuild = ['tsconfig.json', 'next-env.d.ts'].map((file) => {
    const full = path.join(root, file);
    return { full, content: fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null };
  });
}

function restoreRewrittenFiles() {
  const files = rewrittenByBuild;
  rewrittenByBuild = [];
  for (const { full, content } of files) {
    const now = fs.existsSync(full) ? fs.readFileSync(full, 'utf8') : null;
    if (now === content) continue;
    if (content === null) fs.rmSync(full, { force: true });
    else fs.writeFileSync(full, content);
  }
}

let cleaning;
/** Stops every child still running and puts back what a build rewrote: call it on the way out. */
export function cleanup() {
  cleaning ??= (async () => {
    await Promise.all([...children].map(stop));
    restoreRewrittenFiles();
  })();
  return cleaning;
}

/**
 * `next build ...args` with `env` on top of ours, by the Next of the checkout in `cwd` (one copy of
 * Next and React per build), logged to logPath(log); prints `Building <label> ... done in N s`.
 */
export async function nextBuild(label, log, args, env, cwd = root) {
  const started = Date.now();
  process.stdout.write(`Building ${label} ... `);
  snapshotRewrittenFiles();
  const child = launch(
    log,
    [path.join(cwd, 'node_modules/next/dist/bin/next'), 'build', ...args],
    { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
    cwd,
  );
  const { code, signal, error } = await child.exited;
  restoreRewrittenFiles();
  if (code !== 0) {
    if (interrupted) throw new Error('interrupted');
    console.log('failed');
    console.error(tail(logPath(log), 60));
    throw new Error(`building ${label} failed (${error?.message ?? signal ?? `exit ${code}`}); log: ${logPath(log)}`);
  }
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** A port something already listens on would answer our readiness poll with the wrong server. */
export function assertPortFree(port, remedy = 'stop whatever listens there and run again') {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error(`port ${port} is already in use; ${remedy}`));
    });
    socket.once('error', () => resolve());
  });
}

/**
 * Polls `url` until it answers 2xx, and resolves to nothing then; or to why not, early if the
 * server exits: `exited`, or `not ready after <timeout> s (<last answer>)`.
 */
export async function waitReady(child, url, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (hasExited(child)) break;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.ok) return undefined;
      last = `status ${res.status}`;
    } catch (err) {
      last = err.cause?.code ?? err.message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return hasExited(child) ? 'exited' : `not ready after ${timeoutMs / 1000} s (${last})`;
}
