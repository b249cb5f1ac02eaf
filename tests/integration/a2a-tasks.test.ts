import { describe, expect, it } from 'vitest';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@/lib/agents/a2a/task-store';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/** The A2A agent's tasks in the database (lib/agents/a2a/task-store.ts), on every engine. */

const task = (id: string, text = 'hello'): Task => ({
  id,
  contextId: 'c',
  status: {
    state: TaskState.TASK_STATE_COMPLETED,
    message: undefined,
    timestamp: '2026-11-24T10:00:00.000Z',
  },
  artifacts: [
    {
      artifactId: 'a1',
      name: 'answer',
      description: '',
      parts: [{ content: { $case: 'text', value: text }, mediaType: 'text/plain', filename: '', metadata: undefined }],
      metadata: undefined,
      extensions: [],
    },
  ],
  history: [],
  metadata: { asked: 'x' },
});

for (const engine of testEngines()) {
  describe(`A2A tasks on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);
    const database = async () => suite.db;

    it('are saved and loaded whole, by any store on the database, and a save replaces the task', async () => {
      const a = new DatabaseTaskStore(database);
      const b = new DatabaseTaskStore(database);
      const id = crypto.randomUUID();
      await a.save(task(id));
      expect(await b.load(id)).toEqual(task(id));
      await b.save(task(id, 'changed'));
      expect(await a.load(id)).toEqual(task(id, 'changed'));
      expect(await a.load(crypto.randomUUID())).toBeUndefined();
    });

    it('hand out copies: a change to a loaded task is not saved by accident', async () => {
      const store = new DatabaseTaskStore(database);
      const id = crypto.randomUUID();
      await store.save(task(id));
      const loaded = (await store.load(id))!;
      loaded.history.push({} as never);
      expect((await store.load(id))!.history).toHaveLength(0);
    });

    it('are kept 15 minutes after their last save, and deleted by the next save after that', async () => {
      let now = Date.parse('2026-11-24T10:00:00Z');
      const store = new DatabaseTaskStore(database, 15 * 60_000, () => now);
      const old = crypto.randomUUID();
      await store.save(task(old));
      now += 15 * 60_000;
      expect(await store.load(old)).toBeDefined();
      now += 1;
      expect(await store.load(old)).toBeUndefined();
      await store.save(task(crypto.randomUUID()));
      const left = await rawAsService(suite.db, (q) => q.query('select 1 from public.a2a_tasks where id = $1', [old]));
      expect(left).toHaveLength(0);
    });

    it('ignore the tenant a caller names, and list nothing: callers are anonymous', async () => {
      const store: TaskStore = new DatabaseTaskStore(database);
      const id = crypto.randomUUID();
      await store.save(task(id), new ServerCallContext({ tenant: 'someone-else' }));
      expect(await store.load(id, new ServerCallContext())).toBeDefined();
      await expect(new DatabaseTaskStore(database).list()).rejects.toThrow(/not listed/);
    });

    it("are the service's alone: anon and authenticated cannot read them", async () => {
      for (const role of ['anon', 'authenticated']) {
        await expect(
          suite.db.transaction(async (tx) => {
            await tx.query(`select set_config('role', '${role}', true)`);
            return tx.query('select * from public.a2a_tasks');
          }),
        ).rejects.toThrow(/permission denied/);
      }
    });
  });
}
