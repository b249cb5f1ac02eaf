// The statistics of a run: quantiles, rounding, and a summary of the clients' counts.

function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}
export const median = (values) => quantile(values, 0.5);
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

export function summarize(stats, seconds) {
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
