import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { RecentTaskStore } from './task-store';

const task = (id: string): Task => ({
  id,
  contextId: 'c',
  status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: undefined },
  artifacts: [],
  history: [],
  metadata: {},
});

describe('RecentTaskStore', () => {
  it('keeps the most recent tasks only', async () => {
    const store = new RecentTaskStore(3);
    for (const id of ['a', 'b', 'c', 'd']) await store.save(task(id));
    expect(store.size).toBe(3);
    expect(await store.load('a')).toBeUndefined();
    expect((await store.load('d'))?.id).toBe('d');
  });

  it('forgets a task after its time', async () => {
    let now = 0;
    const store = new RecentTaskStore(10, 1_000, () => now);
    await store.save(task('a'));
    now = 1_000;
    expect(await store.load('a')).toBeDefined();
    now = 1_001;
    expect(await store.load('a')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('hands out copies, so a change to a loaded task is not saved by accident', async () => {
    const store = new RecentTaskStore();
    await store.save(task('a'));
    const loaded = (await store.load('a'))!;
    loaded.history.push({} as never);
    expect((await store.load('a'))!.history).toHaveLength(0);
  });

  it('ignores the tenant a caller names: one agent, one store', async () => {
    // Called as the SDK calls it: with the caller's context.
    const store: TaskStore = new RecentTaskStore();
    await store.save(task('a'), new ServerCallContext({ tenant: 'someone-else' }));
    expect(await store.load('a', new ServerCallContext())).toBeDefined();
  });

  it('lists nothing: callers are anonymous', async () => {
    await expect(new RecentTaskStore().list()).rejects.toThrow(/not listed/);
  });
});
