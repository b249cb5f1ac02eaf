// The lines printed beside the table: latency comparisons between endpoints, each endpoint's
// targets (throughput at least, p99 at most, both relative to the baseline) with their verdicts,
// and the SDK events' database check.
import { COMPARISONS } from './endpoints.mjs';
import { median, verdict } from './statistics.mjs';

/** What `measured` says about COMPARISONS and the endpoints' targets, and a line for each. */
export function compare(measured) {
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
  // p95 in milliseconds at the endpoint's steady rate (the server-to-server path's target), and at
  // saturation over every response of its slices, for the record.
  const p95Targets = measured
    .filter((m) => m.endpoint.p95MsAtMost !== undefined && m.steady)
    .map((m) => ({
      endpoint: m.endpoint.name,
      p95: m.steady.latencyMs.p95,
      rate: m.steady.reqPerSec,
      saturated: m.run.latencyMs.p95,
      atMost: m.endpoint.p95MsAtMost,
      ok: m.steady.latencyMs.p95 <= m.endpoint.p95MsAtMost,
    }));
  // Throughput beside another endpoint's, each as a ratio of its own baseline: within noise when the 95% intervals overlap.
  const sameAs = measured
    .filter((m) => m.endpoint.throughputAsOf !== undefined)
    .map((m) => {
      const other = measured.find((o) => o.endpoint.name === m.endpoint.throughputAsOf);
      if (!other) return null;
      const overlap = m.interval.low <= other.interval.high && other.interval.low <= m.interval.high;
      return `${m.endpoint.name}: ${(m.run.reqPerSec / m.baseline.reqPerSec).toFixed(3)}x (${m.interval.low.toFixed(3)}–${m.interval.high.toFixed(3)}) against ${other.endpoint.name}'s ${(other.run.reqPerSec / other.baseline.reqPerSec).toFixed(3)}x (${other.interval.low.toFixed(3)}–${other.interval.high.toFixed(3)}): ${overlap ? 'within noise (the intervals overlap)' : 'NOT within noise'}`;
    })
    .filter(Boolean);
  comparisonLines.push(
    ...p95Targets.map(
      (t) =>
        `${t.endpoint}: p95 ${t.p95.toFixed(1)} ms at a steady ${Math.round(t.rate)} req/s (${t.saturated.toFixed(1)} ms at saturation, the table's load), target at most ${t.atMost} ms: ${t.ok ? 'met' : 'NOT met'}`,
    ),
    ...sameAs,
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
  return { comparisons, comparisonLines, targets, latencyTargets };
}
