/**
 * `npm run db:template` (and `npm install`'s postinstall, scripts/postinstall.mjs): writes the
 * migrated, empty embedded database that a new data directory starts from
 * (lib/platform/db/template.ts), unless one for these migrations and this PGlite is there already.
 * It migrates a fresh PGlite in a temporary directory beside it and closes it; nothing else is touched.
 */
import path from 'node:path';
import { pgliteVersion } from '../lib/platform/db/database';
import { openPglite } from '../lib/platform/db/engine';
import { migrate, readMigrations } from '../lib/platform/db/migrate';
import { hasDatabase, templatePath, writeTemplate } from '../lib/platform/db/template';

async function main(): Promise<void> {
  const started = Date.now();
  const migrations = readMigrations();
  const dir = templatePath(migrations, pgliteVersion());
  const shown = path.relative(process.cwd(), dir);
  if (hasDatabase(dir)) {
    console.log(`db:template: ${shown} is there already (${migrations.length} migrations)`);
    return;
  }
  await writeTemplate(dir, async (dataDir) => {
    const engine = await openPglite({ dataDir });
    try {
      await migrate(engine, migrations);
    } finally {
      await engine.close();
    }
  });
  console.log(`db:template: wrote ${shown} (${migrations.length} migrations) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(`db:template: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
