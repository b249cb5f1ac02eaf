// The clients: each on its own loopback address with its own keep-alive agent, sending the mix
// open-loop, and the counts of what came back.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { interrupted } from '../bench-process.mjs';
import { pickKind, requestFor } from './mix.mjs';
import { HOST, PORT, TIMEOUT_MS } from './settings.mjs';

const MAX_IN_FLIGHT = 16;
const MAX_SOCKETS = 4;

/** Client `i`'s own loopback address: 127.<octet>.<x>.<y>, never .0. */
export const addressOf = (octet, i) => `127.${octet}.${Math.floor(i / 250)}.${(i % 250) + 1}`;

export class Stats {
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
export function exchange(agent, { method = 'GET', path: p, headers = {}, body }) {
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

/**
 * `count` clients on addresses 127.<octet>.x.y, each sending `rate` requests a second, open
 * loop (a fixed interval with ±10% jitter, the first at a random point of the first interval),
 * for `seconds`. Resolves once every request is answered or timed out, with the agents closed.
 */
export async function runClients({ octet, count, rate, seconds, setup, stats, budget }) {
  const interval = 1000 / rate;
  const deadline = performance.now() + seconds * 1000;
  const clients = Array.from({ length: count }, (_, i) => ({
    address: addressOf(octet, i),
    agent: new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, localAddress: addressOf(octet, i) }),
    // A key and its app's placements: a placement of another app is not the key's.
    key: setup.sdk[i % setup.sdk.length].key,
    placements: setup.sdk[i % setup.sdk.length].placements,
    session: `load-${octet}-${i}-${randomUUID().slice(0, 8)}`,
    // A browser of its own: addresses of one /24 are one network, and a client is a network and a
    // browser (frequency caps, and an impression counts only from the client its ad went to).
    userAgent: `monetize-load/${octet}.${i}`,
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
  if (r.status === 429 && /publisher's API keys are over their budget/.test(r.body)) stats.keyLimited++;
  const ok = (r.status >= 200 && r.status < 300) || r.status === 429;
  if (!ok) {
    stats.unexpectedCount++;
    if (stats.unexpected.length < 50)
      stats.unexpected.push({ address: c.address, method: request.method ?? 'GET', path: request.path, status: r.status, body: r.body.slice(0, 300) });
  }
  if (actual === 'ads' && r.status === 200) {
    try {
      const ad = JSON.parse(r.body);
      c.ad = { decision: ad.decision_id, token: ad.token, impressed: false, clicked: false, servedAt: performance.now() };
    } catch {
      // A body over 4 KB would be cut: keep the last ad.
    }
  }
}
