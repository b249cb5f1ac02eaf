import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../lib/platform/db/engine';
import { migrate, readMigrations } from '../../lib/platform/db/migrate';
import { hasDatabase, readTemplate, templatePath, writeTemplate } from '../../lib/platform/db/template';

/**
 * The migrated template a new embedded database starts from (lib/platform/db/template.ts): a data
 * directory made from it is the migrated database (no migration left to run, the migrations' own
 * rows in place), and its name changes with any migration's text and with PGlite's version, so a
 * stale template is never used.
 */

const root = mkdtempSync(path.join(os.tmpdir(), 'db-template-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the migrated template', () => {
  it('makes a new data directory the migrated database, with nothing left to migrate', async () => {
    const migrations = readMigrations();
    const file = templatePath(migrations, 'test', root);
    expect(readTemplate(file)).toBeNull();
    const source = await openPglite();
    try {
      await migrate(source, migrations);
      await writeTemplate(file, await source.dump());
    } finally {
      await source.close();
    }
    const dataDir = path.join(root, 'data');
    expect(hasDatabase(dataDir)).toBe(false);
    const copy = await openPglite({ dataDir, loadDataDir: readTemplate(file)! });
    try {
      expect(hasDatabase(dataDir)).toBe(true);
      expect(await migrate(copy, migrations)).toEqual([]);
      const [row] = await copy.query<{ n: number }>('select count(*)::int as n from public.pricing_settings');
      expect(row!.n).toBe(1);
    } finally {
      await copy.close();
    }
  });

  it('is named for its migrations and its PGlite: another text or version is another file', () => {
    const migrations = readMigrations();
    const name = templatePath(migrations, '0.5.16', root);
    expect(templatePath(migrations, '0.5.16', root)).toBe(name);
    expect(templatePath(migrations, '0.5.17', root)).not.toBe(name);
    const edited = migrations.map((m, i) => (i === migrations.length - 1 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
    expect(templatePath(edited, '0.5.16', root)).not.toBe(name);
    expect(templatePath(migrations.slice(0, -1), '0.5.16', root)).not.toBe(name);
  });
});
