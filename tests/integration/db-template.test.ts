import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../lib/platform/db/engine';
import { migrate, readMigrations } from '../../lib/platform/db/migrate';
import { copyTemplate, hasDatabase, templatePath, writeTemplate } from '../../lib/platform/db/template';

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
    const template = templatePath(migrations, 'test', root);
    const dataDir = path.join(root, 'data');
    expect(await copyTemplate(template, dataDir)).toBe(false);
    expect(hasDatabase(dataDir)).toBe(false);
    await writeTemplate(template, async (dir) => {
      const source = await openPglite({ dataDir: dir });
      try {
        await migrate(source, migrations);
      } finally {
        await source.close();
      }
    });
    expect(readdirSync(root).filter((name) => name.includes('.partial'))).toEqual([]);
    expect(await copyTemplate(template, dataDir)).toBe(true);
    const copy = await openPglite({ dataDir });
    try {
      expect(hasDatabase(dataDir)).toBe(true);
      expect(await migrate(copy, migrations)).toEqual([]);
      const [row] = await copy.query<{ n: number }>('select count(*)::int as n from public.pricing_settings');
      expect(row!.n).toBe(1);
      await copy.exec('create table public.only_in_the_copy (x integer)');
    } finally {
      await copy.close();
    }
    // The copy is its own: the template is as it was written, without what the copy made.
    const again = await openPglite({ dataDir: template });
    try {
      expect(await migrate(again, migrations)).toEqual([]);
      const [table] = await again.query<{ name: string | null }>("select to_regclass('public.only_in_the_copy')::text as name");
      expect(table!.name).toBeNull();
    } finally {
      await again.close();
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
