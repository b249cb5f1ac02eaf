import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { env } from '../env';
import { log } from '../log';
import { openPglite, openPostgres, type Database, type Engine } from './engine';
import { migrate, readMigrations } from './migrate';
import { copyTemplate, hasDatabase, templatePath } from './template';

/**
 * The database the environment names: PGlite under PGLITE_DATA_DIR, or DATABASE_URL; migrated
 * on open. The process opens it once (lib/process.ts, which also seeds the embedded one with the
 * demo accounts the first time). A new embedded database starts from the migrated template when
 * `npm install` left one (lib/platform/db/template.ts), and is migrated from nothing otherwise.
 */
export async function openDatabase(): Promise<Database> {
  const { DATABASE_URL, DATABASE_TIMEOUT_MS, PGLITE_DATA_DIR } = env();
  const started = Date.now();
  if (DATABASE_URL) return ready(await openPostgres(DATABASE_URL, { timeoutMs: DATABASE_TIMEOUT_MS }), started, false);
  const dataDir = path.resolve(/*turbopackIgnore: true*/ process.cwd(), PGLITE_DATA_DIR);
  if (!hasDatabase(dataDir) && (await copyTemplate(templatePath(readMigrations(), pgliteVersion()), dataDir))) {
    try {
      return await ready(await openPglite({ dataDir: PGLITE_DATA_DIR }), started, true);
    } catch (err) {
      // A template this PGlite cannot open: the new directory made from nothing instead.
      log.warn('database template not used', { reason: err instanceof Error ? err.message : String(err) });
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return ready(await openPglite({ dataDir: PGLITE_DATA_DIR }), started, false);
}

async function ready(engine: Engine, started: number, fromTemplate: boolean): Promise<Database> {
  let applied;
  try {
    applied = await migrate(engine);
  } catch (err) {
    // Closed, so that trying again opens it afresh rather than beside this one (and, for PGlite,
    // its data directory's lock is released).
    await engine.close().catch(() => undefined);
    throw err;
  }
  log.info('database ready', { engine: engine.kind, migrations_applied: applied.length, from_template: fromTemplate, ms: Date.now() - started });
  return engine;
}

/** The installed PGlite's version, which names its template (its files are its version's). */
export function pgliteVersion(root = process.cwd()): string {
  try {
    return (
      JSON.parse(readFileSync(/*turbopackIgnore: true*/ path.join(root, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return 'unknown';
  }
}
