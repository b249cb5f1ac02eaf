import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Migration } from './migrate';

/**
 * A migrated, empty embedded database, kept as a tarball (PGlite's `dumpDataDir`) under
 * `.data/templates/`, so that a fresh data directory starts from it instead of running initdb and
 * every migration (about 6 s on two cores, while the first page compiles). `npm install` writes it
 * (scripts/db-template.ts); it holds no data but the migrations' own, so it never goes stale with
 * time, and its name carries a hash of the migrations and of PGlite's version: a new migration or a
 * new PGlite makes another name, and the old file is simply not used. Missing or unreadable, the
 * database is made as before.
 */

const DIR = '.data/templates';

/** The template's file for these migrations and this PGlite. */
export function templatePath(migrations: readonly Migration[], pgliteVersion: string, root = process.cwd()): string {
  const hash = createHash('sha256').update(pgliteVersion);
  for (const m of migrations) hash.update(`\0${m.version}\0${m.name}\0${m.sql}`);
  return path.join(/*turbopackIgnore: true*/ root, DIR, `pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** The tarball, when there is one for these migrations; null otherwise. */
export function readTemplate(file: string): Blob | null {
  try {
    return existsSync(/*turbopackIgnore: true*/ file) ? new Blob([readFileSync(/*turbopackIgnore: true*/ file)]) : null;
  } catch {
    return null;
  }
}

/** Writes the tarball whole or not at all (a temporary file renamed), so a reader never sees half of it. */
export async function writeTemplate(file: string, tarball: Blob): Promise<void> {
  mkdirSync(/*turbopackIgnore: true*/ path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(/*turbopackIgnore: true*/ partial, Buffer.from(await tarball.arrayBuffer()));
  renameSync(/*turbopackIgnore: true*/ partial, file);
}

/** Whether a data directory holds a database already (PostgreSQL writes PG_VERSION first). */
export function hasDatabase(dataDir: string): boolean {
  return existsSync(/*turbopackIgnore: true*/ path.join(dataDir, 'PG_VERSION'));
}
