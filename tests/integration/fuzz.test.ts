// First: the request scope of Next's route handlers (it sets up AsyncLocalStorage before Next loads).
import { callRoute, nextRequest } from '../fuzz/next-scope';
import { beforeAll, describe, expect, it } from 'vitest';
import { nextConfig } from '@/next.config';
import { sessionCookieName } from '@/lib/identity/auth/options';
import { archiveApp, createApp, createPlacement, revokeApiKey } from '@/lib/publisher/writes';
import { allPages } from '@/lib/docs/content/pages';
import { env } from '@/lib/platform/env';
import type { HttpMethod } from '@/lib/platform/http/declaration';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { consentToken } from '@/lib/identity/oauth/consent';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import { ROUTES } from '@/lib/schemas/registry';
import type { Services } from '@/lib/services';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { approve, authorizeParams, CHALLENGE, publicClient, registerClient, sessionCookie, VERIFIER } from '../helpers/oauth';
import { handlersOf, ROUTE_FILES, type TestHandler } from '../helpers/routes';
import { makeServices } from '../helpers/services';
import { newKey } from '../helpers/sdk';
import { accessToken, expiredToken, foreignSignedToken, otherIssuerToken } from '../helpers/tokens';
import { describeRequest, generateRequest, targetsOf, type Fixtures, type FuzzRequest, type Plan } from '../fuzz/generate';
import { judge } from '../fuzz/oracle';
import { formatSeed, parseSeed } from '../fuzz/rng';
import { Router, routingConfig, type Routed } from '../fuzz/route-path';
import Stripe from 'stripe';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalStorage, newObjectKey } from '@/lib/platform/storage';
import { saveBuyerProfile } from '@/lib/data/buyers/account';
import { buyLicense } from '@/lib/data/buyers/catalog';
import { downloadLink, licenseExport } from '@/lib/data/buyers/downloads';
import { runExports } from '@/lib/data/buyers/export-job';
import { catalogFilter } from '@/lib/data/buyers/schemas';
import { runAs } from '../helpers/roles';
import { requestTopUp } from '@/lib/money/funds';
import { micro } from '@/lib/platform/kit/micro';
import { clickIdKey, signClickId } from '@/lib/ads/conversions/click-id';
import { conversionTag, createConversionKey } from '@/lib/ads/conversions/keys';

/** A 1×1 PNG. */
const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const FUZZ_WEBHOOK_SECRET = 'whsec_fuzz';
const FUZZ_CRON_SECRET = 'fuzz-cron-secret-0123456789abcdef0123456789';

/**
 * The team's fuzzer: seeded, bounded requests over every route and every method of the registry
 * (and the catch-all routes of unknown paths), sent in process through the route files' handlers
 * and the kernel, as Next would call them after scripts/serve.mjs normalized the path. The
 * oracle (tests/fuzz/oracle.ts): no 5xx, no hang, the documented error shapes, the REST headers.
 *
 *   FUZZ_SEED=0x1234abcd      the seed (decimal or hex); a fixed one by default
 *   FUZZ_REQUESTS=20000       how many requests; 3000 by default (about 4 s on 2 slow cores, 10 s loaded)
 *   FUZZ_ONLY=812,1045        only these indices of the seed's sequence (to replay a failure)
 *   FUZZ_VERBOSE=1            also print the answers per route, method and status
 *
 * It prints one line: the seed, the requests generated and sent, the answers per status class,
 * unexpected 5xx. A failure prints the seed, the failing requests as sent, and the line to replay
 * them. Some requests never reach a route handler, as in production: Next answers a path segment
 * that does not percent-decode itself (next-400), and a path no route file has is a site page.
 * What the Fetch API cannot express is left out: a body on GET or HEAD, a Content-Length smaller
 * than the body, methods outside HTTP_METHODS, header bytes Node's parser refuses.
 */

const DEFAULT_SEED = 0x6d6f6e65;
const DEFAULT_REQUESTS = 3000;
const SEED = parseSeed(process.env.FUZZ_SEED, DEFAULT_SEED);
const REQUESTS = Number(process.env.FUZZ_REQUESTS || DEFAULT_REQUESTS);
const ONLY = (process.env.FUZZ_ONLY ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean)
  .map(Number);
/** A request whose answer (body included) has not settled by then hangs. */
const TIMEOUT_MS = 5_000;
const CONCURRENCY = 4;
/** One in ten random requests runs under the documented default budget, from one address, so it runs out. */
const DEFAULT_BUDGET_SHARE = 0.1;
const DEFAULT_BUDGET_IP = '203.0.113.9';
const REDIRECT = 'http://127.0.0.1:8765/callback';

if (!Number.isSafeInteger(REQUESTS) || REQUESTS < 1) throw new Error(`FUZZ_REQUESTS must be a positive integer, not ${process.env.FUZZ_REQUESTS}`);
if (ONLY.some((i) => !Number.isSafeInteger(i) || i < 0)) throw new Error(`FUZZ_ONLY must list request indices, not ${process.env.FUZZ_ONLY}`);

interface Outcome {
  request: FuzzRequest;
  routed: Routed;
  status?: number;
  ms?: number;
  problems: string[];
  documented5xx?: boolean;
  body?: string;
}

/** The route files' handlers, bound to one set of services. */
function handlerTable(services: Services): Map<string, Record<HttpMethod, TestHandler>> {
  return new Map(ROUTE_FILES.map((f) => [f.path, handlersOf(f.path as keyof typeof ROUTES, services)]));
}

async function settle<T>(work: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

for (const engine of testEngines()) {
  describe(`the fuzzer on ${engine.name}`, () => {
    // The suite's own services lift the rate limit (the "high" budget); `standard` has the documented default.
    const suite = suiteDatabase(engine, { unlimited: true });
    let fixtures: Fixtures;
    let standard: Services;
    /** The suite's database without a rate limit, configured as `standard` is (Stripe, storage). */
    let high: Services;
    let router: Router;

    beforeAll(async () => {
      const { db, users } = suite;
      const origin = env().PUBLIC_BASE_URL;
      standard = makeServices({
        database: db,
        rateLimiter: new MemoryRateLimiter({ max: env().RATE_LIMIT_MAX, windowSeconds: env().RATE_LIMIT_WINDOW_S }),
        // Stripe configured (its webhook verifies signatures without calling Stripe).
        stripe: { client: new Stripe('sk_test_fuzz'), webhookSecret: FUZZ_WEBHOOK_SECRET },
        // Scheduled calls turned on (the scheduler's call runs the data buyers' background work).
        cronSecret: FUZZ_CRON_SECRET,
        // Uploaded media in a folder of this run's own.
        storage: new LocalStorage(await mkdtemp(path.join(os.tmpdir(), 'fuzz-storage-'))),
      });
      high = makeServices({ database: db, rateLimiter: UNLIMITED(), stripe: standard.stripe, storage: standard.storage, cronSecret: FUZZ_CRON_SECRET });
      const mediaKey = newObjectKey('png');
      await standard.storage.put(mediaKey, Buffer.from(TINY_PNG, 'base64'), 'image/png');
      router = new Router(
        ROUTE_FILES.map((f) => f.path),
        await routingConfig(nextConfig),
      );
      const call = async (path: keyof typeof ROUTES, method: HttpMethod, target: string, headers: Record<string, string>, body?: unknown) => {
        const res = await handlersOf(path, suite.services)[method](
          new Request(`${origin}${target}`, {
            method,
            headers: { 'x-forwarded-for': '192.0.2.200', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          }),
          { params: Promise.resolve({}) },
        );
        return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as Record<string, unknown>) };
      };

      // An app of the demo publisher's with one placement per format, its keys, and keys that must be refused.
      const app = await createApp(db, users.demo, { name: 'Fuzz app', slug: `fuzz-${Date.now()}`, description: '', category: [], allowed_origins: [] });
      if (!app.ok) throw new Error(app.error);
      const placements: string[] = [];
      for (const format of ['floating_video', 'tooltip', 'sponsored_card', 'inline_text'] as const) {
        const made = await createPlacement(db, users.demo, { app_id: app.value.id, name: `${format} slot`, format });
        if (!made.ok) throw new Error(made.error);
        placements.push(made.value.id);
      }
      const keys = [
        (await newKey(db, users.demo, { appId: app.value.id })).key,
        (await newKey(db, users.demo, { appId: app.value.id, environment: 'development' })).key,
      ];
      const revoked = await newKey(db, users.demo, { appId: app.value.id, name: 'Revoked' });
      if (!(await revokeApiKey(db, users.demo, revoked.id)).ok) throw new Error('could not revoke');
      const archivedApp = await createApp(db, users.demo, {
        name: 'Fuzz archived',
        slug: `fuzz-arch-${Date.now()}`,
        description: '',
        category: [],
        allowed_origins: [],
      });
      if (!archivedApp.ok) throw new Error(archivedApp.error);
      const archived = await newKey(db, users.demo, { appId: archivedApp.value.id });
      if (!(await archiveApp(db, users.demo, archivedApp.value.id)).ok) throw new Error('could not archive');
      const allowed = 'https://allowed.example';
      const originApp = await createApp(db, users.demo, {
        name: 'Fuzz origin',
        slug: `fuzz-origin-${Date.now()}`,
        description: '',
        category: [],
        allowed_origins: [allowed],
      });
      if (!originApp.ok) throw new Error(originApp.error);
      const originKey = await newKey(db, users.demo, { appId: originApp.value.id });

      const decisionTokens: string[] = [];
      for (let round = 0; round < 3; round++) {
        for (const placement of placements) {
          const ad = await call('/functions/v1/ads', 'GET', `/functions/v1/ads?placement_id=${placement}&session_id=fuzz-setup-${round}`, {
            'x-api-key': keys[0]!,
          });
          if (ad.status === 200) decisionTokens.push(String(ad.body!.token));
        }
      }
      if (decisionTokens.length === 0) throw new Error('no ad filled: the fuzzer needs decision tokens');
      // Conversions: a conversions key and the tag of the first ad's advertiser, and click ids of the ads served.
      const clickKey = clickIdKey(await standard.sdkSecret());
      const clickIds = decisionTokens.map((token) => signClickId(clickKey, token.split('.')[0]!));
      const [advertiserRow] = await db.query<{ advertiser_id: string }>(
        'select c.advertiser_id from public.ad_decisions d join public.campaigns c on c.id = d.campaign_id where d.id = $1',
        [decisionTokens[0]!.split('.')[0]],
      );
      const conversionKey = await createConversionKey(db, advertiserRow!.advertiser_id, 'Fuzz');
      if (!conversionKey.ok) throw new Error(conversionKey.error);
      const tag = await conversionTag(db, advertiserRow!.advertiser_id);
      if (!tag) throw new Error('no conversion tag');
      const consentedSubjects = ['a', 'b'].map((c) => c.repeat(64));
      const withdrawnSubject = 'c'.repeat(64);
      const consentProofs: Record<string, string> = {};
      for (const subject of [...consentedSubjects, withdrawnSubject]) {
        const made = await call(
          '/functions/v1/consents',
          'POST',
          '/functions/v1/consents',
          { 'x-api-key': keys[0]! },
          { subject_id: subject, purposes: ['ai_interactions', 'ux_sessions'], policy_version: 'v1' },
        );
        if (made.status !== 200) throw new Error(`consent answered ${made.status}`);
        consentProofs[subject] = String(made.body!.consent_proof);
      }
      // The demo publisher as a data buyer too, with a license of one record exported, and links to download its files.
      const record = await call(
        '/functions/v1/data',
        'POST',
        '/functions/v1/data',
        { 'x-api-key': keys[0]!, 'x-consent-proof': consentProofs[consentedSubjects[0]!]! },
        { subject_id: consentedSubjects[0], kind: 'ai_interaction', records: [{ id: 'fuzz-record', data: { prompt: 'A question', response: 'An answer' } }] },
      );
      if (record.status !== 200) throw new Error(`data answered ${record.status}`);
      await saveBuyerProfile(db, users.demo, {
        company: 'Fuzz Data',
        intended_use: 'Fuzzing the downloads.',
        billing_email: 'fuzz@example.com',
        country: 'US',
        accept_terms: true,
      });
      const topUp = await requestTopUp(db, users.demo, micro(50_000_000), 'buyer');
      if (!topUp.ok) throw new Error(topUp.error);
      const [operator] = await db.query<{ id: string }>("select id from public.users where email = 'operator@example.com'");
      await runAs(db, 'authenticated', { sub: operator!.id, aal: 'aal2' }, (q) =>
        q.query("select public.staff_top_up_record($1, true, 'FUZZ')", [topUp.value.id]),
      );
      const license = await buyLicense(db, users.demo, {
        listing: 'ai_interactions',
        filter: catalogFilter.parse({}),
        quantity: 1,
        exclusive: false,
        maxPriceMicro: 1_000_000,
      });
      if (!license.ok) throw new Error(license.error);
      const exportSecret = await standard.exportSecret();
      await runExports(db, standard.storage, exportSecret);
      const exported = await licenseExport(db, users.demo, license.value.license_id);
      if (exported?.status !== 'done') throw new Error('the fuzzer needs an export');
      const downloads = (['parquet', 'jsonl'] as const).map((format) =>
        downloadLink(exportSecret, { exportId: exported.id, format, userId: users.demo }, Date.now()),
      );
      const foreignPlacements = (
        await db.query<{ id: string }>('select p.id from public.placements p join public.apps a on a.id = p.app_id where a.user_id = $1', [users.demo2])
      ).map((r) => r.id);
      const demoApps = (await db.query<{ id: string }>('select id from public.apps where user_id = $1', [users.demo])).map((r) => r.id);
      const demoPlacements = (
        await db.query<{ id: string }>('select p.id from public.placements p join public.apps a on a.id = p.app_id where a.user_id = $1', [users.demo])
      ).map((r) => r.id);

      const pages = await call('/api/v1/pages', 'GET', '/api/v1/pages?limit=1', {});
      const search = await call('/api/v1/search', 'GET', '/api/v1/search?q=api&limit=1', {});
      const cursorOf = (r: { body: Record<string, unknown> | null }) => String((r.body!.pagination as { next_cursor: string }).next_cursor);

      const identity = await call('/agent/identity', 'POST', '/agent/identity', {}, { type: 'anonymous' });
      const publicClientId = await publicClient([REDIRECT], 'Fuzz public');
      const confidential = (
        await registerClient({ client_name: 'Fuzz confidential', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' })
      ).body;
      const codes: string[] = [];
      for (const client of [publicClientId, publicClientId, confidential.client_id, confidential.client_id])
        codes.push((await approve(client, users.demo)).searchParams.get('code')!);
      const authorizeQuery = authorizeParams(publicClientId).toString();
      const { sessionSecret } = await requireOAuthSecrets(suite.services);

      fixtures = {
        origin,
        tokens: {
          sandbox: 'svc_sandbox',
          full: [await accessToken(users.demo), await accessToken(users.demo2)],
          apiOnly: await accessToken(users.demo, { resources: ['api'] }),
          mcpOnly: await accessToken(users.demo, { resources: ['mcp'] }),
          scoped: [await accessToken(users.demo, { scopes: ['profile:read'] }), await accessToken(users.demo, { scopes: ['apps:read', 'earnings:read'] })],
          expired: await expiredToken(users.demo),
          foreignSigned: await foreignSignedToken(users.demo),
          otherIssuer: await otherIssuerToken(users.demo),
          deletedUser: await accessToken('00000000-0000-4000-8000-00000000dead'),
          assertion: String(identity.body!.identity_assertion),
        },
        sdk: {
          keys,
          placements,
          foreignPlacements,
          revokedKey: revoked.key,
          archivedKey: archived.key,
          originKey: { key: originKey.key, origin: allowed },
          decisionTokens,
          consentedSubjects,
          withdrawnSubject,
          consentProofs,
        },
        conversions: { key: conversionKey.value.key, tag, clickIds },
        account: { appIds: demoApps, placementIds: demoPlacements },
        media: { keys: [mediaKey] },
        downloads: { links: downloads },
        cursors: { pages: { limit: 1, cursor: cursorOf(pages) }, search: { q: 'api', limit: 1, cursor: cursorOf(search) } },
        oauth: {
          publicClientId,
          confidentialClient: { id: confidential.client_id, secret: confidential.client_secret! },
          redirectUri: REDIRECT,
          verifier: VERIFIER,
          challenge: CHALLENGE,
          sessionCookieName: sessionCookieName(),
          sessionCookie: await sessionCookie(users.demo),
          authorizeQuery,
          csrf: consentToken(sessionSecret, users.demo, authorizeQuery),
          codes,
        },
        pages: allPages().map((p) => p.path),
        stripeSignature: (payload) => new Stripe('sk_test_fuzz').webhooks.generateTestHeaderString({ payload, secret: FUZZ_WEBHOOK_SECRET }),
        cronSecret: FUZZ_CRON_SECRET,
      };
    });

    it(`sends ${ONLY.length > 0 ? `requests ${ONLY.join(', ')}` : REQUESTS} generated requests: no 5xx, no hang, documented error shapes, REST headers`, async () => {
      const targets = targetsOf(ROUTES);
      const plan: Plan = { seed: SEED, targets, fixtures, defaultBudgetShare: DEFAULT_BUDGET_SHARE, defaultBudgetIp: DEFAULT_BUDGET_IP };
      if (ONLY.length === 0 && REQUESTS < targets.length) throw new Error(`FUZZ_REQUESTS must be at least ${targets.length}, one per route and method`);
      const indices = ONLY.length > 0 ? ONLY : Array.from({ length: REQUESTS }, (_, i) => i);
      const budgets = {
        high: { services: high, table: handlerTable(high) },
        default: { services: standard, table: handlerTable(standard) },
      };

      const send = async (request: FuzzRequest): Promise<Outcome> => {
        const headers = new Headers();
        for (const [name, value] of request.headers) headers.append(name, value);
        // scripts/serve.mjs appends the peer's address; the kernel trusts only that last entry.
        const forwarded = headers.get('x-forwarded-for');
        headers.set('x-forwarded-for', forwarded ? `${forwarded}, ${request.ip}` : request.ip);
        const routed = router.route(request.target, headers);
        if (routed.kind !== 'route') return { request, routed, problems: [] };
        const { services, table } = budgets[request.budget];
        const handler = table.get(routed.route)![request.method];
        const declaration = (ROUTES as Record<string, (typeof ROUTES)[keyof typeof ROUTES]>)[routed.route]!;
        const started = performance.now();
        const answered = await settle(
          (async () => {
            const res = await callRoute(
              routed.route,
              handler,
              nextRequest(`${fixtures.origin}${routed.target}`, { method: request.method, headers, body: request.body }),
              routed.params,
            );
            return { res, text: await res.text() };
          })(),
          TIMEOUT_MS,
        );
        const ms = performance.now() - started;
        if (!answered.done) return { request, routed, ms, problems: [`no answer within ${TIMEOUT_MS} ms (a hang)`] };
        const { res, text } = answered.value;
        const verdict = judge(
          {
            route: routed.route,
            declaration,
            method: request.method,
            headers,
            budget: services.rateLimiter.config,
            deletedUser: headers.get('authorization') === `Bearer ${fixtures.tokens.deletedUser}`,
            bodyBytes: request.body === undefined ? 0 : typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body.byteLength,
          },
          { status: res.status, headers: res.headers, body: text, at: Date.now() },
        );
        return { request, routed, status: res.status, ms, problems: verdict.problems, documented5xx: verdict.documented5xx, body: text };
      };

      const started = performance.now();
      const outcomes: Outcome[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < indices.length) {
            const index = indices[next++]!;
            let request: FuzzRequest = { index, intent: '?', tags: [], budget: 'high', ip: '', method: 'GET', target: '?', headers: [] };
            try {
              request = generateRequest(plan, index);
              outcomes.push(await send(request));
            } catch (err) {
              // The harness could not make or send it (a request the Fetch API cannot express): a generator bug, reported as such.
              outcomes.push({ request, routed: { kind: 'site', target: request.target }, problems: [`the harness could not make or send it: ${String(err)}`] });
            }
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;

      const answered = outcomes.filter((o) => o.status !== undefined);
      const classes: Record<string, number> = { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 };
      for (const o of answered) classes[`${Math.floor(o.status! / 100)}xx`]! += 1;
      const count = (p: (o: Outcome) => boolean) => outcomes.filter(p).length;
      const unexpected5xx = count((o) => (o.status ?? 0) >= 500 && !o.documented5xx);
      const hangs = count((o) => o.problems.some((p) => p.includes('a hang')));
      const failures = outcomes.filter((o) => o.problems.length > 0).sort((a, b) => a.request.index - b.request.index);
      const slowest = answered.reduce((m, o) => Math.max(m, o.ms!), 0);
      console.log(
        `fuzz[${engine.name}]: seed=${formatSeed(SEED)} requests=${outcomes.length} sent=${answered.length} ` +
          `2xx=${classes['2xx']} 3xx=${classes['3xx']} 4xx=${classes['4xx']} (429=${count((o) => o.status === 429)}) 5xx=${classes['5xx']} ` +
          `(documented 502=${count((o) => o.documented5xx === true)}) next-400=${count((o) => o.routed.kind === 'next')} site-pages=${count((o) => o.routed.kind === 'site' && o.problems.length === 0)} ` +
          `hangs=${hangs} unexpected 5xx = ${unexpected5xx} failures=${failures.length} slowest=${Math.round(slowest)}ms time=${seconds.toFixed(1)}s`,
      );
      if (process.env.FUZZ_VERBOSE) {
        // Answers per route, method and status, to see where the requests went.
        const table = new Map<string, number>();
        for (const o of answered) {
          const key = `${(o.routed as { route: string }).route} ${o.request.method} ${o.status}`;
          table.set(key, (table.get(key) ?? 0) + 1);
        }
        console.log(
          [...table]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([k, n]) => `${String(n).padStart(6)} ${k}`)
            .join('\n'),
        );
      }
      const report = failures
        .slice(0, 12)
        .map((o) =>
          [
            describeRequest(o.request),
            `→ ${o.routed.kind === 'route' ? `${o.routed.route} as ${o.routed.target.slice(0, 300)}` : o.routed.kind}: ${o.status ?? 'no answer'}`,
            ...o.problems.map((p) => `  ✗ ${p}`),
            ...(o.body ? [`  body: ${o.body.slice(0, 400)}`] : []),
          ].join('\n'),
        )
        .join('\n\n');
      if (failures.length > 0) {
        console.log(
          `fuzz[${engine.name}]: ${failures.length} failing requests (seed ${formatSeed(SEED)}); replay with ` +
            `FUZZ_SEED=${formatSeed(SEED)} FUZZ_ONLY=${failures
              .slice(0, 20)
              .map((o) => o.request.index)
              .join(',')} npx vitest run tests/integration/fuzz.test.ts\n\n${report}`,
        );
      }
      expect(failures.length, `seed ${formatSeed(SEED)}:\n${report}`).toBe(0);

      if (ONLY.length > 0) return;
      // Every route and every method was asked (the first requests are one per pair), and every
      // declared operation answered a success at least once, so the deep paths ran too.
      const asked = new Set(outcomes.filter((o) => o.request.index < targets.length).map((o) => o.request.intent));
      expect(targets.map((t) => `${t.method} ${t.route}`).filter((t) => !asked.has(t))).toEqual([]);
      const succeeded = new Set(
        answered.filter((o) => o.status! < 400 && o.routed.kind === 'route').map((o) => `${o.request.method} ${(o.routed as { route: string }).route}`),
      );
      // (HEAD of a GET that records something is refused by design: a link checker must not count.)
      const declared = targets
        .filter((t) => t.operation && t.method !== 'OPTIONS' && !(t.method === 'HEAD' && t.declaration.getRecords))
        .map((t) => `${t.method} ${t.route}`);
      expect(declared.filter((op) => !succeeded.has(op))).toEqual([]);
      // The default budget ran out at least once, so 429s were judged too.
      const limited = outcomes.filter(
        (o) =>
          o.request.budget === 'default' &&
          o.routed.kind === 'route' &&
          ROUTES[o.routed.route as keyof typeof ROUTES].rateLimit &&
          o.request.method !== 'OPTIONS',
      );
      if (limited.length > standard.rateLimiter.config.max) expect(count((o) => o.status === 429)).toBeGreaterThan(0);
    }, 300_000);
  });
}
