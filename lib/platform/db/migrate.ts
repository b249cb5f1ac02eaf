import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Engine } from './engine';

/**
 * Applies `supabase/migrations/<version>_<name>.sql` in order and records each in
 * `supabase_migrations.schema_migrations`, the table the Supabase CLI keeps, so that
 * `supabase db push` and this migrator agree on what has been applied.
 */

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

const FILE = /^(\d{14})_([a-z0-9_]+)\.sql$/;

export function migrationsDir(): string {
  return path.join(process.cwd(), 'supabase', 'migrations');
}

export function readMigrations(dir = migrationsDir()): Migration[] {
  return readdirSync(/*turbopackIgnore: true*/ dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((file) => {
      const match = FILE.exec(file);
      if (!match) throw new Error(`migration file name must be <14-digit version>_<name>.sql: ${file}`);
      return { version: match[1]!, name: match[2]!, sql: readFileSync(path.join(/*turbopackIgnore: true*/ dir, file), 'utf8') };
    });
}

// An arbitrary constant: two app instances starting together take turns.
const MIGRATION_LOCK = 727_372_001;

/** Returns the versions applied by this call (empty when the database was up to date). */
export async function migrate(engine: Engine, migrations = readMigrations()): Promise<string[]> {
  await engine.exec(`
    create schema if not exists supabase_migrations;
    create table if not exists supabase_migrations.schema_migrations (
      version text primary key,
      statements text[],
      name text
    );
  `);
  return engine.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const done = new Set((await tx.query<{ version: string }>('select version from supabase_migrations.schema_migrations')).map((r) => r.version));
    const applied: string[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('insert into supabase_migrations.schema_migrations (version, statements, name) values ($1, $2, $3)', [m.version, [m.sql], m.name]);
      applied.push(m.version);
    }
    return applied;
  });
}

/**
 * Drops what the migrations made on a PostgreSQL, for `npm run db:reset` and the bench; the roles,
 * shared with the rest of the cluster, stay. (The embedded database is reset by deleting its
 * directory.)
 */
export async function dropMigratedSchema(engine: Engine): Promise<void> {
  await engine.exec(`
    drop schema if exists public cascade;
    create schema public;
    grant usage on schema public to public;
    drop schema if exists supabase_migrations cascade;
  `);
}
