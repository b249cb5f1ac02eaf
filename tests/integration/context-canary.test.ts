import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import { tryConversationForm } from '@/lib/ads/advertisers/forms';
import { rollUp } from '@/lib/ads/serving/rollup';
import { openPglite, type Engine } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { log } from '@/lib/platform/log';
import { createApiKey, createApp, createPlacement } from '@/lib/publisher/writes';
import { demoChat } from '@/lib/demo/chat';
import type { Services } from '@/lib/services';
import { newDraftAdvertiser } from '../helpers/advertisers';
import { demoUsers, postgresCopy, UNLIMITED } from '../helpers/db';
import { newKey, sdk } from '../helpers/sdk';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * The conversation is used for one decision and never kept (content/docs/ad-decision.md): a
 * unique string sent in conversations (one that fits a campaign, a sensitive one, an off-topic
 * one, one refused as too long, the same from an app's server with its server key, the demo
 * chat's server route, and the advertiser console's "try a conversation" box) is then
 * looked for in everything the database has (its files on disk, write-ahead log included, after a
 * checkpoint; a logical dump of every table; the engine's own dump) and in every line the server
 * logged at the debug level, on each engine, and found nowhere. The same search finds a string
 * the test did store (an app's name), so it is a search that can fail.
 */

interface Target {
  name: 'pglite' | 'postgres';
  open(): Promise<{ db: Engine; files: () => Promise<string[]>; dump: () => Promise<Buffer[]>; close: () => Promise<void> }>;
}

/** Every file under `dir` (modified since `since`, when given). */
function filesUnder(dir: string, since = 0): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(p, since));
    else if (entry.isFile() && statSync(p).mtimeMs >= since) out.push(p);
  }
  return out;
}

/** Every row of every table of the schemas our migrations make, as text: a logical dump the same on both engines. */
async function logicalDump(db: Engine): Promise<Buffer> {
  const tables = await db.query<{ name: string }>(
    `select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'`,
  );
  const parts: string[] = [];
  for (const t of tables) {
    const rows = await db.query<{ line: string }>(`select t::text as line from ${t.name} t`);
    parts.push(`-- ${t.name}\n${rows.map((r) => r.line).join('\n')}`);
  }
  return Buffer.from(parts.join('\n'));
}

const pgliteTarget: Target = {
  name: 'pglite',
  async open() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'canary-pglite-'));
    const db = await openPglite({ dataDir: dir, loadDataDir: new Blob([readFileSync(inject('pgliteTemplate'))]) });
    let closed = false;
    return {
      db,
      // The data directory as PGlite leaves it on disk once closed (it writes through on close).
      files: async () => {
        if (!closed) await db.close();
        closed = true;
        return filesUnder(dir);
      },
      dump: async () => [await logicalDump(db), Buffer.from(await (await db.dump()).arrayBuffer())],
      close: async () => {
        if (!closed) await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

function postgresTarget(url: string, template: string): Target {
  return {
    name: 'postgres',
    async open() {
      const { engine: db, name, url: target, admin } = await postgresCopy(url, template, 'mp_canary');
      const since = Date.now() - 1000;
      return {
        db,
        // This database's files and the write-ahead log written since it was made, after a
        // checkpoint has written every change to the files.
        files: async () => {
          await admin.exec('checkpoint');
          const [{ dir }] = (await admin.query<{ dir: string }>('select current_setting($1) as dir', ['data_directory'])) as [{ dir: string }];
          const [{ oid }] = (await admin.query<{ oid: number }>('select oid from pg_database where datname = $1', [name])) as [{ oid: number }];
          return [...filesUnder(path.join(dir, 'base', String(oid))), ...filesUnder(path.join(dir, 'pg_wal'), since)];
        },
        dump: async () => {
          const dumps = [await logicalDump(db)];
          // pg_dump too, where this machine has one of the server's version.
          try {
            dumps.push(execFileSync('pg_dump', ['--no-owner', target], { maxBuffer: 512 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] }));
          } catch {
            // None, or another version: the logical dump above reads every row all the same.
          }
          return dumps;
        },
        close: () => db.close(),
      };
    },
  };
}

function targets(): Target[] {
  const template = inject('postgresTemplate');
  return [pgliteTarget, ...(template && process.env.TEST_DATABASE_URL ? [postgresTarget(process.env.TEST_DATABASE_URL, template)] : [])];
}

/** Where `needle` is, among these buffers and files. */
function foundIn(needle: string, buffers: Buffer[], files: string[]): string[] {
  const bytes = Buffer.from(needle);
  const found: string[] = [];
  buffers.forEach((b, i) => {
    if (b.includes(bytes)) found.push(`dump ${i}`);
  });
  for (const f of files) {
    if (existsSync(f) && readFileSync(f).includes(bytes)) found.push(f);
  }
  return found;
}

for (const target of targets()) {
  describe(`the conversation is never kept, on ${target.name}`, () => {
    let opened: Awaited<ReturnType<Target['open']>>;
    let services: Services;
    const logged: string[] = [];
    // Lower case and ending in digits: the words of a conversation are lowered, and a stem keeps a word that ends so.
    const canary = `zqcanary${randomBytes(8).toString('hex')}7`;
    const stored = `Stored ${randomBytes(6).toString('hex')}`;
    const level = process.env.LOG_LEVEL;

    beforeAll(async () => {
      opened = await target.open();
      services = makeServices({ database: opened.db, rateLimiter: UNLIMITED() });
      setTestServices(services);
      process.env.LOG_LEVEL = 'debug';
      resetEnv();
      for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const) {
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
      }
    });

    afterAll(async () => {
      vi.restoreAllMocks();
      process.env.LOG_LEVEL = level;
      resetEnv();
      setTestServices(undefined);
      await opened?.close();
    });

    it('is found in no file, dump or log line, while what was stored is', async () => {
      const { db } = opened;
      const { demo } = await demoUsers(db);
      const app = await createApp(db, demo, {
        name: stored,
        slug: `canary-${randomBytes(4).toString('hex')}`,
        description: '',
        category: [],
        allowed_origins: [],
      });
      if (!app.ok) throw new Error(app.error);
      const placement = await createPlacement(db, demo, { app_id: app.value.id, name: 'Beside answers', format: 'sponsored_card' });
      if (!placement.ok) throw new Error(placement.error);
      const key = await newKey(db, demo, { appId: app.value.id });
      const ask = (messages: unknown[]) =>
        sdk('/functions/v1/ads', { body: { placement_id: placement.value.id, context: { messages } }, headers: { 'x-api-key': key.key }, services });

      const user = (content: string) => ({ role: 'user', content });
      const fitting = await ask([user(`which app keeps my meeting notes? my project is called ${canary}`)]);
      expect(fitting.status, fitting.text).toBe(200);
      expect((await ask([user(`my knee swells after runs, ${canary}`)])).headers.get('no-fill-reason')).toBe('sensitive');
      expect((await ask([user(`what is the capital of ${canary}?`)])).headers.get('no-fill-reason')).toBe('below_relevance');
      expect((await ask([user(`${canary} `.repeat(400))])).status).toBe(400);
      expect((await ask(Array.from({ length: 7 }, () => user(canary)))).status).toBe(400);
      // From the app's server, with its server key and its user's client; and without a client (a 400).
      const server = await createApiKey(db, demo, { app_id: app.value.id, name: 'Canary server', environment: 'production', kind: 'server' });
      if (!server.ok) throw new Error(server.error);
      const fromServer = (body: Record<string, unknown>) =>
        sdk('/functions/v1/ads', { body: { placement_id: placement.value.id, ...body }, headers: { authorization: `Bearer ${server.value.key}` }, services });
      const client = { ip: '203.0.113.77', user_agent: 'Mozilla/5.0 canary' };
      expect((await fromServer({ context: { messages: [user(`which app keeps my meeting notes? for ${canary}`)] }, client })).status).toBe(200);
      expect((await fromServer({ context: { messages: [user(canary)] } })).status).toBe(400);
      // The demo chat's server route, which asks for its answer's ad with the demo app's server key.
      const inProcess: typeof fetch = async (input, init) =>
        handlersOf('/functions/v1/ads', services).POST(new Request(input, init), { params: Promise.resolve({}) });
      const chat = await demoChat(
        { messages: [{ role: 'user' as const, content: `how should I keep my meeting notes for ${canary}?` }] },
        { ip: '203.0.113.78', userAgent: 'Mozilla/5.0' },
        {
          database: () => services.database(),
          fetch: inProcess,
        },
      );
      expect(await chat.text()).not.toContain(canary);
      // The advertiser's box scores campaigns the same way.
      const { user: advertiser } = await newDraftAdvertiser(db, services, { label: 'Canary', formats: ['sponsored_card'] });
      const form = new FormData();
      form.set('latest', `the best notes app for ${canary}`);
      expect((await tryConversationForm(form, advertiser, services)).tried).toBeDefined();
      await rollUp(db);

      // The capture is live (a line the logger writes now is caught), and holds nothing of it.
      log.debug('context canary: the log is captured');
      expect(logged.some((line) => line.includes('the log is captured'))).toBe(true);
      expect(logged.filter((line) => line.includes(canary))).toEqual([]);
      const dumps = await opened.dump();
      const files = await opened.files();
      expect(files.length).toBeGreaterThan(0);
      // What was stored is found, in the dumps and the files.
      expect(foundIn(stored, dumps, []).length).toBe(dumps.length);
      expect(foundIn(stored, [], files).length).toBeGreaterThan(0);
      // The conversation is found nowhere.
      expect(foundIn(canary, dumps, files)).toEqual([]);
    });
  });
}
