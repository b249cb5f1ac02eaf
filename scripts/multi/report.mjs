// The figures of a `npm run test:instances` run: printed as a table, and kept as JSON in
// bench-results/instances-<stamp>.json with every event the browsers were answered.
import fs from 'node:fs';
import path from 'node:path';
import { resultsDir, stamp } from '../bench-process.mjs';
import { formatCounts } from './checks.mjs';

export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** Lines of `| a | b |` with the columns padded, for a terminal. */
export function table(header, rows) {
  const all = [header, ...rows].map((r) => r.map(String));
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(all[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...all.slice(1).map(line)].join('\n');
}

/** The run's figures, as rows of (figure, value). */
export function figureRows({ ledger, balancer, timeline, revocation, addressBudget, keyBudget, settings }) {
  const events = [...ledger.events.values()];
  const answers = events.flatMap((e) => e.answers);
  const reasonCounts = {};
  for (const e of events)
    for (const x of e.answers) if (x.status === 'invalid') reasonCounts[`${x.reason} (${e.type})`] = (reasonCounts[`${x.reason} (${e.type})`] ?? 0) + 1;
  const a = ledger.attempts;
  const byInstance = (t) => settings.ports.map((_, i) => t.byInstance[i] ?? 0).join(' / ');
  const rows = [
    ['Browsers', `${settings.clients} (each its own address in 127.77.0.0/16 and user agent), ${settings.seconds} s of page views through the balancer`],
    [
      'Requests of the browsers',
      `${a.ads.total + a.events.total} (ads ${a.ads.total}, events ${a.events.total}); by instance ${byInstance(a.ads)} (ads), ${byInstance(a.events)} (events)`,
    ],
    ['Their answers', `ads: ${formatCounts(a.ads.byStatus)}; events: ${formatCounts(a.events.byStatus)}`],
    [
      'Latency p50 / p99',
      `ads ${quantile(a.ads.ms, 0.5).toFixed(0)} / ${quantile(a.ads.ms, 0.99).toFixed(0)} ms, events ${quantile(a.events.ms, 0.5).toFixed(0)} / ${quantile(a.events.ms, 0.99).toFixed(0)} ms`,
    ],
    [
      'Ads',
      `${ledger.ads.capped} of the capped campaign, ${ledger.ads.open} of the open one, ${ledger.ads.empty} empty (204), ${ledger.ads.failed} failed after every retry`,
    ],
    [
      'Events',
      `${events.length} distinct ids (${events.filter((e) => e.type === 'impression').length} impressions, ${events.filter((e) => e.type === 'click').length} clicks); answers: ${formatCounts(
        Object.fromEntries(['recorded', 'duplicate', 'invalid'].map((s) => [s, answers.filter((x) => x.status === s).length])),
      )}`,
    ],
    ['Invalid, by reason', formatCounts(reasonCounts)],
    ['Deliberate resends', `${ledger.deliberateRetries} batches sent again after their answer`],
    [
      'Balancer',
      `${balancer.stats.requests} requests; ${balancer.stats.answered502} answered 502 (the instance failed mid-request), ${balancer.stats.rerouted} sent on to the next instance (connection refused), ${balancer.stats.answered503} answered 503; handed to each instance: ${balancer.backends.map((b) => b.forwarded + b.failedAfterSend).join(' / ')}`,
    ],
    ...timeline.map((t) => [`+${t.s.toFixed(1)} s`, t.what]),
  ];
  if (revocation) {
    for (const r of revocation) {
      rows.push([
        `Revoked key, instance ${r.instance + 1}`,
        `last accepted ${r.lastAcceptedMs === null ? 'never after the revocation' : `+${(r.lastAcceptedMs / 1000).toFixed(2)} s`}, first refused +${r.firstRefusedMs === null ? '∞' : (r.firstRefusedMs / 1000).toFixed(2)} s (${r.refusedStatus}), ${r.polls} polls`,
      ]);
    }
  }
  for (const [name, b] of [
    ['Address budget', addressBudget],
    ['Publisher key budget', keyBudget],
  ]) {
    if (!b) continue;
    rows.push([
      name,
      `limit ${b.limit}: ${b.sent} requests in ${b.seconds.toFixed(1)} s over the three instances, ${b.allowed} allowed, ${b.refused} refused (429) from request ${b.firstRefusalAt}; by instance ${Object.entries(
        b.byInstance,
      )
        .map(([i, x]) => `${Number(i) + 1}: ${x.allowed}/${x.refused}`)
        .join(', ')} (allowed/refused)`,
    ]);
  }
  return rows;
}

export function printChecks(checks) {
  for (const c of checks) {
    console.log(`${c.ok ? 'PASS' : 'FAIL'}  ${c.name}`);
    for (const f of c.figures) console.log(`      ${f}`);
  }
}

/** Writes the JSON results (every event with its answers); answers its path. */
export function writeResults(data) {
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `instances-${stamp}.json`);
  const events = [...data.ledger.events.values()];
  fs.writeFileSync(
    file,
    JSON.stringify(
      {
        ...data,
        ledger: { ads: data.ledger.ads, deliberateRetries: data.ledger.deliberateRetries, attempts: stripLatencies(data.ledger.attempts), events },
      },
      null,
      1,
    ),
  );
  return file;
}

function stripLatencies(attempts) {
  return Object.fromEntries(
    Object.entries(attempts).map(([k, t]) => [k, { total: t.total, byStatus: t.byStatus, byInstance: t.byInstance, notable: t.notable }]),
  );
}
