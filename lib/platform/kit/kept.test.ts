import { describe, expect, it } from 'vitest';
import { keptOnSuccess, retrying, type Slot } from './kept';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('retrying', () => {
  it('keeps the first success: later calls do not load again', async () => {
    let loads = 0;
    const get = retrying(async () => ++loads);
    expect(await get()).toBe(1);
    expect(await get()).toBe(1);
    expect(loads).toBe(1);
  });

  it('shares the attempt in flight between callers', async () => {
    const pending = deferred<string>();
    let loads = 0;
    const get = retrying(() => {
      loads++;
      return pending.promise;
    });
    const [a, b] = [get(), get()];
    pending.resolve('open');
    expect(await Promise.all([a, b])).toEqual(['open', 'open']);
    expect(loads).toBe(1);
  });

  it('drops a failure: the next call tries again', async () => {
    let loads = 0;
    const get = retrying(async () => {
      loads++;
      if (loads === 1) throw new Error('not yet');
      return 'open';
    });
    await expect(get()).rejects.toThrow('not yet');
    expect(await get()).toBe('open');
    expect(await get()).toBe('open');
    expect(loads).toBe(2);
  });
});

describe('keptOnSuccess', () => {
  it('a failed attempt that another replaced leaves the newer one kept', async () => {
    let value: Promise<string> | undefined;
    const slot: Slot<string> = { get: () => value, set: (v) => (value = v) };
    const first = deferred<string>();
    const attempt = keptOnSuccess(slot, () => first.promise);
    // Someone replaced the kept attempt (a reset, say) before the first one failed.
    const newer = Promise.resolve('newer');
    slot.set(newer);
    first.reject(new Error('failed late'));
    await expect(attempt).rejects.toThrow('failed late');
    expect(slot.get()).toBe(newer);
    expect(await keptOnSuccess(slot, async () => 'loaded again')).toBe('newer');
  });

  it('keeps in the slot it is given, e.g. one on globalThis', async () => {
    const key = Symbol('kept.test');
    const held = globalThis as unknown as Record<symbol, Promise<number> | undefined>;
    const slot: Slot<number> = {
      get: () => held[key],
      set: (v) => {
        if (v) held[key] = v;
        else delete held[key];
      },
    };
    try {
      await expect(keptOnSuccess(slot, () => Promise.reject(new Error('no')))).rejects.toThrow('no');
      expect(key in held).toBe(false);
      expect(await keptOnSuccess(slot, async () => 7)).toBe(7);
      expect(await keptOnSuccess(slot, async () => 8)).toBe(7);
    } finally {
      delete held[key];
    }
  });
});
