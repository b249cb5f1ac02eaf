import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ENGINE } from '@/lib/platform/db/engine';
import { parseEnv, resetEnv } from '@/lib/platform/env';
import { createServices } from '@/lib/services';
import { seedsDemo } from '@/lib/process';

/**
 * The demo accounts' password is published (README), so a production start seeds them into the
 * embedded database only when SEED_DEMO=true says so; development seeds them the first time as
 * before (tests/integration/embedded-restart.test.ts). In process, as a start makes its services
 * from the environment.
 */

const NAMES = ['NODE_ENV', 'PGLITE_DATA_DIR', 'SEED_DEMO', 'DATABASE_URL'] as const;
/** `process.env`, whose NODE_ENV the types make read-only: these tests start as production does. */
const vars = process.env as Record<string, string | undefined>;

describe('seeding the embedded database on start', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'monetize-seed-'));
  const saved = Object.fromEntries(NAMES.map((n) => [n, vars[n]]));

  afterEach(() => {
    for (const n of NAMES) {
      if (saved[n] === undefined) delete vars[n];
      else vars[n] = saved[n];
    }
    resetEnv();
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Starts as a process would with `given`, on a fresh data directory; answers the users it finds. */
  async function start(name: string, given: Record<string, string | undefined>): Promise<string[]> {
    vars.PGLITE_DATA_DIR = path.join(root, name);
    delete vars.DATABASE_URL;
    for (const [k, v] of Object.entries(given)) {
      if (v === undefined) delete vars[k];
      else vars[k] = v;
    }
    resetEnv();
    const engine = (await createServices().database())[ENGINE];
    try {
      const users = await engine.query<{ email: string }>('select email from public.users');
      return users.map((u) => u.email).sort();
    } finally {
      await engine.close();
    }
  }

  it('in production without SEED_DEMO, seeds nothing: no demo accounts, no known password', async () => {
    expect(await start('production', { NODE_ENV: 'production', SEED_DEMO: undefined })).toEqual([]);
  });

  it('in production with SEED_DEMO=true, seeds the demo accounts', async () => {
    expect(await start('production-seeded', { NODE_ENV: 'production', SEED_DEMO: 'true' })).toEqual([
      'ads@lumen-notes.example',
      'ads@parcel-cloud.example',
      'advertiser@example.com',
      'buyer@example.com',
      'demo2@example.com',
      'demo@example.com',
      'operator@example.com',
    ]);
  });

  it('outside production seeds them unless SEED_DEMO=false', async () => {
    expect(await start('development-unseeded', { NODE_ENV: 'development', SEED_DEMO: 'false' })).toEqual([]);
  });

  it('decides from the two variables, and refuses any other value of SEED_DEMO', () => {
    expect(seedsDemo({ NODE_ENV: 'development', SEED_DEMO: undefined })).toBe(true);
    expect(seedsDemo({ NODE_ENV: 'test', SEED_DEMO: undefined })).toBe(true);
    expect(seedsDemo({ NODE_ENV: 'production', SEED_DEMO: undefined })).toBe(false);
    expect(seedsDemo({ NODE_ENV: 'production', SEED_DEMO: 'true' })).toBe(true);
    expect(seedsDemo({ NODE_ENV: 'development', SEED_DEMO: 'false' })).toBe(false);
    expect(parseEnv({ SEED_DEMO: '' }).SEED_DEMO).toBeUndefined();
    expect(() => parseEnv({ SEED_DEMO: 'yes' })).toThrow(/SEED_DEMO: set it to true or false/);
  });
});
