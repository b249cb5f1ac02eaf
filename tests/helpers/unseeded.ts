import { randomBytes } from 'node:crypto';
import { openPglite, openPostgres, type Engine } from '../../lib/platform/db/engine';
import { migrate, readMigrations, type Migration } from '../../lib/platform/db/migrate';
import { derivedEngine, testEngines, type TestEngine } from './db';

/**
 * Databases as a production deployment starts them: migrated, and never seeded (no demo
 * accounts, nothing `lib/demo/seed.ts` writes). The suites' usual copies (tests/helpers/db.ts) are
 * of a seeded template, which hides whatever only the seed provides. Each `open()` migrates a
 * new database from nothing (a few seconds), on PGlite, and on the PostgreSQL of
 * TEST_DATABASE_URL when it is set (a database of its own, dropped when closed). `migrations`
 * (all of them unless told) lets a test stop before one, write what a database held then, and
 * apply the rest (`migrate`), as a deployment does.
 */
export function unseededEngines(migrations: Migration[] = readMigrations()): TestEngine[] {
  return testEngines().map((e) =>
    e.name === 'pglite' ? { name: 'pglite', open: () => openUnseededPglite(migrations) } : { name: 'postgres', open: () => openUnseededPostgres(migrations) },
  );
}

async function openUnseededPglite(migrations: Migration[]): Promise<Engine> {
  const engine = await openPglite();
  await migrate(engine, migrations);
  return engine;
}

async function openUnseededPostgres(migrations: Migration[]): Promise<Engine> {
  const url = process.env.TEST_DATABASE_URL!;
  const name = `mp_unseeded_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = await openPostgres(url);
  await admin.exec(`create database ${name}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const engine = await openPostgres(target.toString());
  await migrate(engine, migrations);
  return derivedEngine(engine, {
    close: async () => {
      await engine.close();
      await admin.exec(`drop database if exists ${name}`);
      await admin.close();
    },
  });
}
