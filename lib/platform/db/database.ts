import { env } from '../env';
import { log } from '../log';
import { openPglite, openPostgres, type Database } from './engine';
import { migrate } from './migrate';

/**
 * The database the environment names: PGlite under PGLITE_DATA_DIR, or DATABASE_URL; migrated
 * on open. The process opens it once (lib/services.ts, which also seeds the embedded one with the
 * demo accounts the first time).
 */
export async function openDatabase(): Promise<Database> {
  const { DATABASE_URL, DATABASE_TIMEOUT_MS, PGLITE_DATA_DIR } = env();
  const started = Date.now();
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL, { timeoutMs: DATABASE_TIMEOUT_MS }) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  const applied = await migrate(engine);
  log.info('database ready', { engine: engine.kind, migrations_applied: applied.length, ms: Date.now() - started });
  return engine;
}
