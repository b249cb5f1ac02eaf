import { Task, type ListTasksResponse } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { z } from 'zod';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { Database } from '../../platform/db/roles';
import { asService } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';

/** How long a task is kept after it was last saved. */
export const TASK_TTL_MS = 15 * 60_000;

/** What jsonb cannot hold though JSON can carry it: NUL, and half of a surrogate pair. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A task as jsonb can hold it: each unstorable character of its strings (keys included) becomes
 * U+FFFD. A message is the caller's text, and one such character in it (or in its messageId)
 * made the save, and so the request, fail with a 500.
 */
export function storable(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(UNSTORABLE, '\uFFFD');
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)]));
  return value;
}

/**
 * The agent's tasks in the database (table `a2a_tasks`), so that `GetTask` works on every
 * instance, whichever one answered the `SendMessage`. Kept `TASK_TTL_MS` after their last save;
 * each save deletes the expired ones, so the table never holds more than that much traffic.
 * Stored as the SDK's proto JSON (`Task.toJSON`), read back with `Task.fromJSON`: a loaded task
 * is a new object, which the SDK may change before saving it back.
 *
 * Every caller is anonymous, so tasks are not listed (`ListTasks` would show one caller the
 * questions of others); a task's id, a random UUID known only to whoever created it, is what
 * finds it.
 */
export class DatabaseTaskStore implements TaskStore {
  constructor(
    private readonly database: () => Promise<Database>,
    private readonly ttlMs = TASK_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  async save(task: Task): Promise<void> {
    const now = this.now();
    await asService(await this.database()).script(
      sql`delete from public.a2a_tasks where saved_at < ${new Date(now - this.ttlMs)} returning 1`,
      sql`insert into public.a2a_tasks (id, task, saved_at) values (${task.id}, ${JSON.stringify(storable(Task.toJSON(task)))}::jsonb, ${new Date(now)})
          on conflict (id) do update set task = excluded.task, saved_at = excluded.saved_at
          returning 1`,
    );
  }

  async load(taskId: string): Promise<Task | undefined> {
    // No task has such an id (and the database would refuse it as a parameter): not found, where it was a 500.
    if (storable(taskId) !== taskId) return undefined;
    const rows = await asService(await this.database()).query(
      sql`select task from public.a2a_tasks where id = ${taskId} and saved_at >= ${new Date(this.now() - this.ttlMs)}`,
      // The jsonb as saved, a JSON object: Task.fromJSON reads its fields.
      z.object({ task: z.record(z.string(), z.unknown()) }),
    );
    return rows[0] ? Task.fromJSON(rows[0].task) : undefined;
  }

  async list(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('Tasks are not listed: every caller is anonymous. Keep the task id SendMessage returned and use GetTask.');
  }
}
