import type { ListTasksResponse, Task } from '@a2a-js/sdk';
import { UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { TaskStore } from '@a2a-js/sdk/server';

/**
 * The tasks the agent remembers, so `GetTask` can fetch a task again by its id: the most recent
 * ones only, for a while, in this process. The SDK's InMemoryTaskStore keeps every task forever,
 * in one bucket per tenant and owner, both of which an anonymous caller chooses; this one is
 * bounded, whatever the callers send.
 *
 * Every caller is anonymous, so tasks are not listed (`ListTasks` would show one caller the
 * questions of others); a task's id, a random UUID known only to whoever created it, is what
 * finds it.
 */
export class RecentTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { task: Task; at: number }>();

  constructor(
    /** How many tasks are kept; the oldest goes first. */
    private readonly max = 256,
    /** How long a task is kept, in milliseconds. */
    private readonly ttlMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  async save(task: Task): Promise<void> {
    this.tasks.delete(task.id);
    this.tasks.set(task.id, { task: structuredClone(task), at: this.now() });
    while (this.tasks.size > this.max) this.tasks.delete(this.tasks.keys().next().value as string);
  }

  async load(taskId: string): Promise<Task | undefined> {
    const entry = this.tasks.get(taskId);
    if (!entry) return undefined;
    if (this.now() - entry.at > this.ttlMs) {
      this.tasks.delete(taskId);
      return undefined;
    }
    // A copy: the SDK changes what it loads before saving it back.
    return structuredClone(entry.task);
  }

  async list(): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError('Tasks are not listed: every caller is anonymous. Keep the task id SendMessage returned and use GetTask.');
  }

  get size(): number {
    return this.tasks.size;
  }
}
