import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readMigrations } from '@/lib/db/migrate';
import { resetEnv } from '@/lib/env';
import { log } from '@/lib/log';
import { createServices } from '@/lib/services';

/**
 * In-process: the embedded database is created, migrated and seeded on
 * first open, and a restart reuses it without seeding again or failing.
 */
describe('embedded database across restarts', () => {
  const dir = path.join(mkdtempSync(path.join(tmpdir(), 'monetize-')), 'pglite');
  const saved = process.env.PGLITE_DATA_DIR;

  afterAll(() => {
    if (saved === undefined) delete process.env.PGLITE_DATA_DIR;
    else process.env.PGLITE_DATA_DIR = saved;
    resetEnv();
    rmSync(path.dirname(dir), { recursive: true, force: true });
  });

  it('creates, migrates and seeds on first start, then reuses the data on restart', async () => {
    process.env.PGLITE_DATA_DIR = dir;
    resetEnv();
    const info = vi.spyOn(log, 'info');

    // The services a process makes from its environment, as on a start.
    const first = await createServices().database();
    expect(existsSync(dir)).toBe(true);
    const [{ n: users } = { n: 0 }] = await first.query<{ n: number }>('select count(*)::int as n from public.users');
    expect(users).toBe(2);
    await first.close();

    // A restart: a new process makes its services afresh and opens the directory again.
    const second = await createServices().database();
    const [{ n: again } = { n: 0 }] = await second.query<{ n: number }>('select count(*)::int as n from public.users');
    expect(again).toBe(2);
    await second.close();

    const ready = info.mock.calls.filter(([m]) => m === 'database ready').map(([, f]) => f);
    expect(ready).toEqual([
      expect.objectContaining({ engine: 'pglite', migrations_applied: readMigrations().length, seeded: true }),
      expect.objectContaining({ engine: 'pglite', migrations_applied: 0, seeded: false }),
    ]);
    info.mockRestore();
  });
});
