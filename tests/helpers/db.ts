import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { ENGINE, openPglite, openPostgres, type Engine } from '../../lib/platform/db/engine';
import { MemoryRateLimiter } from '../../lib/platform/http/rate-limit';
import type { Services } from '../../lib/services';
import { makeServices, setTestServices } from './services';

/**
 * The engines an integration suite runs on: PGlite always, and the real PostgreSQL of
 * TEST_DATABASE_URL when it is set. Each `open()` gives a fresh database with the demo data.
 */

export interface TestEngine {
  name: 'pglite' | 'postgres';
  open(): Promise<Engine>;
}

/** The embedded engine alone, for suites whose subject does not depend on the engine. */
export const PGLITE: TestEngine = { name: 'pglite', open: () => openPgliteCopy() };

export function testEngines(): TestEngine[] {
  const engines: TestEngine[] = [PGLITE];
  const template = inject('postgresTemplate');
  if (template && process.env.TEST_DATABASE_URL) {
    engines.push({ name: 'postgres', open: () => openPostgresCopy(process.env.TEST_DATABASE_URL!, template) });
  }
  return engines;
}

export async function openPgliteCopy(): Promise<Engine> {
  const tarball = readFileSync(inject('pgliteTemplate'));
  return openPglite({ loadDataDir: new Blob([tarball]) });
}

async function openPostgresCopy(url: string, template: string): Promise<Engine> {
  return (await postgresCopy(url, template)).engine;
}

/**
 * A fresh database made from `template` on the server of `url`: its engine (closing it drops the
 * database), its name and URL, and a connection to the server's maintenance database (`admin`),
 * for tests that look at the server itself.
 */
export async function postgresCopy(url: string, template: string, prefix = 'mp_test') {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = await openPostgres(url);
  await admin.exec(`create database ${name} template ${template}`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  const opened = await openPostgres(target.toString());
  const engine = derivedEngine(opened, {
    close: async () => {
      await opened.close();
      await admin.exec(`drop database if exists ${name}`);
      await admin.close();
    },
  });
  return { engine, name, url: target.toString(), admin };
}

/**
 * `base` with some of its methods replaced (a test's probe, a simulated outage). The result is
 * its own `Database`: the roles of lib/platform/db/roles.ts reach the engine through it, so they run
 * through the replaced methods too (a plain `{ ...base }` would copy base's engine instead).
 */
export function derivedEngine(base: Engine, overrides: Partial<Omit<Engine, 'kind' | typeof ENGINE>>): Engine {
  const engine: Engine = {
    ...base,
    ...overrides,
    get [ENGINE]() {
      return engine;
    },
  };
  return engine;
}

/** The ids of the two demo publishers, read as the service would. */
export async function demoUsers(engine: Engine): Promise<{ demo: string; demo2: string }> {
  const rows = await engine.query<{ id: string; email: string }>("select id, email from public.users where email in ('demo@example.com', 'demo2@example.com')");
  const byEmail = Object.fromEntries(rows.map((r) => [r.email, r.id]));
  return { demo: byEmail['demo@example.com']!, demo2: byEmail['demo2@example.com']! };
}

/** A rate limit no test reaches, for suites whose many calls from one address are not what they test. */
export const UNLIMITED = () => new MemoryRateLimiter({ max: 1_000_000, windowSeconds: 60 });

/**
 * A suite's database: a fresh copy of `engine` for the whole describe block, with services of its
 * own (fresh OAuth secrets and cursor key, its own rate limiter) that the suite's routes run
 * with, and the ids of the demo publishers; closed and forgotten afterwards. `unlimited` lifts
 * the rate limit.
 */
export function suiteDatabase(engine: TestEngine, options: { unlimited?: boolean } = {}) {
  const suite = {} as { db: Engine; services: Services; users: { demo: string; demo2: string } };
  beforeAll(async () => {
    suite.db = await engine.open();
    suite.services = makeServices({ database: suite.db, rateLimiter: options.unlimited ? UNLIMITED() : undefined });
    setTestServices(suite.services);
    suite.users = await demoUsers(suite.db);
  });
  afterAll(async () => {
    setTestServices(undefined);
    await suite.db?.close();
  });
  return suite;
}
