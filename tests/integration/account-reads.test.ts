import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { accountSource, getDailyEarnings, getEarnings, getProfile, listApiKeys, listApps, listCampaigns, listLicenses } from '@/lib/account/operations';

import { ACCOUNT_READS, accountStatement, readAccount, type AccountAnswers, type AccountRead } from '@/lib/account/reads';
import { Lru } from '@/lib/platform/cache/lru';
import * as views from '@/lib/account/views';
import type { Engine, Transaction } from '@/lib/platform/db/engine';
import { isDatabaseError } from '@/lib/platform/db/errors';
import { toBound, toLiteral, type Sql } from '@/lib/platform/db/sql';
import { log } from '@/lib/platform/log';
import { accountServer } from '@/lib/agents/mcp/account-tools';
import type { Principal } from '@/lib/identity/oauth/bearer';
import { SCOPES } from '@/lib/schemas/account';
import type { Services } from '@/lib/services';
import { ACCOUNT_ROUTES, get } from '../helpers/account';
import { derivedEngine, suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { makeServices, setTestServices } from '../helpers/services';
import { accessToken } from '../helpers/tokens';
import { rawAsService } from '../helpers/roles';

/**
 * The account reads, on every engine the run has: one data statement each after the claims,
 * the same JS types on both engines, the order of the lists, and which failures are the 502
 * `account_unavailable` (the database's) and which are the 500 `internal_error` (our own bugs).
 */

/**
 * An engine that records the statements of each transaction: those run in `transaction`, and
 * those sent together as one message by `script`, which is one transaction too.
 */
function recording(engine: Engine) {
  const transactions: string[][] = [];
  const wrapped: Engine = derivedEngine(engine, {
    transaction: <T>(fn: (tx: Transaction) => Promise<T>) => {
      const statements: string[] = [];
      transactions.push(statements);
      return engine.transaction((tx) =>
        fn({
          ...tx,
          query: ((text: string, params?: unknown[]) => {
            statements.push(text);
            return tx.query(text, params as never);
          }) as Transaction['query'],
        }),
      );
    },
    // A script is one message, which PostgreSQL runs as one transaction: its statements.
    script: (statements, options) => {
      transactions.push([...statements]);
      return engine.script(statements, options);
    },
  });
  return { engine: wrapped, transactions };
}

const principal = (userId: string): Principal => ({
  kind: 'user',
  userId,
  clientId: 'test-client',
  scopes: [...SCOPES],
  expiresAt: new Date(Date.now() + 3600_000),
});

const route = (path: string) => ACCOUNT_ROUTES.find((r) => r.path === path)!;

/** A statement's SQL text. */
const textOf = (statement: Sql) => toBound(statement).text;

const reader = (userId: string) => ({ userId, clientId: 'test-client', scopes: [...SCOPES] });

for (const engine of testEngines()) {
  describe(`account reads on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let probe: ReturnType<typeof recording>;
    /** The suite's services, on the recording database. */
    let services: Services;
    /** The recording database, as the account operations are given it. */
    const database = () => services.database();
    beforeAll(() => {
      probe = recording(suite.db);
      services = makeServices({ database: probe.engine, rateLimiter: UNLIMITED() });
      setTestServices(services);
    });
    afterEach(() => {
      vi.restoreAllMocks();
    });

    describe('round trips', () => {
      const operations = {
        profile: (p: Principal) => getProfile(accountSource(p, database, Date.now)),
        apps: (p: Principal) => listApps(accountSource(p, database, Date.now), 'all'),
        earnings: (p: Principal) => getEarnings(accountSource(p, database, Date.now), 50),
        apiKeys: (p: Principal) => listApiKeys(accountSource(p, database, Date.now), 'all'),
        daily: (p: Principal) => getDailyEarnings(accountSource(p, database, Date.now), { days: '30' }, new Date().toISOString().slice(0, 10)),
        campaigns: (p: Principal) =>
          listCampaigns(accountSource(p, database, Date.now), { status: 'all', limit: 50 }, () => Promise.resolve(Buffer.alloc(32, 7))),
        licenses: (p: Principal) =>
          listLicenses(accountSource(p, database, Date.now), { status: 'all', limit: 50 }, () => Promise.resolve(Buffer.alloc(32, 7))),
      } satisfies Record<AccountRead, (p: Principal) => Promise<object>>;

      it.each(Object.keys(operations) as AccountRead[])('%s: one transaction, the claims and one SELECT', async (read) => {
        const before = probe.transactions.length;
        await operations[read](principal(suite.users.demo));
        const transactions = probe.transactions.slice(before);
        expect(transactions).toHaveLength(1);
        expect(transactions[0]).toHaveLength(2);
        expect(transactions[0]![0]).toMatch(/set_config\('request\.jwt\.claims'.*set_config\('role', E'authenticated'/s);
        expect(transactions[0]![1]).toBe(toLiteral(accountStatement(read)));
      });
    });

    describe('values and order', () => {
      /** The same rows read column by column, as the service, in the order the API promises. */
      const direct = async (userId: string) =>
        rawAsService(suite.db, async (q) => {
          const mine = [userId];
          return {
            profile: (await q.query('select id, email, name, company, role, created_at from public.users where id = $1', mine))[0],
            apps: await q.query(
              `select id, name, slug, description, category, allowed_origins, excluded_topics, blocked_advertisers, blocked_categories, created_at
               from public.apps where user_id = $1 and archived_at is null order by created_at, id`,
              mine,
            ),
            placements: await q.query(
              `select id, app_id, name, format, status, impressions, clicks, revenue_micro, click_revenue_micro, ad_requests, fills, invalid_events,
                      min_relevance::float8 as min_relevance, created_at
               from public.placements where user_id = $1 order by created_at, id`,
              mine,
            ),
            payouts: await q.query(
              `select id, period, amount_micro, status, paid_at, requested_at, failure_reason, rail, destination
               from public.payouts where user_id = $1 order by requested_at desc, id`,
              mine,
            ),
            method: (await q.query('select rail, masked, ready, status_note, updated_at from public.payout_methods where user_id = $1', mine))[0] ?? null,
            // The user's two accounts, by the kinds of their transactions, in micro-dollars.
            ledger: await q.query<{ account: string; kind: string; micro: string }>(
              `select a.kind as account, t.kind, sum(p.amount_micro)::text as micro
               from public.ledger_postings p join public.ledger_accounts a on a.id = p.account_id
               join public.ledger_transactions t on t.id = p.transaction_id
               where a.user_id = $1 group by 1, 2`,
              mine,
            ),
            api_keys: await q.query(
              `select id, app_id, name, kind, environment, status, key_prefix, key_last4, created_at, last_used_at
               from public.api_keys where user_id = $1 order by created_at, id`,
              mine,
            ),
            // What of the daily stats the ledger has not posted (which, with the ledger, is the placements' totals).
            unpostedMicro: Number(
              (
                await q.query<{ micro: string }>(
                  `select coalesce(sum(s.revenue_micro - s.posted_micro), 0)::text as micro
                   from public.daily_stats s where s.user_id = $1`,
                  mine,
                )
              )[0]!.micro,
            ),
            placementsMicro: Number(
              (await q.query<{ micro: string }>('select sum(revenue_micro)::text as micro from public.placements where user_id = $1', mine))[0]!.micro,
            ),
            daily: await q.query(
              `select d.placement_id, p.app_id, d.day, d.impressions, d.clicks, d.revenue_micro
               from public.daily_stats d join public.placements p on p.id = d.placement_id
               where d.user_id = $1 and d.day > current_date - 90 order by d.day, d.placement_id`,
              mine,
            ),
          };
        });

      it('the lists aggregated in the database equal the rows read column by column, types and order included', async () => {
        for (const userId of [suite.users.demo, suite.users.demo2]) {
          const expected = await direct(userId);
          const r = reader(userId);
          const [profile, apps, earnings, keys, daily] = [
            await readAccount(probe.engine, r, 'profile'),
            await readAccount(probe.engine, r, 'apps'),
            await readAccount(probe.engine, r, 'earnings'),
            await readAccount(probe.engine, r, 'apiKeys'),
            await readAccount(probe.engine, r, 'daily'),
          ];
          expect(profile).toEqual(expected.profile);
          expect(apps).toEqual({ id: userId, apps: expected.apps, placements: expected.placements });
          const ledger = (account: string, kinds?: string[]) =>
            expected.ledger.filter((l) => l.account === account && (!kinds || kinds.includes(l.kind))).reduce((n, l) => n + Number(l.micro), 0);
          expect(earnings).toEqual({
            id: userId,
            placements: expected.placements,
            payouts: expected.payouts,
            method: expected.method,
            ad_revenue_micro: ledger('publisher', ['ad_spend', 'ad_revenue', 'adjustment']) + expected.unpostedMicro,
            data_revenue_micro: ledger('publisher', ['data_sale']),
            pending_micro: ledger('publisher') + expected.unpostedMicro,
            available_micro: ledger('publisher_available'),
          });
          expect(earnings.method).not.toBeNull();
          // The ledger and the days it has not posted add up to what the placements earned, to the micro-dollar.
          expect(earnings.ad_revenue_micro).toBe(expected.placementsMicro);
          expect(earnings.ad_revenue_micro).toBeGreaterThan(0);
          expect(keys).toEqual({ id: userId, api_keys: expected.api_keys });
          expect(daily).toEqual({ id: userId, daily: expected.daily });
          expect(daily.daily.length).toBeGreaterThan(0);
        }
      });

      it('timestamps are Dates and counters and money are numbers', async () => {
        const { apps, placements } = await readAccount(probe.engine, reader(suite.users.demo), 'apps');
        const { payouts } = await readAccount(probe.engine, reader(suite.users.demo), 'earnings');
        const { api_keys } = await readAccount(probe.engine, reader(suite.users.demo), 'apiKeys');
        expect(apps.length).toBeGreaterThan(0);
        for (const a of apps) expect(a.created_at).toBeInstanceOf(Date);
        for (const p of placements) {
          expect(p.created_at).toBeInstanceOf(Date);
          for (const n of [p.impressions, p.clicks, p.revenue_micro, p.ad_requests]) expect(typeof n).toBe('number');
        }
        // Some payouts are paid (paid_at set), some are not: both forms are exercised.
        expect(new Set(payouts.map((p) => p.paid_at === null))).toEqual(new Set([true, false]));
        for (const p of payouts) {
          expect(typeof p.amount_micro).toBe('number');
          expect(p.requested_at).toBeInstanceOf(Date);
          if (p.paid_at !== null) expect(p.paid_at).toBeInstanceOf(Date);
        }
        for (const k of api_keys) expect(k.created_at).toBeInstanceOf(Date);
      });

      it('money in micro-dollars keeps its value through the JSON aggregate', async () => {
        const { placements } = await readAccount(probe.engine, reader(suite.users.demo), 'apps');
        const [raw] = await rawAsService(suite.db, (q) =>
          q.query<{ revenue_micro: string }>('select revenue_micro::text from public.placements where id = $1', [placements[0]!.id]),
        );
        expect(placements[0]!.revenue_micro).toBe(Number(raw!.revenue_micro));
      });
    });

    describe('kept answers (AccountAnswers): answered again only while the database is unchanged', () => {
      const kept = (): AccountAnswers => new Lru('account', 100);
      const rename = (appId: string, name: string) =>
        rawAsService(suite.db, (q) => q.query('update public.apps set name = $2 where id = $1 returning id', [appId, name]));
      const firstApp = async () => (await readAccount(suite.db, reader(suite.users.demo), 'apps')).apps[0]!;

      it('the same answer while nothing is written, in one statement a time; a new one after any write', async () => {
        const answers = kept();
        const before = probe.transactions.length;
        const first = await readAccount(probe.engine, reader(suite.users.demo), 'apps', answers);
        const second = await readAccount(probe.engine, reader(suite.users.demo), 'apps', answers);
        expect(second).toBe(first); // the kept row itself: the read function did not run again
        // Each read is still one message: the claims, then one statement carrying the snapshot it knows.
        const sent = probe.transactions.slice(before);
        expect(sent.map((t) => t.length)).toEqual([2, 2]);
        expect(sent[0]![1]).toBe(toLiteral(accountStatement('apps', '')));
        expect(sent[1]![1]).toMatch(/pg_current_snapshot\(\)::text = E'\d+:\d+:[\d,]*'/);

        // A write to a table this read never touches moves the snapshot too: read again, in full.
        await rawAsService(suite.db, (q) => q.query('update public.pricing_settings set updated_at = updated_at returning 1 as one'));
        const third = await readAccount(probe.engine, reader(suite.users.demo), 'apps', answers);
        expect(third).not.toBe(first);
        expect(third).toEqual(first);

        // A write to what it shows: the new name, never the kept one.
        const app = await firstApp();
        await rename(app.id, 'Renamed while kept');
        try {
          const fourth = await readAccount(probe.engine, reader(suite.users.demo), 'apps', answers);
          expect(fourth.apps.find((a) => a.id === app.id)!.name).toBe('Renamed while kept');
        } finally {
          await rename(app.id, app.name);
        }
        expect((await readAccount(probe.engine, reader(suite.users.demo), 'apps', answers)).apps.find((a) => a.id === app.id)!.name).toBe(app.name);
      });

      it('each caller, read and set of claims is kept apart', async () => {
        const answers = kept();
        const demo = await readAccount(suite.db, reader(suite.users.demo), 'apps', answers);
        const other = await readAccount(suite.db, reader(suite.users.demo2), 'apps', answers);
        expect(other.id).toBe(suite.users.demo2);
        expect(other.apps.map((a) => a.id)).not.toEqual(demo.apps.map((a) => a.id));
        const narrower = await readAccount(suite.db, { ...reader(suite.users.demo), scopes: ['apps:read'] }, 'apps', answers);
        expect(narrower).not.toBe(demo);
        const profile = await readAccount(suite.db, reader(suite.users.demo), 'profile', answers);
        expect(profile.id).toBe(suite.users.demo);
        expect(answers.size).toBe(4);
        // Reads that depend on the clock are never kept.
        await readAccount(suite.db, reader(suite.users.demo), 'daily', answers);
        await readAccount(suite.db, reader(suite.users.demo), 'licenses', answers);
        expect(answers.size).toBe(4);
      });

      it('a user deleted after an answer was kept is account_unavailable, not the kept answer', async () => {
        const answers = kept();
        const [user] = await rawAsService(suite.db, (q) =>
          q.query<{ id: string }>("insert into public.users (email, name) values ($1, 'Kept then gone') returning id", [`kept-${Date.now()}@reads.test`]),
        );
        expect((await readAccount(suite.db, reader(user!.id), 'profile', answers)).id).toBe(user!.id);
        await rawAsService(suite.db, (q) => q.query('delete from public.users where id = $1 returning id', [user!.id]));
        await expect(readAccount(suite.db, reader(user!.id), 'profile', answers)).rejects.toMatchObject({ code: 'account_unavailable' });
      });

      if (engine.name === 'postgres') {
        it('a write that was running when an answer was kept, and commits after, is seen on the next read', async () => {
          const answers = kept();
          const app = await firstApp();
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          let began!: () => void;
          const running = new Promise<void>((resolve) => (began = resolve));
          // Another connection renames the app and holds its transaction open.
          const writer = rawAsService(suite.db, async (q) => {
            await q.query('update public.apps set name = $2 where id = $1 returning id', [app.id, 'Committed later']);
            began();
            await held;
          });
          await running;
          const during = await readAccount(suite.db, reader(suite.users.demo), 'apps', answers);
          expect(during.apps.find((a) => a.id === app.id)!.name).toBe(app.name);
          release();
          await writer;
          try {
            const after = await readAccount(suite.db, reader(suite.users.demo), 'apps', answers);
            expect(after.apps.find((a) => a.id === app.id)!.name).toBe('Committed later');
          } finally {
            await rename(app.id, app.name);
          }
        });
      }

      it('only reads whose functions, the functions they call and the policies of the tables they read use no clock and no randomness are kept', async () => {
        const CLOCK =
          /\b(now|clock_timestamp|statement_timestamp|transaction_timestamp|timeofday|random|gen_random_uuid)\s*\(|\b(current_date|current_time|current_timestamp|localtime|localtimestamp)\b/i;
        const [{ functions, policies }] = await rawAsService(suite.db, async (q) => [
          {
            functions: new Map(
              (
                await q.query<{ name: string; body: string }>("select proname as name, prosrc as body from pg_proc where pronamespace = 'public'::regnamespace")
              ).map((f) => [f.name, f.body]),
            ),
            policies: await q.query<{ tablename: string; text: string }>(
              "select tablename, coalesce(qual, '') || ' ' || coalesce(with_check, '') as text from pg_policies where schemaname = 'public'",
            ),
          },
        ]);
        /** What the function `name` reaches: its text, the functions it calls, and the policies of the tables it names. */
        const reach = (name: string, seen = new Set<string>()): string[] => {
          if (seen.has(name)) return [];
          seen.add(name);
          const body = functions.get(name)!;
          const named = [...body.matchAll(/public\.([a-z_]+)/g)].map((m) => m[1]!);
          return [
            body,
            ...named.filter((n) => functions.has(n)).flatMap((n) => reach(n, seen)),
            ...policies.filter((p) => named.includes(p.tablename)).map((p) => p.text),
          ];
        };
        const usesClock = (read: AccountRead) => reach(/public\.([a-z_]+)\(/.exec(textOf(ACCOUNT_READS[read].call))![1]!).some((text) => CLOCK.test(text));
        const reads = Object.keys(ACCOUNT_READS) as AccountRead[];
        expect(reads.filter((read) => ACCOUNT_READS[read].timeless).filter(usesClock)).toEqual([]);
        // And the check sees the clock where it is: the reads left out use it.
        expect(reads.filter((read) => !ACCOUNT_READS[read].timeless).filter((read) => !usesClock(read))).toEqual([]);
      });
    });

    describe('failures', () => {
      it('a privilege the schema forgot to grant is a 500 internal_error, logged under the request id, and only that read fails', async () => {
        const token = await accessToken(suite.users.demo);
        const earningsRoute = route('/api/v1/me/earnings');
        const logged = vi.spyOn(log, 'error');
        // A real error of the engine (SQLSTATE 42501, permission denied) on the earnings read: a
        // bug of our schema, not an unavailable database, so not "authorize again".
        await suite.db.exec('revoke select on public.payouts from authenticated');
        try {
          const { res, body, text } = await get(earningsRoute.GET, earningsRoute.path, token);
          expect(res.status).toBe(500);
          expect(body).toEqual({ error: { status: 500, code: 'internal_error', message: expect.stringMatching(/request id/) } });
          expect(text).not.toMatch(/permission|payouts|42501/);
          const requestId = /request id ([^)\s]+)/.exec((body as { error: { message: string } }).error.message)?.[1];
          expect(requestId).toBeTruthy();
          expect(res.headers.get('x-request-id')).toBe(requestId);
          expect(logged).toHaveBeenCalledWith(
            'unhandled error in route',
            expect.objectContaining({ request_id: requestId, reason: expect.stringContaining('permission denied') }),
          );
          expect(logged).not.toHaveBeenCalledWith('account read failed', expect.anything());
          for (const r of ACCOUNT_ROUTES.filter((r) => r !== earningsRoute)) expect((await get(r.GET, r.path, token)).res.status, r.path).toBe(200);
        } finally {
          await suite.db.exec('grant select on public.payouts to authenticated');
        }
        expect((await get(earningsRoute.GET, earningsRoute.path, token)).res.status).toBe(200);
      });

      // PostgreSQL only: PGlite runs one transaction at a time, so a read there would wait for
      // the lock's holder instead of timing out.
      if (engine.name === 'postgres')
        it('a lock the read cannot get in time (55P03, the database is busy) is the 502 account_unavailable', async () => {
          const token = await accessToken(suite.users.demo);
          const earningsRoute = route('/api/v1/me/earnings');
          const keysRoute = route('/api/v1/me/api-keys');
          const logged = vi.spyOn(log, 'error');
          let locked!: () => void;
          let release!: () => void;
          const isLocked = new Promise<void>((resolve) => (locked = resolve));
          const released = new Promise<void>((resolve) => (release = resolve));
          const holding = suite.db.transaction(async (tx) => {
            await tx.exec('lock table public.payouts in access exclusive mode');
            locked();
            await released;
          });
          await isLocked;
          // The reads wait at most 50 ms for a lock, as a server configured with lock_timeout would:
          // the setting opens every transaction, whether run in turn or sent as one script.
          const lockTimeout = "select set_config('lock_timeout', '50ms', true)";
          const impatient: Engine = derivedEngine(suite.db, {
            transaction: (fn) =>
              suite.db.transaction(async (tx) => {
                await tx.query(lockTimeout);
                return fn(tx);
              }),
            script: async (statements, options) => (await suite.db.script([lockTimeout, ...statements], options)).slice(1),
          });
          setTestServices({ ...services, database: () => Promise.resolve(impatient) });
          // An answer kept from an earlier test would still be true (a lock writes nothing, so the
          // snapshot is the same) and be answered without touching the table: none is kept here.
          services.caches.accountAnswers.clear();
          try {
            const { res, body, text } = await get(earningsRoute.GET, earningsRoute.path, token);
            expect(res.status).toBe(502);
            expect(body).toEqual({ error: { status: 502, code: 'account_unavailable', message: expect.stringContaining('retry after') } });
            expect(res.headers.get('retry-after')).toBe('5');
            expect(text).not.toMatch(/lock|payouts|55P03/);
            expect(logged).toHaveBeenCalledWith('account read failed', expect.objectContaining({ user_id: suite.users.demo, read: 'earnings' }));
            // A read that does not touch the locked table is not held up.
            expect((await get(keysRoute.GET, keysRoute.path, token)).res.status).toBe(200);
          } finally {
            setTestServices(services);
            release();
            await holding;
          }
          expect((await get(earningsRoute.GET, earningsRoute.path, token)).res.status).toBe(200);
        });

      it('a bug in the view code is a 500 internal_error that does not show the cause, which is logged', async () => {
        const token = await accessToken(suite.users.demo);
        const appsRoute = ACCOUNT_ROUTES[1]!;
        const secret = 'Cannot read properties of undefined (reading "view-bug-4711")';
        vi.spyOn(views, 'appsView').mockImplementation(() => {
          throw new TypeError(secret);
        });
        const logged = vi.spyOn(log, 'error');
        const { res, body, text } = await get(appsRoute.GET, appsRoute.path, token);
        expect(res.status).toBe(500);
        expect(body).toEqual({ error: { status: 500, code: 'internal_error', message: expect.stringMatching(/request id/) } });
        expect(text).not.toContain('view-bug-4711');
        // Logged as what it is, under the request id, and not as an unavailable database.
        const calls = JSON.stringify(logged.mock.calls);
        expect(calls).toContain('view-bug-4711');
        expect(logged).not.toHaveBeenCalledWith('account read failed', expect.anything());
        const requestId = /request id ([^)\s]+)/.exec((body as { error: { message: string } }).error.message)?.[1];
        expect(requestId).toBeTruthy();
        expect(calls).toContain(requestId);
      });

      /** No trace of the other publisher: neither their id nor their email. */
      const showsNoOtherProfile = (text: string) => {
        expect(text).not.toContain(suite.users.demo2);
        expect(text).not.toContain('demo2@example.com');
      };

      /** Every account route answers a broken policy as a 500 that shows nothing of it, logged as a bug with `reason`. */
      const everyRouteHidesTheBug = async (token: string, logged: MockInstance, reason: RegExp) => {
        for (const r of ACCOUNT_ROUTES) {
          logged.mockClear();
          const { res, body, text } = await get(r.GET, r.path, token);
          expect(res.status, r.path).toBe(500);
          expect(body, r.path).toEqual({ error: { status: 500, code: 'internal_error', message: expect.stringMatching(/request id/) } });
          showsNoOtherProfile(text);
          expect(logged).toHaveBeenCalledWith('unhandled error in route', expect.objectContaining({ reason: expect.stringMatching(reason) }));
          expect(logged).not.toHaveBeenCalledWith('account read failed', expect.anything());
        }
      };

      it('a policy that lets other profiles through is a 500 that shows none of them', async () => {
        const token = await accessToken(suite.users.demo);
        const logged = vi.spyOn(log, 'error');
        await suite.db.exec(`create policy "Everyone can read every profile" on public.users for select to authenticated using (true)`);
        try {
          // Every read function sees both profiles and refuses to pick one: cardinality_violation
          // (SQLSTATE 21000), an error of our schema, not of an unavailable database.
          for (const read of Object.keys(ACCOUNT_READS) as AccountRead[]) {
            const failure = await readAccount(probe.engine, reader(suite.users.demo), read).then(
              () => undefined,
              (err: unknown) => err,
            );
            expect(failure, read).toMatchObject({ code: '21000' });
            expect(isDatabaseError(failure), read).toBe(false);
          }
          await everyRouteHidesTheBug(token, logged, /more than one row/);
        } finally {
          await suite.db.exec(`drop policy "Everyone can read every profile" on public.users`);
        }
        expect((await get(ACCOUNT_ROUTES[0]!.GET, ACCOUNT_ROUTES[0]!.path, token)).res.status).toBe(200);
      });

      it("a policy that shows another profile instead of the caller's is a 500 that shows none of it", async () => {
        const token = await accessToken(suite.users.demo);
        const logged = vi.spyOn(log, 'error');
        // Every publisher's profile but the caller's own: exactly one, the other publisher's, reaches the read.
        await suite.db.exec(`create policy "Everyone can read every profile" on public.users for select to authenticated using (true)`);
        await suite.db.exec(
          `create policy "Nobody can read their own profile" on public.users as restrictive for select to authenticated
             using (id is distinct from auth.uid() and email like 'demo%')`,
        );
        try {
          await everyRouteHidesTheBug(token, logged, /row-level security let another profile through/);
        } finally {
          await suite.db.exec(`drop policy "Nobody can read their own profile" on public.users`);
          await suite.db.exec(`drop policy "Everyone can read every profile" on public.users`);
        }
        expect((await get(ACCOUNT_ROUTES[0]!.GET, ACCOUNT_ROUTES[0]!.path, token)).res.status).toBe(200);
      });

      it('a bug reaches the caller of the account operation unchanged (REST, MCP and batch alike), logged as nothing else', async () => {
        const logged = vi.spyOn(log, 'error');
        vi.spyOn(views, 'apiKeysView').mockImplementation(() => {
          throw new RangeError('view-bug-0815');
        });
        await expect(listApiKeys(accountSource(principal(suite.users.demo), database, Date.now), 'all')).rejects.toThrow(RangeError);
        expect(logged).not.toHaveBeenCalled();
      });

      it('a bug reached through an MCP tool is logged with its cause, and the tool answers only the generic message', async () => {
        const logged = vi.spyOn(log, 'error');
        vi.spyOn(views, 'apiKeysView').mockImplementation(() => {
          throw new RangeError('view-bug-0816');
        });
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        const server = accountServer(principal(suite.users.demo), database);
        const client = new Client({ name: 'account-reads-test', version: '1.0.0' });
        await server.connect(serverSide);
        await client.connect(clientSide);
        try {
          const result = await client.callTool({ name: 'list_my_api_keys', arguments: {} });
          expect(result.isError).toBe(true);
          expect(result.content).toEqual([{ type: 'text', text: 'The account could not be read; try again, or authorize again if it persists.' }]);
          expect(logged).toHaveBeenCalledWith(expect.any(String), expect.objectContaining({ error: 'RangeError', reason: 'view-bug-0816' }));
          expect(logged).not.toHaveBeenCalledWith('account read failed', expect.anything());
        } finally {
          await client.close();
          await server.close();
        }
      });
    });
  });
}
