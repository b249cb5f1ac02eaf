import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicEndpoints, sdkEndpoints } from '@/lib/routes/api';
import { indexBody } from '@/lib/schemas/api';
import { allPages } from '@/lib/docs/content/pages';
import type { Engine } from '@/lib/platform/db/engine';
import { env } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { pagesBody } from '@/lib/schemas/pages';
import { AUDIENCES, pricingBody, type Audience } from '@/lib/schemas/pricing';
import { searchBody } from '@/lib/schemas/search';
import { searchPages } from '@/lib/docs/search/engine';
import { openPgliteCopy } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * Every parameter of every public endpoint, as content/docs/rest-api.md and rate-limits.md state:
 * bounds, defaults, wrong types, repeats and empties, each row asserting the exact status, the
 * body (parsed with the documented schema, or the exact 400 envelope) and the common headers.
 */

type Handlers = Record<'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', (req: Request, ctx: { params: Promise<Record<string, never>> }) => Promise<Response>>;

const indexHandlers: Handlers = handlersOf('/api/v1');
const openApiHandlers: Handlers = handlersOf('/api/v1/openapi.json');
const pagesHandlers: Handlers = handlersOf('/api/v1/pages');
const pricingHandlers: Handlers = handlersOf('/api/v1/pricing');
const searchHandlers: Handlers = handlersOf('/api/v1/search');

const ctx = () => ({ params: Promise.resolve({}) });
const base = () => env().PUBLIC_BASE_URL;
const RATE_LIMIT_MAX = 100_000;

function call(handlers: Handlers, path: string, query = '', init: { method?: keyof Handlers; headers?: Record<string, string> } = {}) {
  const method = init.method ?? 'GET';
  const url = `http://localhost${path}${query ? `?${query}` : ''}`;
  return handlers[method](new Request(url, { method, headers: { 'x-forwarded-for': '192.0.2.44', ...init.headers } }), ctx());
}

/** The headers every REST answer carries (content/docs/rest-api.md, content/docs/rate-limits.md). */
function expectCommonHeaders(res: Response, cacheControl: string) {
  expect(res.headers.get('API-Version')).toBe('1');
  expect(res.headers.get('X-Request-Id')).toMatch(/^req_[0-9a-f]{32}$/);
  expect(res.headers.get('RateLimit-Policy')).toBe(`"default";q=${RATE_LIMIT_MAX};w=60`);
  expect(res.headers.get('RateLimit')).toMatch(/^"default";r=\d+;t=\d+$/);
  expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
  expect(res.headers.get('Cache-Control')).toBe(cacheControl);
}

/** A 400 is exactly the envelope, and its message names the parameter at fault. */
async function expectBadRequest(res: Response, param: string) {
  expect(res.status).toBe(400);
  expectCommonHeaders(res, 'no-store');
  expect(await res.json()).toEqual({
    error: { status: 400, code: 'invalid_request', message: expect.stringMatching(new RegExp(`\\b${param}\\b`)) },
  });
}

// A 200-character query made of real words, so it also finds something.
const Q200 = 'payout '.repeat(29).slice(0, 200);
const Q201 = `${Q200}x`;

let db: Engine;
beforeAll(async () => {
  db = await openPgliteCopy();
  // Fresh services: their own pricing cache (nothing remembered from another suite) and rate limit.
  setTestServices(makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: RATE_LIMIT_MAX, windowSeconds: 60 }) }));
});
afterAll(async () => {
  setTestServices(undefined);
  await db?.close();
});

/** A second-page cursor from a real first call. */
async function nextCursor(handlers: Handlers, path: string, query: string): Promise<string> {
  const body = await (await call(handlers, path, query)).json();
  expect(body.pagination.has_more, `${path}?${query} has a second page`).toBe(true);
  return body.pagination.next_cursor as string;
}

describe('GET /api/v1/search', () => {
  const search = searchHandlers;

  /** What a 200 must say for query `q` at `limit` from `offset`. */
  const expectPage =
    (q: string, limit: number, offset = 0) =>
    (raw: unknown) => {
      const body = searchBody.parse(raw);
      const hits = searchPages(q);
      const expected = hits.slice(offset, offset + limit);
      expect(body.query).toBe(q);
      expect(body.count).toBe(hits.length);
      expect(body.pagination.limit).toBe(limit);
      expect(body.results.length).toBeLessThanOrEqual(limit);
      expect(body.results.map((r) => r.url)).toEqual(expected.map((h) => `${base()}${h.path}`));
      expect(body.pagination.has_more).toBe(offset + limit < hits.length);
      expect(body.pagination.next_cursor === null).toBe(!body.pagination.has_more);
    };

  type Row = { name: string; query: string | (() => Promise<string>); param?: string; check?: (body: unknown) => void };
  const ok: Row[] = [
    { name: 'q at the minimum length (1 character)', query: 'q=p', check: expectPage('p', 5) },
    { name: 'q at exactly 200 characters', query: `q=${encodeURIComponent(Q200)}`, check: expectPage(Q200, 5) },
    { name: 'limit at the minimum (1)', query: 'q=api&limit=1', check: expectPage('api', 1) },
    { name: 'limit at the maximum (20)', query: 'q=api&limit=20', check: expectPage('api', 20) },
    { name: 'limit omitted: the default 5 is applied', query: 'q=api', check: expectPage('api', 5) },
    {
      name: 'cursor from the previous page',
      query: async () => `q=api&limit=2&cursor=${await nextCursor(search, '/api/v1/search', 'q=api&limit=2')}`,
      check: expectPage('api', 2, 2),
    },
    { name: 'an unknown parameter is ignored', query: 'q=api&foo=bar', check: expectPage('api', 5) },
    { name: 'an unknown parameter given twice is ignored', query: 'q=api&foo=1&foo=2&sort=desc', check: expectPage('api', 5) },
  ];
  const bad: Row[] = [
    { name: 'q omitted', query: 'limit=5', param: 'q' },
    { name: 'q empty', query: 'q=', param: 'q' },
    { name: 'q whitespace only', query: 'q=%20%20%09', param: 'q' },
    { name: 'q at 201 characters', query: `q=${encodeURIComponent(Q201)}`, param: 'q' },
    { name: 'q repeated', query: 'q=api&q=token', param: 'q' },
    { name: 'limit below the minimum (0)', query: 'q=api&limit=0', param: 'limit' },
    { name: 'limit negative (-1)', query: 'q=api&limit=-1', param: 'limit' },
    { name: 'limit above the maximum (21)', query: 'q=api&limit=21', param: 'limit' },
    { name: 'limit not a number (abc)', query: 'q=api&limit=abc', param: 'limit' },
    { name: 'limit a fraction (5.5)', query: 'q=api&limit=5.5', param: 'limit' },
    { name: 'limit in exponent notation (1e1)', query: 'q=api&limit=1e1', param: 'limit' },
    { name: 'limit in hex (0x10)', query: 'q=api&limit=0x10', param: 'limit' },
    { name: 'limit with a leading space', query: 'q=api&limit=%205', param: 'limit' },
    { name: 'limit empty', query: 'q=api&limit=', param: 'limit' },
    { name: 'limit repeated', query: 'q=api&limit=2&limit=3', param: 'limit' },
    { name: 'cursor empty', query: 'q=api&cursor=', param: 'cursor' },
    { name: 'cursor garbage', query: 'q=api&cursor=not-a-cursor', param: 'cursor' },
    { name: 'cursor longer than 512 characters', query: `q=api&cursor=${'a'.repeat(513)}`, param: 'cursor' },
    {
      name: 'cursor repeated',
      query: async () => {
        const c = await nextCursor(search, '/api/v1/search', 'q=api&limit=2');
        return `q=api&limit=2&cursor=${c}&cursor=${c}`;
      },
      param: 'cursor',
    },
  ];

  it.each(ok)('200 for $name', async ({ query, check }) => {
    const res = await call(search, '/api/v1/search', typeof query === 'string' ? query : await query());
    expect(res.status).toBe(200);
    expectCommonHeaders(res, 'public, max-age=300');
    check!(await res.json());
  });

  it.each(bad)('400 for $name, naming `$param`', async ({ query, param }) => {
    await expectBadRequest(await call(search, '/api/v1/search', typeof query === 'string' ? query : await query()), param!);
  });

  it('answers a credentialed request with Cache-Control: no-store', async () => {
    const res = await call(search, '/api/v1/search', 'q=api', { headers: { Authorization: 'Bearer x' } });
    expect(res.status).toBe(200);
    expectCommonHeaders(res, 'no-store');
  });
});

describe('GET /api/v1/pricing', () => {
  const pricing = pricingHandlers;
  const OPTIONAL: Record<Audience, string[]> = {
    all: ['advertiser_cpm_usd', 'dataset_prices_usd', 'exclusive_license_multiplier', 'min_payout_usd'],
    publisher: ['min_payout_usd'],
    advertiser: ['advertiser_cpm_usd'],
    data_buyer: ['dataset_prices_usd', 'exclusive_license_multiplier'],
  };
  const ALL_OPTIONAL = OPTIONAL.all;

  const expectPricing = (audience: Audience) => (raw: unknown) => {
    const body = pricingBody.parse(raw);
    expect(body.currency).toBe('USD');
    expect(body.live).toBe(true);
    expect(body.markdown).toBe(`${base()}/pricing.md`);
    const present = ALL_OPTIONAL.filter((f) => f in body);
    expect(present.sort()).toEqual([...OPTIONAL[audience]].sort());
  };

  const ok = [
    ...AUDIENCES.map((a) => ({ name: `audience=${a}`, query: `audience=${a}`, check: expectPricing(a) })),
    { name: 'audience omitted: the default all is applied', query: '', check: expectPricing('all') },
    { name: 'an unknown parameter is ignored', query: 'audience=publisher&currency=EUR', check: expectPricing('publisher') },
  ];
  const bad = [
    { name: 'audience unknown (everyone)', query: 'audience=everyone' },
    { name: 'audience in another case (ALL)', query: 'audience=ALL' },
    { name: 'audience with a trailing space', query: 'audience=all%20' },
    { name: 'audience empty', query: 'audience=' },
    { name: 'audience repeated', query: 'audience=all&audience=publisher' },
    { name: 'audience repeated with the same value', query: 'audience=all&audience=all' },
  ];

  it.each(ok)('200 for $name', async ({ query, check }) => {
    const res = await call(pricing, '/api/v1/pricing', query);
    expect(res.status).toBe(200);
    expectCommonHeaders(res, 'public, max-age=60');
    check(await res.json());
  });

  it.each(bad)('400 for $name, naming `audience`', async ({ query }) => {
    await expectBadRequest(await call(pricing, '/api/v1/pricing', query), 'audience');
  });
});

describe('GET /api/v1/pages', () => {
  const pages = pagesHandlers;

  const expectPage =
    (limit: number, offset = 0) =>
    (raw: unknown) => {
      const body = pagesBody.parse(raw);
      const all = allPages();
      const expected = all.slice(offset, offset + limit);
      expect(body.total).toBe(all.length);
      expect(body.count).toBe(expected.length);
      expect(body.pages.map((p) => p.path)).toEqual(expected.map((p) => p.path));
      expect(body.pagination.limit).toBe(limit);
      expect(body.pages.length).toBeLessThanOrEqual(limit);
      expect(body.pagination.has_more).toBe(offset + limit < all.length);
      expect(body.pagination.next_cursor === null).toBe(!body.pagination.has_more);
    };

  type Row = { name: string; query: string | (() => Promise<string>); param?: string; check?: (body: unknown) => void };
  const ok: Row[] = [
    { name: 'limit at the minimum (1)', query: 'limit=1', check: expectPage(1) },
    { name: 'limit at the maximum (100)', query: 'limit=100', check: expectPage(100) },
    { name: 'limit omitted: the default 50 is applied', query: '', check: expectPage(50) },
    {
      name: 'cursor from the previous page',
      query: async () => `limit=3&cursor=${await nextCursor(pages, '/api/v1/pages', 'limit=3')}`,
      check: expectPage(3, 3),
    },
    { name: 'an unknown parameter is ignored', query: 'limit=2&q=api&page=2', check: expectPage(2) },
  ];
  const bad: Row[] = [
    { name: 'limit below the minimum (0)', query: 'limit=0', param: 'limit' },
    { name: 'limit negative (-1)', query: 'limit=-1', param: 'limit' },
    { name: 'limit above the maximum (101)', query: 'limit=101', param: 'limit' },
    { name: 'limit not a number (abc)', query: 'limit=abc', param: 'limit' },
    { name: 'limit a fraction (5.5)', query: 'limit=5.5', param: 'limit' },
    { name: 'limit in exponent notation (1e1)', query: 'limit=1e1', param: 'limit' },
    { name: 'limit in hex (0x10)', query: 'limit=0x10', param: 'limit' },
    { name: 'limit empty', query: 'limit=', param: 'limit' },
    { name: 'limit repeated', query: 'limit=2&limit=3', param: 'limit' },
    { name: 'cursor empty', query: 'cursor=', param: 'cursor' },
    { name: 'cursor garbage', query: 'cursor=abc.def', param: 'cursor' },
    { name: 'cursor longer than 512 characters', query: `cursor=${'a'.repeat(513)}`, param: 'cursor' },
    {
      name: 'cursor repeated',
      query: async () => {
        const c = await nextCursor(pages, '/api/v1/pages', 'limit=3');
        return `limit=3&cursor=${c}&cursor=${c}`;
      },
      param: 'cursor',
    },
  ];

  it.each(ok)('200 for $name', async ({ query, check }) => {
    const res = await call(pages, '/api/v1/pages', typeof query === 'string' ? query : await query());
    expect(res.status).toBe(200);
    expectCommonHeaders(res, 'public, max-age=300');
    check!(await res.json());
  });

  it.each(bad)('400 for $name, naming `$param`', async ({ query, param }) => {
    await expectBadRequest(await call(pages, '/api/v1/pages', typeof query === 'string' ? query : await query()), param!);
  });
});

describe('GET /api/v1', () => {
  const index = indexHandlers;

  const expectIndex = (raw: unknown) => {
    const body = indexBody.parse(raw);
    expect(body).not.toHaveProperty('token');
    expect(body).not.toHaveProperty('error');
    expect(body.version).toBe('1');
    expect(body.openapi).toBe(`${base()}/api/v1/openapi.json`);
    expect(body.auth).toBe(`${base()}/.well-known/oauth-authorization-server`);
    expect(body.public_endpoints).toEqual(publicEndpoints());
    expect(body.public_endpoints.map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /api/v1',
      'GET /api/v1/search',
      'GET /api/v1/pricing',
      'GET /api/v1/pages',
      'GET /api/v1/openapi.json',
      'POST /api/v1/batch',
    ]);
    expect(body.public_endpoints.find((e) => e.path === '/api/v1/search')?.description).toBe('Search the docs and product pages (q, limit, cursor).');
    expect(body.account_endpoints.map((e) => e.path)).toEqual([
      '/api/v1/me',
      '/api/v1/me/apps',
      '/api/v1/me/earnings',
      '/api/v1/me/earnings/daily',
      '/api/v1/me/api-keys',
      '/api/v1/me/campaigns',
      '/api/v1/me/licenses',
    ]);
    expect(body.account_endpoints.find((e) => e.path === '/api/v1/me/campaigns')?.scope).toBe('campaigns:read');
    expect(body.account_endpoints.find((e) => e.path === '/api/v1/me/licenses')?.scope).toBe('licenses:read');
    expect(body.sdk_endpoints).toEqual(sdkEndpoints());
    expect(body.sdk_endpoints.map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /functions/v1/validate-key',
      'GET /functions/v1/ads',
      'POST /functions/v1/ads',
      'POST /functions/v1/events',
      'POST /functions/v1/conversions',
      'POST /functions/v1/conversions/tag',
      'GET /functions/v1/conversions/tag',
      'GET /functions/v1/click',
      'GET /functions/v1/consents',
      'POST /functions/v1/consents',
      'DELETE /functions/v1/consents',
      'POST /functions/v1/data',
    ]);
    expect(body.sdk_endpoints[0]).toEqual({
      method: 'GET',
      path: '/functions/v1/validate-key',
      description: 'Check an API key, and see which app it belongs to.',
    });
  };

  it.each([
    { name: 'no parameters', query: '' },
    { name: 'an unknown parameter is ignored', query: 'foo=bar' },
    { name: 'parameters of other endpoints are ignored, even invalid or repeated', query: 'limit=abc&limit=2&q=&cursor=' },
  ])('200 without a token for $name: no `token`, no `error`', async ({ query }) => {
    const res = await call(index, '/api/v1', query);
    expect(res.status).toBe(200);
    expectCommonHeaders(res, 'public, max-age=300');
    expectIndex(await res.json());
  });

  it.each(['Bearer x', 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', 'Bearer svc_not_a_token'])(
    '401 invalid_token for Authorization: %s, still listing the public endpoints',
    async (authorization) => {
      const res = await call(index, '/api/v1', '', { headers: { Authorization: authorization } });
      expect(res.status).toBe(401);
      expectCommonHeaders(res, 'no-store');
      const challenge = res.headers.get('WWW-Authenticate') ?? '';
      expect(challenge.startsWith('Bearer ')).toBe(true);
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`resource_metadata="${base()}/.well-known/oauth-protected-resource/api/v1"`);
      const body = indexBody.required({ error: true }).parse(await res.json());
      expect(body.error).toEqual({ status: 401, code: 'invalid_token', message: expect.any(String) });
      expect(body.error.message.length).toBeGreaterThan(0);
      expect(body.public_endpoints.length).toBeGreaterThan(0);
      expect(body.public_endpoints).toEqual(publicEndpoints());
      expect(body).not.toHaveProperty('token');
    },
  );
});

describe('methods other than GET on the public endpoints', () => {
  const endpoints: [string, Handlers][] = [
    ['/api/v1', indexHandlers],
    ['/api/v1/search', searchHandlers],
    ['/api/v1/pricing', pricingHandlers],
    ['/api/v1/pages', pagesHandlers],
    ['/api/v1/openapi.json', openApiHandlers],
  ];
  const rows = endpoints.flatMap(([path, handlers]) => (['POST', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({ path, handlers, method })));

  it.each(rows)('$method $path → 405 method_not_allowed with Allow', async ({ path, handlers, method }) => {
    const res = await call(handlers, path, '', { method });
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('GET, HEAD, OPTIONS');
    expectCommonHeaders(res, 'no-store');
    expect(await res.json()).toEqual({ error: { status: 405, code: 'method_not_allowed', message: expect.stringContaining(method) } });
  });
});
