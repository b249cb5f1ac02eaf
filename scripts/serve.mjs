#!/usr/bin/env node
// Serves the app: `npm run dev` (node scripts/serve.mjs --dev) and `npm start`.
//
// `npm run dev` starts Node with --wasm-tiering-budget=100000000 (package.json): V8 then compiles
// the embedded database's WebAssembly with its optimizing compiler only for code that has run a
// long while (the default budget is 1.8 million), not for what opening the database runs once.
// At the default, that compiling took about a second of CPU on two cores during a restart, beside
// Turbopack restoring the first page (`npm run dev:first-run`); the queries that follow are as
// fast once their code has run enough (a query repeated 200 times: the same time per batch after
// the first forty).
//
// Why not plain `next dev` / `next start`: Next only sets X-Forwarded-For when the client did
// not send one, so behind it a client could choose the address it is rate-limited by. This
// small server plays the part a platform plays in production (Vercel overwrites the header):
// it appends the socket's peer address, and lib/platform/http/client-ip.ts trusts only the last entry.
import http from 'node:http';
import next from 'next';
import { platformHeaders } from './forwarded.mjs';
import { normalizeRequestTarget } from './request-path.mjs';
import { serveOptions } from './serve-options.mjs';

// `npm run dev -- -p 4000`, `npm start -- --port=4000`, or PORT; all interfaces unless -H or HOST.
let options;
try {
  options = serveOptions(process.argv.slice(2), process.env);
} catch (err) {
  console.error(`scripts/serve.mjs: ${err.message}`);
  process.exit(2);
}
const { dev, port, host } = options;
process.env.PORT = String(port);
process.env.PUBLIC_BASE_URL ||= `http://localhost:${port}`;
// Next sets it too, but later: configuration read before then (lib/platform/env.ts) must see the mode.
process.env.NODE_ENV ||= dev ? 'development' : 'production';

// On Ctrl-C, `app.close()` below lets Turbopack finish writing its cache to disk (Next's own
// `next dev` waits for it only when asked by this variable): without it the cache on disk lacks
// what the session compiled, and the next `npm run dev` compiles the first page again.
if (dev) process.env.__NEXT_DEV_WAIT_FOR_TURBOPACK_SHUTDOWN ||= '1';
const app = next({ dev, hostname: 'localhost', port, turbopack: dev ? true : undefined });
const started = Date.now();
await app.prepare();
const handle = app.getRequestHandler();
const upgrade = app.getUpgradeHandler();

function appendPeer(req) {
  platformHeaders(req.headers, req.socket.remoteAddress ?? 'unknown');
}

const server = http.createServer((req, res) => {
  appendPeer(req);
  try {
    req.url = normalizeRequestTarget(req.url ?? '/');
  } catch {
    // A target no URL parser takes: answered here, since nothing after this point would.
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"error":{"status":400,"code":"invalid_request","message":"The request target is not a valid path."}}');
    return;
  }
  handle(req, res).catch((err) => {
    console.error(JSON.stringify({ level: 'error', message: 'request failed', reason: String(err?.message ?? err) }));
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":{"status":500,"code":"internal_error","message":"The server could not complete the request."}}');
  });
});
server.on('upgrade', (req, socket, head) => {
  appendPeer(req);
  upgrade(req, socket, head);
});
server.keepAliveTimeout = 65_000;

server.listen(port, host, () => {
  console.log(`> ${dev ? 'Development' : 'Production'} server ready on ${process.env.PUBLIC_BASE_URL} in ${Date.now() - started} ms`);
});

let closing = false;
async function shutdown(signal) {
  if (closing) return;
  closing = true;
  console.log(`> ${signal}: closing`);
  // New connections are refused from now on; requests in flight finish (up to STOP_GRACE_MS),
  // idle keep-alive connections are closed, and a keep-alive connection is closed after its
  // current answer (Node sends `Connection: close` once the server is closing).
  const drained = new Promise((resolve) => server.close(resolve));
  server.closeIdleConnections?.();
  const grace = Number(process.env.STOP_GRACE_MS || 10_000);
  const timer = setTimeout(() => server.closeAllConnections?.(), grace);
  await drained;
  clearTimeout(timer);
  // Next first (in development it waits for Turbopack to write its cache), then the database the
  // app opened (lib/process.ts keeps it on globalThis), so PGlite flushes; the timers that still
  // use it (the roll-up, the export job) end with the process right after.
  await app.close?.();
  try {
    const db = await globalThis[Symbol.for('monetize.database')];
    await db?.close();
  } catch {
    // The database never opened, or failed to: nothing to close.
  }
  process.exit(0);
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
