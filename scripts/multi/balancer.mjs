// The load balancer of `npm run test:instances`: a small round-robin HTTP proxy in front of the
// instances, playing the part a platform's balancer plays in production.
//
// The client's address. Each instance (scripts/serve.mjs) appends the socket's peer address to
// X-Forwarded-For, and lib/platform/http/client-ip.ts trusts only that last entry, so behind an
// ordinary proxy on loopback every client would be the proxy's 127.0.0.1: one rate-limit budget,
// one network, one client for the money path. A header cannot fix that without changing the
// product (the last entry is always serve.mjs's own). So the balancer is transparent instead:
// it opens its connection to the instance FROM the client's own address (`localAddress`; any
// address of 127.0.0.0/8 can be bound on Linux), and the peer serve.mjs appends is the client's.
// It also appends the client's address to X-Forwarded-For itself, as a platform's balancer does,
// so the header reads `<client>, <client>` at the instance; the trusted last entry is serve.mjs's.
//
// Instances that die. A connection refused or reset marks the instance down at once, and a probe
// (a TCP connect every PROBE_MS) marks it up again once it listens: serve.mjs listens only after
// Next is prepared. A request that could not even connect is sent to the next live instance (it
// reached no server, so trying again elsewhere is safe, as real balancers do); one that failed
// after it was sent is answered 502 and left to the client to retry, since only the client knows
// whether sending it again is safe (the SDK resends events with the same ids).
import http from 'node:http';
import net from 'node:net';

const PROBE_MS = 250;
const MAX_BODY = 1 << 20;

/** The header that tells the client which instance answered (0-based), for the run's tallies. */
export const INSTANCE_HEADER = 'x-instance';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authorization']);

export function normalizeAddress(address) {
  return address?.startsWith('::ffff:') ? address.slice(7) : (address ?? '127.0.0.1');
}

/**
 * Starts the balancer on 127.0.0.1:`port` in front of `backends` (ports on 127.0.0.1). Answers
 * `{ stats, backends, close() }`; `backends[i].up` says what the balancer believes now, and
 * `onDispatch(backend)` is called as each request is handed to a backend (the run kills an
 * instance from it, at a moment it has requests in flight).
 */
export async function startBalancer(port, backendPorts, { log = () => {}, onDispatch = () => {} } = {}) {
  const backends = backendPorts.map((p, i) => ({ index: i, port: p, up: false, inFlight: 0, forwarded: 0, failedAfterSend: 0, refused: 0 }));
  const stats = { requests: 0, answered502: 0, answered503: 0, rerouted: 0 };
  // One keep-alive pool per client address: a pooled connection is bound to the address it was opened from.
  const agents = new Map();
  const agentFor = (address) => {
    let agent = agents.get(address);
    if (!agent) {
      agent = new http.Agent({ keepAlive: true, maxSockets: 8, localAddress: address });
      agents.set(address, agent);
    }
    return agent;
  };

  let next = 0;
  /** The next live backend in turn, skipping `tried`; undefined when none is up. */
  const pick = (tried) => {
    for (let n = 0; n < backends.length; n++) {
      const b = backends[(next + n) % backends.length];
      if (b.up && !tried.has(b.index)) {
        next = (b.index + 1) % backends.length;
        return b;
      }
    }
    return undefined;
  };

  const markDown = (b, why) => {
    if (!b.up) return;
    b.up = false;
    log(`balancer: instance ${b.index + 1} (port ${b.port}) down: ${why}`);
  };

  const probe = (b) =>
    new Promise((resolve) => {
      const socket = net.connect({ port: b.port, host: '127.0.0.1' });
      socket.setTimeout(1_000);
      const done = (up) => {
        socket.destroy();
        if (up && !b.up) log(`balancer: instance ${b.index + 1} (port ${b.port}) up`);
        if (up) b.up = true;
        else markDown(b, 'probe failed');
        resolve();
      };
      socket.once('connect', () => done(true));
      socket.once('error', () => done(false));
      socket.once('timeout', () => done(false));
    });
  const prober = setInterval(() => backends.forEach(probe), PROBE_MS);
  await Promise.all(backends.map(probe));

  const answer = (res, status, message) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '1' });
    res.end(JSON.stringify({ error: { status, code: 'unavailable', message } }));
  };

  const forward = (req, res, body, client, tried) => {
    const b = pick(tried);
    if (!b) {
      stats.answered503++;
      answer(res, 503, 'No instance is up.');
      return;
    }
    tried.add(b.index);
    const headers = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name)) headers[name] = value;
    const sent = headers['x-forwarded-for'];
    headers['x-forwarded-for'] = sent ? `${sent}, ${client}` : client;
    headers['content-length'] = String(body.length);
    let connected = false;
    b.inFlight++;
    onDispatch(b);
    // Once per request, whichever way it ends.
    let settled = false;
    const settle = (ok) => {
      if (settled) return false;
      settled = true;
      b.inFlight--;
      if (ok) b.forwarded++;
      else b.failedAfterSend++;
      return true;
    };
    const upstream = http.request({ host: '127.0.0.1', port: b.port, method: req.method, path: req.url, headers, agent: agentFor(client) }, (up) => {
      const out = {};
      for (const [name, value] of Object.entries(up.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
      out[INSTANCE_HEADER] = String(b.index);
      res.writeHead(up.statusCode ?? 502, out);
      up.pipe(res);
      up.once('end', () => settle(true));
      // The instance died in the middle of its answer: the client sees a cut response.
      up.once('close', () => {
        if (settle(false)) res.destroy();
      });
    });
    upstream.once('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    upstream.once('error', (err) => {
      markDown(b, err.code ?? err.message);
      if (!settle(false)) return;
      if (!connected && err.code === 'ECONNREFUSED') {
        // Nothing reached the instance: the next one may have it.
        b.failedAfterSend--;
        b.refused++;
        stats.rerouted++;
        forward(req, res, body, client, tried);
        return;
      }
      stats.answered502++;
      answer(res, 502, `Instance ${b.index + 1} failed: ${err.code ?? err.message}.`);
    });
    upstream.end(body);
  };

  const server = http.createServer((req, res) => {
    stats.requests++;
    const client = normalizeAddress(req.socket.remoteAddress);
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return answer(res, 413, 'Body too large for the balancer.');
      forward(req, res, Buffer.concat(chunks), client, new Set());
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });

  return {
    stats,
    backends,
    close: async () => {
      clearInterval(prober);
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      for (const agent of agents.values()) agent.destroy();
      await closed;
    },
  };
}
