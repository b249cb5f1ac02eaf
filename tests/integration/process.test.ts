import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { openAtStart, openedDatabase, processOAuthSecrets, processPricing } from '@/lib/process';
import { processDatabase, services, startTimers } from '@/lib/services';

/**
 * What the process holds once (lib/process.ts, and its seeded database in lib/services.ts): the
 * instrumentation's opening, the site's shell and the services share one database, one pricing
 * reader and one set of secrets; an opening that failed is not kept. In process, as a server's
 * modules would call them.
 */
const HELD = ['monetize.database', 'monetize.database.seeded', 'monetize.pricing', 'monetize.oauth-secrets', 'monetize.services'].map((name) =>
  Symbol.for(name),
);
const slots = globalThis as unknown as Record<symbol, unknown>;
const NAMES = ['PGLITE_DATA_DIR', 'DATABASE_URL', 'DATABASE_TIMEOUT_MS', 'NODE_ENV', 'SEED_DEMO', 'ROLLUP_INTERVAL_S'] as const;
const vars = process.env as Record<string, string | undefined>;

describe("the process's database, pricing and secrets", () => {
  const root = mkdtempSync(path.join(tmpdir(), 'monetize-process-'));
  const saved = Object.fromEntries(NAMES.map((n) => [n, vars[n]]));
  // The process's services start no timers here: they would outlive each test's database.
  vars.ROLLUP_INTERVAL_S = '0';

  async function forget() {
    const held = slots[HELD[0]!] as Promise<{ [ENGINE]: { close(): Promise<void> } }> | undefined;
    for (const key of HELD) delete slots[key];
    await held?.then((db) => db[ENGINE].close()).catch(() => undefined);
  }

  /** A process starting afresh on the embedded database `name`, as NODE_ENV (and SEED_DEMO) say. */
  async function startEmbedded(name: string, nodeEnv: string, seedDemo?: string) {
    await forget();
    vars.PGLITE_DATA_DIR = path.join(root, name);
    delete vars.DATABASE_URL;
    vars.NODE_ENV = nodeEnv;
    if (seedDemo === undefined) delete vars.SEED_DEMO;
    else vars.SEED_DEMO = seedDemo;
    resetEnv();
  }

  afterAll(async () => {
    await forget();
    for (const n of NAMES) {
      if (saved[n] === undefined) delete vars[n];
      else vars[n] = saved[n];
    }
    resetEnv();
    rmSync(root, { recursive: true, force: true });
  });

  it('opens the database once, and the services use that same one with the same pricing and secrets', async () => {
    await startEmbedded('shared', 'test');
    const opening = processDatabase();
    expect(processDatabase()).toBe(opening);
    const db = await opening;
    expect(await openedDatabase()).toBe(db);
    expect(await services().database()).toBe(db);
    expect(services().pricing).toBe(processPricing());
    const secrets = await processOAuthSecrets();
    expect(secrets).not.toBeNull();
    expect(await services().oauthSecrets()).toBe(secrets);
    // The shell's pricing is the database's, as the services read it.
    await db[ENGINE].query('update public.pricing_settings set cpm_tooltip_micro = 4250000');
    expect((await processPricing().values())?.advertiser_cpm_usd.tooltip).toBe(4.25);
    expect((await services().pricing.values())?.advertiser_cpm_usd.tooltip).toBe(4.25);
  });

  it('in development opens at start without seeding: the first use by the services seeds the demo accounts', async () => {
    await startEmbedded('development', 'development');
    const users = async () => (await (await openedDatabase())[ENGINE].query<{ n: number }>('select count(*)::int as n from public.users'))[0]?.n;
    expect(await openAtStart()).toBe(false);
    expect(await users()).toBe(0);
    // The shell's reads need no demo account.
    expect(await processPricing().values()).not.toBeNull();
    expect(await processOAuthSecrets()).not.toBeNull();
    expect(await users()).toBe(0);
    await services().database();
    expect(await users()).toBe(7);
    await forget();
  });

  it('in production opens at start, and seeds (when SEED_DEMO says so) as the timers start, both before the server listens', async () => {
    await startEmbedded('production', 'production', 'true');
    const users = async () => (await (await openedDatabase())[ENGINE].query<{ n: number }>('select count(*)::int as n from public.users'))[0]?.n;
    expect(await openAtStart()).toBe(true);
    expect(await users()).toBe(0);
    // instrumentation.ts awaits both in production, so the server listens seeded.
    await startTimers();
    expect(await users()).toBe(7);
    await forget();
  });

  it('does not keep an opening that failed: the next call tries again', async () => {
    await forget();
    // Nothing listens on port 1 of the loopback address: the connection is refused at once.
    vars.DATABASE_URL = 'postgres://nobody@127.0.0.1:1/none';
    vars.DATABASE_TIMEOUT_MS = '1000';
    resetEnv();
    const failed = processDatabase();
    await expect(failed).rejects.toThrow();
    const again = processDatabase();
    expect(again).not.toBe(failed);
    await expect(again).rejects.toThrow();
    await forget();
  });
});
