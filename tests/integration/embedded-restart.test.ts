import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { pgliteVersion } from '@/lib/platform/db/database';
import { ENGINE } from '@/lib/platform/db/engine';
import { hasDatabase, templatePath } from '@/lib/platform/db/template';
import { readMigrations } from '@/lib/platform/db/migrate';
import { resetEnv } from '@/lib/platform/env';
import { log } from '@/lib/platform/log';
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

    // The services a process makes from its environment, as on a start (the engine under the
    // database they hand out, to count and close).
    const first = (await createServices().database())[ENGINE];
    expect(existsSync(dir)).toBe(true);
    const [{ n: users } = { n: 0 }] = await first.query<{ n: number }>('select count(*)::int as n from public.users');
    // The two demo publishers, the three demo advertisers, the demo data buyer and the operator.
    expect(users).toBe(7);
    await first.close();

    // A restart: a new process makes its services afresh and opens the directory again.
    const second = (await createServices().database())[ENGINE];
    const [{ n: again } = { n: 0 }] = await second.query<{ n: number }>('select count(*)::int as n from public.users');
    expect(again).toBe(7);
    await second.close();

    // Each start opens and migrates; only the first one seeds, right after it opened. The first
    // starts from the migrated template when `npm install` wrote one (lib/platform/db/template.ts),
    // with nothing left to migrate, and from nothing otherwise.
    const template = hasDatabase(templatePath(readMigrations(), pgliteVersion()));
    const started = info.mock.calls.filter(([m]) => m === 'database ready' || m === 'demo accounts seeded');
    expect(started).toEqual([
      ['database ready', expect.objectContaining({ engine: 'pglite', from_template: template, migrations_applied: template ? 0 : readMigrations().length })],
      ['demo accounts seeded'],
      ['database ready', expect.objectContaining({ engine: 'pglite', migrations_applied: 0 })],
    ]);
    info.mockRestore();
  });
});
