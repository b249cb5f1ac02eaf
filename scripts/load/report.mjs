// The report: the verdicts' lines, bench-results/load-<timestamp>.json and .md, and the summary
// printed at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resultsDir, stamp } from '../bench-process.mjs';
import { MIX, SDK_SHARE } from './mix.mjs';
import { CLIENTS, FORCE_GC, IDLE_SECONDS, LOAD_SECONDS, OVER, SETTLE_SECONDS, TIMEOUT_MS, WARMUP_CLIENTS, WARMUP_SECONDS } from './settings.mjs';
import { round } from './statistics.mjs';

/** The two verdicts, each with its line; the memory one says, when not met, what the excess is. */
export function verdictsOf({ statusOk, memoryOk, growth, start, afterIdle, startHeap, idleHeap, sampler }) {
  // Not back: how much of the excess is heap V8 commits, and did it collect in the idle time?
  const idleFullGcs = sampler.heap.filter((h) => h.phase === 'idle').reduce((n, h) => n + (h.majorGcs ?? 0), 0);
  const heapDelta = idleHeap && startHeap ? round(idleHeap.heapTotalMb - startHeap.heapTotalMb) : undefined;
  const diagnosis =
    memoryOk || heapDelta === undefined
      ? ''
      : ` (of the ${round(afterIdle.rssMb - start.rssMb)} MB above the start, V8's committed heap accounts for ${heapDelta} MB; ${
          idleFullGcs > 0
            ? `V8 ran ${idleFullGcs} full collection(s) in the idle time, after which ${idleHeap.heapAfterLastFullGcMb} MB of heap was live`
            : 'V8 ran no full collection in the idle time, so that heap is likely garbage not yet collected (LOAD_GC=1 forces collections to tell)'
        })`;
  const verdicts = {
    onlyTwoXXAnd429: { ok: statusOk, line: `only 2xx and 429 (no other status, no error, no timeout, nothing skipped): ${statusOk ? 'yes' : 'NO'}` },
    memoryBack: {
      ok: memoryOk,
      line: `memory after ${IDLE_SECONDS} s idle within 10% of start: RSS ${start.rssMb} MB at start, ${afterIdle.rssMb} MB after idle (${growth >= 0 ? '+' : ''}${round(growth * 100)}%): ${memoryOk ? 'yes' : `NO${diagnosis}`}${FORCE_GC ? ' (LOAD_GC=1: full collections were forced at each heap sample)' : ''}`,
    },
  };
  return verdicts;
}

/** Writes bench-results/load-<stamp>.json and .md, prints the summary, and returns the report. */
export function writeReport(run) {
  const { runStarted, buildDoneAt, keys, rate, policies, budget, stats, pid, cmd, procs, placements, cpuUsed, loadSeconds, machineLoad } = run;
  const { load, warmUp, sampler, start, startHeap, peak, end, endHeap, afterIdle, idleHeap, growth, verdicts, statusOk, memoryOk } = run;
  const report = {
    startedAt: stamp,
    settings: {
      clients: CLIENTS,
      loadSeconds: LOAD_SECONDS,
      idleSeconds: IDLE_SECONDS,
      over: OVER,
      ratePerClient: rate,
      ceilingPerAddress: policies.default,
      keyPolicy: policies.key,
      sdkKeys: keys,
      sdkShare: SDK_SHARE,
      warmUpClients: WARMUP_CLIENTS,
      warmUpSeconds: WARMUP_SECONDS,
      settleSeconds: SETTLE_SECONDS,
      timeoutMs: TIMEOUT_MS,
      maxRequests: budget.left + stats.sent,
      requestBudgetExhausted: budget.exhausted,
      forcedGc: FORCE_GC,
      mix: MIX,
    },
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, node: process.version, duringLoad: machineLoad },
    server: { pid, cmd, descendants: procs, placements, cpuSecondsDuringLoad: round(cpuUsed, 1), cpuShareDuringLoad: round(cpuUsed / loadSeconds, 2) },
    expected429Share: round(1 - 1 / OVER, 3),
    load,
    warmUp,
    memory: {
      atBoot: sampler.timeline[0],
      start: { ...start, heap: startHeap },
      peakDuringLoadMb: peak,
      endOfLoad: { ...end, heap: endHeap },
      afterIdle: { ...afterIdle, heap: idleHeap },
      growthAfterIdle: round(growth, 4),
      timeline: sampler.timeline,
      heapSamples: sampler.heap,
    },
    verdicts,
    durationS: { total: round((Date.now() - runStarted) / 1000), build: round((buildDoneAt - runStarted) / 1000) },
    ok: statusOk && memoryOk,
  };

  const loadHeap = sampler.heap.filter((h) => h.phase === 'load' || h.phase === 'end');
  report.server.duringLoad = {
    loopDelayMaxMs: Math.max(0, ...loadHeap.map((h) => h.loopDelayMaxMs ?? 0)),
    gcPauseMs: round(loadHeap.reduce((sum, h) => sum + (h.gcMs ?? 0), 0)),
    gcMaxPauseMs: Math.max(0, ...loadHeap.map((h) => h.gcMaxMs ?? 0)),
  };
  const statusLine = Object.entries(load.statuses)
    .map(([s, n]) => `${s}: ${n}`)
    .join(', ');
  const lines = [
    `Requests: ${load.sent} sent over ${LOAD_SECONDS} s (${load.perSecond}/s; the last answered or timed out ${round(loadSeconds - LOAD_SECONDS)} s after), ${load.answered} answered; ${statusLine}; 429 for a publisher's key budget: ${load['429ForKeyBudget']}; errors: ${JSON.stringify(load.errors)}; timeouts: ${load.timeouts}; skipped: ${load.skippedClientBacklog}`,
    `429 share: ${round(((load.statuses[429] ?? 0) / Math.max(1, load.answered)) * 100)}% (about ${round(report.expected429Share * 100)}% expected at ${OVER}x the ceiling)`,
    `Latency: p50 ${load.latencyMs.p50} ms, p90 ${load.latencyMs.p90} ms, p99 ${load.latencyMs.p99} ms, max ${load.latencyMs.max} ms`,
    `CPU during load, in cores of ${report.machine.cpus}: the machine ${machineLoad.busyCores} (this server ${machineLoad.serverCores}, the load generator ${machineLoad.loadGeneratorCores}, other processes ${machineLoad.otherCores}); load average ${machineLoad.loadAverage1mAtStart} → ${machineLoad.loadAverage1mAtEnd}; the server's child processes: ${procs.length}`,
    `Server's event loop during load: delay at most ${report.server.duringLoad.loopDelayMaxMs} ms; garbage collection paused it ${report.server.duringLoad.gcPauseMs} ms in all, ${report.server.duringLoad.gcMaxPauseMs} ms at most`,
    `RSS: at boot ${sampler.timeline[0]?.rssMb} MB, start ${start.rssMb} MB, peak during load ${peak} MB, end of load ${end?.rssMb} MB, after ${IDLE_SECONDS} s idle ${afterIdle.rssMb} MB`,
    `Heap just after the last full collection (what is live, near enough): start ${startHeap?.heapAfterLastFullGcMb ?? '?'} MB, end of load ${endHeap?.heapAfterLastFullGcMb ?? '?'} MB, after idle ${idleHeap?.heapAfterLastFullGcMb ?? '?'} MB; full collections during load: ${loadHeap.reduce((n, h) => n + (h.majorGcs ?? 0), 0)}`,
    `Heap used: start ${startHeap?.heapUsedMb ?? '?'} MB, end of load ${endHeap?.heapUsedMb ?? '?'} MB, after idle ${idleHeap?.heapUsedMb ?? '?'} MB (heap total ${startHeap?.heapTotalMb ?? '?'} / ${endHeap?.heapTotalMb ?? '?'} / ${idleHeap?.heapTotalMb ?? '?'} MB; external ${startHeap?.externalMb ?? '?'} / ${endHeap?.externalMb ?? '?'} / ${idleHeap?.externalMb ?? '?'} MB)`,
    `Warm-up: ${warmUp.sent} requests, ${Object.entries(warmUp.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
    verdicts.onlyTwoXXAnd429.line,
    verdicts.memoryBack.line,
  ];
  const kindRows = Object.entries(load.byKind).map(
    ([kind, k]) =>
      `| ${kind} | ${k.sent} | ${Object.entries(k.statuses)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')} | ${k.errors + k.timeouts} | ${k.p50} | ${k.p99} |`,
  );
  const md = [
    `# Load run ${stamp}`,
    '',
    `${CLIENTS} clients, each on its own loopback address, at ${OVER}x the per-address ceiling (${policies.default.q} per ${policies.default.w} s) for ${LOAD_SECONDS} s, then ${IDLE_SECONDS} s idle; ${keys} SDK key(s) of the demo publishers in turn (budget ${policies.key.q} per publisher); ${report.machine.cpus} CPUs (${report.machine.cpuModel}), Node ${process.version}. Took ${report.durationS.total} s (build ${report.durationS.build} s).`,
    '',
    ...lines.map((l) => `- ${l}`),
    '',
    '| kind | sent | statuses | errors | p50 ms | p99 ms |',
    '| --- | ---: | --- | ---: | ---: | ---: |',
    ...kindRows,
    '',
    ...(load.unexpected.length ? ['Answers other than 2xx and 429 (first 50):', '', ...load.unexpected.map((u) => `- ${JSON.stringify(u)}`), ''] : []),
  ].join('\n');
  fs.writeFileSync(path.join(resultsDir, `load-${stamp}.json`), `${JSON.stringify(report, null, 2)}\n`);
  fs.writeFileSync(path.join(resultsDir, `load-${stamp}.md`), md);
  console.log(`\n${lines.join('\n')}`);
  for (const u of [...load.unexpected, ...warmUp.unexpected].slice(0, 10)) console.log(`  unexpected: ${JSON.stringify(u)}`);
  console.log(`Took ${report.durationS.total} s. Results: bench-results/load-${stamp}.json and .md`);
  return report;
}
