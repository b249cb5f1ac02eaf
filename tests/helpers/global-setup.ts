import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres } from '../../lib/platform/db/engine';
import { migrate } from '../../lib/platform/db/migrate';
import { seed } from '../../lib/demo/seed';

/**
 * Prepares one migrated and seeded database per engine for the whole run; each test file then
 * starts from a copy (a dumped PGlite data directory, or a PostgreSQL template database), so
 * migrations and the seed run once per run and no file sees another's writes.
 */

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
    postgresTemplate: string | null;
  }
}

export default async function setup(project: TestProject) {
  const dir = path.resolve('node_modules/.cache/monetize-tests');
  mkdirSync(dir, { recursive: true });

  const lite = await openPglite();
  await migrate(lite);
  await seed(lite);
  const file = path.join(dir, `pglite-template-${process.pid}.tar`);
  writeFileSync(file, Buffer.from(await (await lite.dump()).arrayBuffer()));
  await lite.close();
  project.provide('pgliteTemplate', file);
  // The dump is this run's alone (about 100 MB): gone with the run, not left to fill the disk.
  const removeDump = () => rmSync(file, { force: true });

  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('postgresTemplate', null);
    return removeDump;
  }
  const template = `mp_template_${process.pid}`;
  const admin = await openPostgres(url);
  await admin.exec(`drop database if exists ${template}`);
  await admin.exec(`create database ${template}`);
  const target = new URL(url);
  target.pathname = `/${template}`;
  const pg = await openPostgres(target.toString());
  await migrate(pg);
  await seed(pg);
  await pg.close();
  project.provide('postgresTemplate', template);

  return async () => {
    // Test databases made from the template are dropped by their files; this drops the template.
    await admin.exec(`drop database if exists ${template}`);
    await admin.close();
    removeDump();
  };
}
