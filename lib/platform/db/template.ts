import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Migration } from './migrate';

/**
 * A migrated, empty embedded database, kept as a data directory under `.data/templates/`, so that a
 * fresh data directory starts as a copy of it instead of running initdb and every migration (about
 * 6 s on two cores, while the first page compiles). `npm install` writes it
 * (scripts/db-template.ts); it holds no data but the migrations' own, so it never goes stale with
 * time, and its name carries a hash of the migrations and of PGlite's version: a new migration or a
 * new PGlite makes another name, and the old one is simply not used. Missing or unusable, the
 * database is made as before.
 *
 * A directory copied with the file system's own copy (about 0.2 s for its 1,400 files here), rather
 * than a tarball PGlite unpacks file by file through its emulated file system (about 1 s more).
 */

const DIR = '.data/templates';

/** The template's directory for these migrations and this PGlite. */
export function templatePath(migrations: readonly Migration[], pgliteVersion: string, root = process.cwd()): string {
  const hash = createHash('sha256').update(pgliteVersion);
  for (const m of migrations) hash.update(`\0${m.version}\0${m.name}\0${m.sql}`);
  return path.join(/*turbopackIgnore: true*/ root, DIR, `pglite-migrated-${hash.digest('hex').slice(0, 16)}`);
}

/** Whether a data directory holds a database already (PostgreSQL writes PG_VERSION first). */
export function hasDatabase(dataDir: string): boolean {
  return existsSync(/*turbopackIgnore: true*/ path.join(dataDir, 'PG_VERSION'));
}

/**
 * Makes `dataDir` a copy of the template at `template`, when there is one; answers whether it did.
 * `dataDir` must hold no database (it may be an empty directory, or a copy left half done). The
 * copy runs off the main thread: in `npm run dev` it overlaps the first page's compile, which
 * needs the main thread to get going.
 */
export async function copyTemplate(template: string, dataDir: string): Promise<boolean> {
  if (!hasDatabase(template)) return false;
  // Copied beside it and renamed: a copy cut short (a Ctrl-C) is never taken for a database.
  const partial = `${dataDir}.${process.pid}.partial`;
  try {
    await rm(/*turbopackIgnore: true*/ partial, { recursive: true, force: true });
    await cp(/*turbopackIgnore: true*/ template, /*turbopackIgnore: true*/ partial, { recursive: true });
    if (hasDatabase(dataDir)) {
      // Another process made it meanwhile: theirs is the database.
      await rm(/*turbopackIgnore: true*/ partial, { recursive: true, force: true });
      return true;
    }
    await rm(/*turbopackIgnore: true*/ dataDir, { recursive: true, force: true });
    await rename(/*turbopackIgnore: true*/ partial, dataDir);
    return true;
  } catch {
    await rm(/*turbopackIgnore: true*/ partial, { recursive: true, force: true });
    return hasDatabase(dataDir);
  }
}

/**
 * Writes the template whole or not at all: `fill` makes a database in a temporary directory, which
 * is then renamed, so a reader never sees half of one.
 */
export async function writeTemplate(template: string, fill: (dataDir: string) => Promise<void>): Promise<void> {
  mkdirSync(/*turbopackIgnore: true*/ path.dirname(template), { recursive: true });
  const partial = `${template}.${process.pid}.partial`;
  rmSync(/*turbopackIgnore: true*/ partial, { recursive: true, force: true });
  try {
    await fill(partial);
    // Another process may have written the same template meanwhile: theirs is as good.
    try {
      renameSync(/*turbopackIgnore: true*/ partial, template);
    } catch (err) {
      if (!hasDatabase(template)) throw err;
    }
  } finally {
    rmSync(/*turbopackIgnore: true*/ partial, { recursive: true, force: true });
  }
}
