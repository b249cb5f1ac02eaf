// The report: the table printed and written (text and Markdown), and the results files
// bench-results/<timestamp>.json and .md.
import fs from 'node:fs';
import path from 'node:path';
import { resultsDir, root, stamp } from '../bench-process.mjs';
import { BASELINE } from './servers.mjs';
import { CONNECTIONS, PAIRS, ROUNDS, SLICE, WARMUP } from './settings.mjs';
import { quantile } from './statistics.mjs';

export function tableRows(measured) {
  return measured.flatMap(({ endpoint, run, baseline, pairRatios, interval }) => [
    {
      endpoint: `${BASELINE.name} (beside the next row)`,
      target: 'baseline',
      reqPerSec: baseline.reqPerSec,
      p99: baseline.latencyMs.p99,
      non2xx: baseline.non2xx,
      errors: baseline.errors + baseline.timeouts,
    },
    {
      endpoint: endpoint.name,
      target: endpoint.target,
      reqPerSec: run.reqPerSec,
      p99: run.latencyMs.p99,
      non2xx: run.non2xx,
      errors: run.errors + run.timeouts,
      ratio: run.reqPerSec / baseline.reqPerSec,
      pairRatios,
      interval,
    },
  ]);
}

const COLUMNS = [
  { title: 'endpoint', value: (r) => r.endpoint },
  { title: 'target', value: (r) => r.target },
  { title: 'req/s', value: (r) => Math.round(r.reqPerSec).toString(), right: true },
  { title: 'p99 ms', value: (r) => String(r.p99), right: true },
  { title: 'non-2xx', value: (r) => String(r.non2xx), right: true },
  { title: 'errors', value: (r) => String(r.errors), right: true },
  { title: 'vs baseline', value: (r) => (r.ratio === undefined ? '' : `${r.ratio.toFixed(3)}x`), right: true },
  { title: '95% interval', value: (r) => (r.interval ? `${r.interval.low.toFixed(3)}–${r.interval.high.toFixed(3)}` : ''), right: false },
  {
    title: 'slice pairs: median (middle half)',
    value: (r) =>
      r.pairRatios ? `${quantile(r.pairRatios, 0.5).toFixed(2)} (${quantile(r.pairRatios, 0.25).toFixed(2)}–${quantile(r.pairRatios, 0.75).toFixed(2)})` : '',
    right: false,
  },
];

export function textTable(rows) {
  const cells = [COLUMNS.map((c) => c.title), ...rows.map((r) => COLUMNS.map((c) => c.value(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((line) => line[i].length)));
  const fmt = (line) => line.map((cell, i) => (COLUMNS[i].right ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join('  ');
  return [fmt(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(fmt)].join('\n');
}

function markdownTable(rows) {
  const head = `| ${COLUMNS.map((c) => c.title).join(' | ')} |`;
  const rule = `| ${COLUMNS.map((c) => (c.right ? '---:' : '---')).join(' | ')} |`;
  return [head, rule, ...rows.map((r) => `| ${COLUMNS.map((c) => c.value(r).replaceAll('|', '\\|')).join(' | ')} |`)].join('\n');
}

export function nextVersion() {
  return JSON.parse(fs.readFileSync(path.join(root, 'node_modules/next/package.json'), 'utf8')).version;
}

const withoutLatencies = (slice) => Object.fromEntries(Object.entries(slice).filter(([name]) => name !== 'latencies'));

/** Writes bench-results/<stamp>.json and .md, and prints where. */
export function writeResults({ settings, machine, table, comparisons, comparisonLines, targets, latencyTargets, measured, failures }) {
  const report = {
    startedAt: stamp,
    settings,
    machine,
    table,
    comparisons,
    targets,
    latencyTargets,
    checks: measured.filter((m) => m.check).map((m) => ({ endpoint: m.endpoint.name, ...m.check })),
    endpoints: measured.map(({ endpoint, run, baseline, pairs, interval }) => ({
      endpoint: endpoint.name,
      target: endpoint.target,
      run,
      baseline,
      ratio: run.reqPerSec / baseline.reqPerSec,
      interval,
      // Each response's time stays out of the file: the quantiles are in `latencyMs`.
      pairs: pairs.map(({ round, baseline: b, run: r }) => ({ round, baseline: withoutLatencies(b), run: withoutLatencies(r) })),
    })),
    ok: failures.length === 0,
  };
  const md = [
    `# Benchmark ${stamp}`,
    '',
    `${CONNECTIONS} connections (50 for the account reads with a real token and the SDK endpoints, and for their baseline slices); ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, Next ${machine.next}.`,
    `Baseline: a bare Next.js route handler (\`${BASELINE.dir}\`). Each endpoint ran in ${ROUNDS} rounds, each on freshly started servers (its target and the baseline), which took turns under load in ${PAIRS} pairs of ${SLICE} s slices in all, after ${WARMUP} s of warm-up each per round. "vs baseline" is the endpoint's requests per second over all its slices divided by the baseline's over theirs, with a 95% interval from a bootstrap over the rounds and their slice pairs; the last column is the spread of the per-pair ratios.`,
    '',
    markdownTable(table),
    '',
    ...comparisonLines.map((l) => `- ${l}`),
    '',
  ].join('\n');
  fs.writeFileSync(path.join(resultsDir, `${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, `${stamp}.md`), md);
  console.log(`Results: ${path.relative(root, path.join(resultsDir, `${stamp}.json`))} and .md`);
}
