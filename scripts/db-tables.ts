/**
 * `npm run db:tables`: (re)writes supabase/schemas/tables/<schema>.<table>.sql, each table as the
 * migrations leave it (supabase/schemas/README.md, Tables). It migrates a fresh PGlite in memory,
 * never the configured database, so the files say what the migrations make and nothing else; it
 * writes a file for every table, rewrites those that changed and deletes those whose table is
 * gone. Run it after adding a migration that changes a table: tests/integration/sql-tables.test.ts
 * fails until it is.
 *
 * `npm run db:tables -- --check` writes nothing: it says what differs and exits 1 if anything does.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPglite } from '../lib/platform/db/engine';
import { migrate } from '../lib/platform/db/migrate';
import { compareDescriptionWithFiles, describeTables, readTableFiles, TABLES_DIR } from '../tests/helpers/sql-tables';

async function main(args: string[]): Promise<void> {
  const check = args.includes('--check');
  const engine = await openPglite();
  try {
    await migrate(engine);
    const description = await describeTables(engine);
    mkdirSync(TABLES_DIR, { recursive: true });
    const files = readTableFiles();
    const problems = compareDescriptionWithFiles(description, files);
    if (check) {
      for (const problem of problems) console.error(problem);
      console.log(
        `${description.tables.length} tables; ${problems.length ? `${problems.length} differences` : 'every file as the migrations leave its table'}`,
      );
      if (problems.length) process.exitCode = 1;
      return;
    }
    // Relations of another kind (a view, a sequence of its own) have no file to write: said, not hidden.
    for (const problem of description.undescribed) console.error(problem);
    const wanted = new Set(description.tables.map((t) => t.file));
    const before = new Map(files.map((f) => [f.name, f.sql]));
    let written = 0;
    for (const table of description.tables) {
      if (before.get(table.file) === table.text) continue;
      writeFileSync(path.join(TABLES_DIR, table.file), table.text);
      console.log(`${before.has(table.file) ? 'rewrote' : 'wrote'} ${path.relative(process.cwd(), path.join(TABLES_DIR, table.file))}`);
      written++;
    }
    for (const file of files.filter((f) => !wanted.has(f.name))) {
      rmSync(path.join(TABLES_DIR, file.name));
      console.log(`deleted ${path.relative(process.cwd(), path.join(TABLES_DIR, file.name))} (no migration creates its table)`);
      written++;
    }
    console.log(`${description.tables.length} tables; ${written ? `${written} files changed` : 'every file was up to date'}`);
    if (description.undescribed.length) process.exitCode = 1;
  } finally {
    await engine.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
