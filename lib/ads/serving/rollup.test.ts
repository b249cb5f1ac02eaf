import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ENGINE, type Engine } from '../../platform/db/engine';
import { scheduleRollUps } from './rollup';

/**
 * An engine whose roll-up call answers what `answer` says, counting the runs. The roll-up runs as
 * the service in one message (lib/platform/db/roles.ts): the settings, then the call.
 */
function engine(answer: () => Promise<unknown>) {
  const state = { runs: 0, running: 0, overlapped: false };
  const db: Engine = {
    get [ENGINE]() {
      return db;
    },
    script: async (statements: readonly string[]) => {
      if (!statements.some((s) => s.includes('roll_up_ad_traffic'))) return statements.map(() => []);
      state.runs++;
      state.running++;
      if (state.running > 1) state.overlapped = true;
      try {
        return [[{}], [await answer()]];
      } finally {
        state.running--;
      }
    },
  } as unknown as Engine;
  return { db, state };
}

describe('the roll-up schedule', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the roll-up every interval', async () => {
    const { db, state } = engine(async () => ({ decisions: 1, events: 2 }));
    const schedule = scheduleRollUps(() => Promise.resolve(db), 10_000);
    await vi.advanceTimersByTimeAsync(9_999);
    expect(state.runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(50_000);
    expect(state.runs).toBe(6);
    schedule.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(state.runs).toBe(6);
  });

  it('never overlaps runs, and tries again after a failure', async () => {
    let calls = 0;
    const { db, state } = engine(
      () =>
        new Promise((resolve, reject) => {
          calls++;
          // The first run fails; the second takes 25 s, over two intervals.
          if (calls === 1) reject(Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' }));
          else setTimeout(() => resolve({ decisions: 0, events: 0 }), calls === 2 ? 25_000 : 0);
        }),
    );
    const schedule = scheduleRollUps(() => Promise.resolve(db), 10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.runs).toBe(2);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(state.runs).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(state.runs).toBe(3);
    expect(state.overlapped).toBe(false);
    schedule.stop();
  });

  it('starts when the process opens its database, not before (lib/services.ts)', async () => {
    const { createServices } = await import('../../services');
    const { db, state } = engine(async () => ({ decisions: 0, events: 0 }));
    let opened = false;
    const services = createServices({
      database: async () => {
        opened = true;
        return db;
      },
      rollUpEveryMs: 10_000,
    });
    await vi.advanceTimersByTimeAsync(30_000);
    expect(opened).toBe(false);
    expect(state.runs).toBe(0);
    await services.database();
    await vi.advanceTimersByTimeAsync(20_000);
    expect(state.runs).toBe(2);
  });
});
