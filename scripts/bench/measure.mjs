// The load itself: one slice of autocannon on one server, and a server's slices summed.
import autocannon from 'autocannon';
import { CONNECTIONS, SLICE } from './settings.mjs';
import { median, quantile } from './statistics.mjs';

/** One slice of load on one server. `request`: method, body, connections. */
export async function measure(name, url, headers = {}, expect = 200, request = {}, duration = SLICE) {
  // Bodies made before the clock starts: making them is the client's work, not the server's.
  request.refill?.(duration);
  const run = autocannon({
    url,
    headers,
    connections: request.connections ?? CONNECTIONS,
    // A steady rate instead of as fast as the server answers (a latency measured below saturation).
    ...(request.overallRate ? { overallRate: request.overallRate } : {}),
    duration,
    method: request.method ?? 'GET',
    body: request.body,
    // A body of its own for each request (the SDK events), and a count of what was answered; or
    // headers of its own (the ads, each from a browser of its own).
    requests: request.makeBody
      ? [{ setupRequest: (req) => ({ ...req, body: request.makeBody() }), onResponse: request.onResponse }]
      : request.setupRequest
        ? [{ setupRequest: request.setupRequest }]
        : undefined,
  });
  // Each response's time, for quantiles autocannon does not give (p95).
  const latencies = [];
  run.on('response', (_client, _status, _bytes, responseTime) => latencies.push(responseTime));
  const r = await run;
  const responses = Object.values(r.statusCodeStats).reduce((sum, s) => sum + s.count, 0);
  const unexpected = responses - (r.statusCodeStats[expect]?.count ?? 0);
  return {
    name,
    url,
    expect,
    reqPerSec: r.requests.total / r.duration,
    requests: r.requests.total,
    latencyMs: { mean: r.latency.average, p50: r.latency.p50, p90: r.latency.p90, p95: quantile(latencies, 0.95), p99: r.latency.p99, max: r.latency.max },
    latencies,
    non2xx: r.non2xx,
    unexpected,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, s]) => [code, s.count])),
    durationS: r.duration,
  };
}

/** Slices of one server, summed: requests over time, latency weighted by requests. */
export function combine(name, slices) {
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
      // Over every response of every slice.
      p95: quantile(
        slices.flatMap((r) => r.latencies),
        0.95,
      ),
    },
    non2xx: sum('non2xx'),
    unexpected: sum('unexpected'),
    errors: sum('errors'),
    timeouts: sum('timeouts'),
    slices: slices.length,
  };
}

export const failed = (run) => run.errors > 0 || run.timeouts > 0 || run.unexpected > 0;
