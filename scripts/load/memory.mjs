// The server's memory: a preload that has the server write its V8 heap, event-loop delay and
// collector pauses to a file on SIGUSR2, reading that file, and the sampler that records the
// resident set every second (the heap every 5 s) through the run's phases.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuSeconds, procStatus } from './proc.mjs';
import { median, round } from './statistics.mjs';

/** Where the server's preload writes its heap; removed on the way out (scripts/load-run.mjs). */
export const memoryFile = path.join(os.tmpdir(), `monetize-load-${process.pid}-memory.json`);

/**
 * Prints the V8 heap to LOAD_MEMORY_FILE on SIGUSR2, in the server process only (argv[1] is
 * serve.mjs). Writes the file once at start, so that no signal is sent before the handler is in
 * place (SIGUSR2's default action ends the process).
 */
export const MEMORY_PRELOAD = `
import fs from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
const file = process.env.LOAD_MEMORY_FILE;
if (file && process.argv[1] && process.argv[1].endsWith('serve.mjs')) {
  // Since the last sample: the event loop's delay, and the garbage collector's pauses.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // And the heap just after the last full (mark-compact) collection: what is live, near enough,
  // without forcing a collection.
  let gcMs = 0, gcMaxMs = 0, gcCount = 0, majorGcs = 0, heapAfterMajor = null;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration; gcMaxMs = Math.max(gcMaxMs, e.duration); gcCount++;
      if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) { majorGcs++; heapAfterMajor = process.memoryUsage().heapUsed; }
    }
  }).observe({ entryTypes: ['gc'] });
  const write = (seq) => {
    if (seq > 0 && typeof globalThis.gc === 'function' && process.env.LOAD_GC === '1') globalThis.gc();
    const loop = { loopDelayP99Ms: delay.percentile(99) / 1e6, loopDelayMaxMs: delay.max / 1e6, gcMs, gcMaxMs, gcCount, majorGcs, heapAfterMajor };
    delay.reset();
    gcMs = 0; gcMaxMs = 0; gcCount = 0; majorGcs = 0;
    fs.writeFileSync(file + '.tmp', JSON.stringify({ seq, at: Date.now(), ...process.memoryUsage(), ...loop }));
    fs.renameSync(file + '.tmp', file);
  };
  let seq = 0;
  process.on('SIGUSR2', () => write(++seq));
  write(0);
}`;

/** The V8 heap of the server, as its preload writes it on SIGUSR2 (undefined if it does not answer in 2 s). */
async function heapSample(pid) {
  let before = -1;
  try {
    before = JSON.parse(fs.readFileSync(memoryFile, 'utf8')).seq;
  } catch {
    return undefined; // the preload never wrote: do not signal (SIGUSR2 would end the process)
  }
  process.kill(pid, 'SIGUSR2');
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline) {
    await sleep(20);
    try {
      const m = JSON.parse(fs.readFileSync(memoryFile, 'utf8'));
      if (m.seq > before) {
        return {
          heapUsedMb: mb(m.heapUsed),
          heapTotalMb: mb(m.heapTotal),
          externalMb: mb(m.external),
          arrayBuffersMb: mb(m.arrayBuffers),
          rssMb: mb(m.rss),
          // Since the previous sample (about 5 s): the event loop's delay, the collector's pauses.
          loopDelayP99Ms: round(m.loopDelayP99Ms),
          loopDelayMaxMs: round(m.loopDelayMaxMs),
          gcMs: round(m.gcMs),
          gcMaxMs: round(m.gcMaxMs),
          gcCount: m.gcCount,
          majorGcs: m.majorGcs,
          heapAfterLastFullGcMb: m.heapAfterMajor === null ? null : mb(m.heapAfterMajor),
        };
      }
    } catch {
      // Being renamed in place: try again.
    }
  }
  return undefined;
}

const mb = (bytes) => Math.round((bytes / 1048576) * 10) / 10;
const kbToMb = (kb) => Math.round((kb / 1024) * 10) / 10;

/** Samples RSS every second (heap every 5 s) into `timeline`, tagged with the current phase. */
export function startSampler(pid) {
  const timeline = [];
  const heap = [];
  const t0 = Date.now();
  let phase = 'ready';
  let ticks = 0;
  let busy = false;
  const timer = setInterval(async () => {
    if (busy) return;
    busy = true;
    try {
      const s = procStatus(pid);
      timeline.push({
        t: Math.round((Date.now() - t0) / 100) / 10,
        phase,
        rssMb: kbToMb(s.rssKb),
        anonMb: kbToMb(s.anonKb),
        fileMb: kbToMb(s.fileKb),
        cpuS: cpuSeconds(pid),
      });
      if (ticks++ % 5 === 0) {
        const h = await heapSample(pid);
        if (h) heap.push({ t: Math.round((Date.now() - t0) / 100) / 10, phase, ...h });
      }
    } catch {
      // The server is gone: the run notices elsewhere.
    } finally {
      busy = false;
    }
  }, 1000);
  return {
    timeline,
    heap,
    setPhase(p) {
      phase = p;
    },
    stop() {
      clearInterval(timer);
    },
    /** Median RSS (and the other fields) of the last `n` samples of `p`. */
    settled(p, n = 5) {
      const samples = timeline.filter((s) => s.phase === p).slice(-n);
      if (samples.length === 0) return undefined;
      const med = (key) => median(samples.map((s) => s[key]));
      return { rssMb: med('rssMb'), anonMb: med('anonMb'), fileMb: med('fileMb'), samples: samples.length };
    },
    peak(p) {
      const samples = timeline.filter((s) => s.phase === p);
      return samples.length ? Math.max(...samples.map((s) => s.rssMb)) : undefined;
    },
    lastHeap(p) {
      return heap.filter((h) => h.phase === p).at(-1);
    },
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
