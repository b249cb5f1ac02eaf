import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { FETCHES_OVERALL, FETCHES_PER_ADDRESS, MetadataFetchBudget } from '@/lib/identity/oauth/client-lookup';
import { openPgliteCopy } from '../helpers/db';
import { authorizeParams } from '../helpers/oauth';
import { handlersOf } from '../helpers/routes';
import { makeServices } from '../helpers/services';

/**
 * /oauth/authorize under a flood: it counts against each address's rate limit, and the client
 * metadata documents it fetches for URL-shaped client_ids are budgeted per address and per
 * instance, with failures remembered briefly, so a flood of made-up client_ids cannot make this
 * server fetch without end (or slow everything else down while it does).
 */

let server: Server;
let origin = '';
let hits = 0;
const saved = { ...process.env };

const open = (services: ReturnType<typeof makeServices>, clientId: string, ip: string) =>
  handlersOf('/oauth/authorize', services).GET(
    new Request(`http://localhost:3000/oauth/authorize?${authorizeParams(clientId).toString()}`, { headers: { 'x-forwarded-for': ip } }),
    { params: Promise.resolve({}) },
  );

describe('/oauth/authorize under a flood', () => {
  let db: Engine;
  beforeAll(async () => {
    // Every document fails: the fetches are what is counted.
    server = createServer((_req, res) => {
      hits++;
      res.writeHead(500).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    db = await openPgliteCopy();
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await db.close();
  });
  beforeEach(() => {
    process.env.OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS = '1';
    resetEnv();
    hits = 0;
  });
  afterEach(() => {
    process.env = { ...saved };
    resetEnv();
  });

  it('counts against the address budget: past it, 429 with Retry-After, and nothing is looked up', async () => {
    const services = makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 3, windowSeconds: 60 }) });
    for (let i = 0; i < 3; i++) expect((await open(services, 'mcl_AAAAAAAAAAAAAAAAAAAAAA', '192.0.2.130')).status).toBe(400);
    const refused = await open(services, `${origin}/flood.json`, '192.0.2.130');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(hits).toBe(0);
  });

  it('fetches one bad client_id once, however often it is asked for', async () => {
    const services = makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 1000, windowSeconds: 60 }) });
    for (let i = 0; i < 20; i++) expect((await open(services, `${origin}/same.json`, '192.0.2.131')).status).toBe(400);
    expect(hits).toBe(1);
  });

  it(`fetches at most ${FETCHES_PER_ADDRESS} documents a minute for one address; the next is 429 "try again", without a fetch`, async () => {
    const services = makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 1000, windowSeconds: 60 }) });
    for (let i = 0; i < FETCHES_PER_ADDRESS; i++) expect((await open(services, `${origin}/a-${i}.json`, '192.0.2.132')).status).toBe(400);
    expect(hits).toBe(FETCHES_PER_ADDRESS);
    const busy = await open(services, `${origin}/a-next.json`, '192.0.2.132');
    expect(busy.status).toBe(429);
    expect(await busy.text()).toContain('Try again in a minute');
    expect(hits).toBe(FETCHES_PER_ADDRESS);
    // Another address still has its own.
    expect((await open(services, `${origin}/b-0.json`, '192.0.2.133')).status).toBe(400);
    expect(hits).toBe(FETCHES_PER_ADDRESS + 1);
  });

  it('answers a busy budget at the token endpoint as 503 temporarily_unavailable, without a fetch', async () => {
    const services = makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 1000, windowSeconds: 60 }) });
    for (let i = 0; i < FETCHES_PER_ADDRESS; i++) services.metadataFetches.take('192.0.2.134');
    const res = await handlersOf('/oauth/token', services).POST(
      new Request('http://localhost:3000/oauth/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.134' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          client_id: `${origin}/token.json`,
          code: 'x',
          redirect_uri: 'http://127.0.0.1:8765/callback',
          code_verifier: 'x'.repeat(43),
        }).toString(),
      }),
      { params: Promise.resolve({}) },
    );
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(hits).toBe(0);
  });
});

describe('MetadataFetchBudget', () => {
  it(`allows ${FETCHES_PER_ADDRESS} fetches per address and ${FETCHES_OVERALL} overall a minute, and a refusal takes nothing`, () => {
    let now = 0;
    const budget = new MetadataFetchBudget(() => now);
    let granted = 0;
    for (let address = 0; address < 20; address++) {
      for (let i = 0; i < FETCHES_PER_ADDRESS + 2; i++) if (budget.take(`198.51.100.${address}`)) granted++;
    }
    expect(granted).toBe(FETCHES_OVERALL);
    // The instance's budget is spent: a fresh address is refused too, and then, a minute later, not.
    expect(budget.take('203.0.113.1')).toBe(false);
    now += 60_000;
    expect(budget.take('203.0.113.1')).toBe(true);
  });
});
