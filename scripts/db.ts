/**
 * `npm run db:migrate | db:seed | db:reset` against the configured database: DATABASE_URL when
 * set (Supabase or any PostgreSQL 15+), otherwise the embedded PGlite under PGLITE_DATA_DIR.
 * Stop `npm run dev` first when using the embedded database: one process may open it at a time.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { lockDataDir } from '../lib/platform/db/pglite-lock';
import { openPglite, openPostgres, type Engine } from '../lib/platform/db/engine';
import { dropMigratedSchema, migrate } from '../lib/platform/db/migrate';
import { seed } from '../lib/demo/seed';
import { env } from '../lib/platform/env';

async function open(): Promise<Engine> {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  return DATABASE_URL ? openPostgres(DATABASE_URL) : openPglite({ dataDir: PGLITE_DATA_DIR });
}

function where(): string {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  return DATABASE_URL ? `PostgreSQL at ${new URL(DATABASE_URL).host}` : `PGlite in ${PGLITE_DATA_DIR}`;
}

async function main(command: string | undefined): Promise<void> {
  if (command === 'reset') {
    const { DATABASE_URL, PGLITE_DATA_DIR } = env();
    if (DATABASE_URL) {
      const engine = await openPostgres(DATABASE_URL);
      await dropMigratedSchema(engine);
      await engine.close();
    } else {
      // Not under a running server: the lock says who has it (lib/platform/db/pglite-lock.ts).
      const release = lockDataDir(path.resolve(PGLITE_DATA_DIR));
      try {
        rmSync(path.resolve(PGLITE_DATA_DIR), { recursive: true, force: true });
      } finally {
        release();
      }
    }
    console.log(`reset ${where()}`);
  }
  if (!command || !['migrate', 'seed', 'reset'].includes(command)) {
    console.error('usage: tsx scripts/db.ts migrate|seed|reset');
    process.exit(2);
  }
  const engine = await open();
  try {
    const applied = await migrate(engine);
    console.log(`${where()}: ${applied.length ? `applied ${applied.join(', ')}` : 'migrations up to date'}`);
    if (command === 'seed' || command === 'reset') {
      console.log((await seed(engine)) ? 'seeded the demo accounts' : 'demo accounts already present; nothing seeded');
    }
  } finally {
    await engine.close();
  }
}

main(process.argv[2]).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
