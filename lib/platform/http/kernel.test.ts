import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { RouteDeclaration } from '../../schemas/registry';
import { ApiError, OAuthError, OriginRefused } from './errors';
import { bound, makeServices, testServices, setTestServices } from '../../../tests/helpers/services';
import { defineRoute as define } from '../../routes/kernel';
import type { Services } from '../../services';
import { newRequestId } from './exchange';
import { createKernel, declarationOf, routeOf, json, jsonText, API_VERSION, type Handlers, type JsonReply, type RouteOptions } from './kernel';
import { MemoryRateLimiter, type RateLimiter } from './rate-limit';

const ctx = { params: Promise.resolve({}) };

/** A route whose handlers run with the test's services (and their rate limiter). */
function defineRoute<R extends RouteDeclaration>(declaration: R, handlers: Handlers<R, Services>, options?: RouteOptions) {
  return Object.assign(bound(define(declaration, handlers, options)), { declaration });
}

function useRateLimiter(limiter: RateLimiter | undefined): void {
  setTestServices(limiter ? makeServices({ rateLimiter: limiter }) : undefined);
}
const get = (url: string, headers: Record<string, string> = {}) => new Request(`http://localhost${url}`, { headers });
const post = (url: string, body: string, contentType = 'application/json') =>
  new Request(`http://localhost${url}`, { method: 'POST', body, headers: { 'content-type': contentType } });

/** A route of the API surface; tests override what they need. */
const API = { errors: 'api', rateLimit: false, cors: 'none', apiVersion: false } as const satisfies Omit<RouteDeclaration, 'path' | 'methods'>;
const NONE = { kind: 'none' } as const;

const route = defineRoute(
  {
    ...API,
    path: '/x',
    rateLimit: true,
    cors: 'public',
    apiVersion: true,
    methods: {
      GET: {
        credential: NONE,
        query: z.object({ limit: z.coerce.number().int().min(1).max(20).default(5), q: z.string().min(1).optional() }),
        cache: 'public, max-age=60',
      },
      POST: { credential: NONE, body: z.object({ name: z.string().min(1) }) },
    },
  },
  {
    GET: ({ query }) => json({ limit: query.limit, q: query.q ?? null }),
    POST: ({ body }) => json({ hello: body.name }, { status: 201 }),
  },
);

const oauthRoute = defineRoute(
  { ...API, path: '/t', errors: 'oauth', methods: { POST: { credential: NONE, bodyType: 'form', body: z.object({ grant_type: z.string() }) } } },
  {
    POST: ({ body }) => {
      if (body.grant_type === 'boom') throw new Error('database password is hunter2');
      if (body.grant_type === 'down') throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' });
      throw new OAuthError('unsupported_grant_type', 'Only authorization_code is supported.');
    },
  },
);

const failing = defineRoute(
  { ...API, path: '/boom', methods: { GET: { credential: NONE } } },
  {
    GET: () => {
      throw new Error('connection to 10.0.0.5 refused: secret detail');
    },
  },
);

beforeEach(() => {
  useRateLimiter(new MemoryRateLimiter({ max: 1000, windowSeconds: 60 }));
});
afterEach(() => useRateLimiter(undefined));

describe('route kernel', () => {
  it('marks every handler it makes with the route it belongs to, bound to services or not', () => {
    const made = define(route.declaration, { GET: () => json({}), POST: () => json({}) });
    const rebound = made.with(makeServices());
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      expect(declarationOf(made[m])?.path).toBe('/x');
      expect(routeOf(rebound[m])?.declaration).toBe(route.declaration);
    }
    expect(declarationOf(() => new Response())).toBeUndefined();
  });

  it('runs a handler with the services it is bound to', async () => {
    const seen: unknown[] = [];
    const made = define({ ...API, path: '/s', methods: { GET: { credential: NONE } } }, { GET: ({ services }) => (seen.push(services), json({})) });
    const mine = makeServices();
    await made.with(mine).GET(get('/s'), ctx);
    await made.dispatch({ url: 'http://localhost/s', headers: new Headers(), clientIp: '198.51.100.1' }, mine);
    expect(seen).toEqual([mine, mine]);
  });

  it('answers a declared method with the common headers', async () => {
    const res = await route.GET(get('/x?limit=7'), ctx);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ limit: 7, q: null });
    expect(res.headers.get('API-Version')).toBe(API_VERSION);
    expect(res.headers.get('X-Request-Id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=60');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Access-Control-Expose-Headers')).toBe('*');
  });

  it('never lets a credentialed answer be cached', async () => {
    const res = await route.GET(get('/x', { authorization: 'Bearer abc' }), ctx);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('answers an undeclared method with 405, Allow and the envelope', async () => {
    const res = await route.DELETE(new Request('http://localhost/x', { method: 'DELETE' }), ctx);
    expect(res.status).toBe(405);
    expect(res.headers.get('Allow')).toBe('GET, POST, HEAD, OPTIONS');
    expect(await res.json()).toEqual({ error: { status: 405, code: 'method_not_allowed', message: expect.any(String) } });
  });

  it('answers HEAD like GET without a body, and OPTIONS as a CORS preflight', async () => {
    const head = await route.HEAD(new Request('http://localhost/x', { method: 'HEAD' }), ctx);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const options = await route.OPTIONS(new Request('http://localhost/x', { method: 'OPTIONS' }), ctx);
    expect(options.status).toBe(204);
    expect(options.headers.get('Access-Control-Allow-Methods')).toBe('GET, POST, HEAD, OPTIONS');
    expect(options.headers.get('Access-Control-Allow-Headers')).toContain('Authorization');
  });

  it.each([
    ['too big', '/x?limit=21', /limit/],
    ['too small', '/x?limit=0', /limit/],
    ['wrong type', '/x?limit=abc', /limit/],
    ['empty', '/x?q=', /q/],
    ['repeated', '/x?limit=2&limit=3', /give it once/],
  ])('answers an invalid query (%s) with 400 in the envelope', async (_, url, message) => {
    const res = await route.GET(get(url), ctx);
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body).toEqual({ error: { status: 400, code: 'invalid_request', message: expect.stringMatching(message) } });
  });

  it('decodes query parameters as a URL does (percent-encoding, plus as space)', async () => {
    const res = await route.GET(get('/x?q=caf%C3%A9+au+lait&limit=%32'), ctx);
    expect(await res.json()).toEqual({ limit: 2, q: 'café au lait' });
  });

  it('gives every request its own id', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newRequestId()));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('ignores unknown query parameters', async () => {
    const res = await route.GET(get('/x?limit=2&utm_source=a&utm_source=b'), ctx);
    expect(res.status).toBe(200);
  });

  it('validates JSON bodies: malformed, wrong media type, invalid, too large', async () => {
    expect((await route.POST(post('/x', '{"name":"Ada"}'), ctx)).status).toBe(201);
    const malformed = await route.POST(post('/x', '{"name":'), ctx);
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('invalid_request');
    const wrongType = await route.POST(post('/x', 'name=Ada', 'text/plain'), ctx);
    expect(wrongType.status).toBe(415);
    expect((await wrongType.json()).error.code).toBe('unsupported_media_type');
    const invalid = await route.POST(post('/x', '{"name":""}'), ctx);
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.message).toMatch(/name/);
    const huge = await route.POST(post('/x', JSON.stringify({ name: 'x'.repeat(70_000) })), ctx);
    expect(huge.status).toBe(413);
  });

  it('hides internals of unexpected errors behind a 500 with the request id', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await failing.GET(get('/boom'), ctx);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(text).not.toMatch(/10\.0\.0\.5|secret/);
    expect(JSON.parse(text).error.message).toContain(res.headers.get('X-Request-Id'));
    spy.mockRestore();
  });

  it('answers a failure of the database as 503 with Retry-After, in the shape of each surface, saying nothing internal', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const down = defineRoute(
      { ...API, path: '/down', methods: { GET: { credential: NONE } } },
      { GET: () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' })) },
    );
    const api = await down.GET(get('/down'), ctx);
    expect(api.status).toBe(503);
    expect(api.headers.get('Retry-After')).toBe('5');
    const apiText = await api.text();
    expect(JSON.parse(apiText)).toEqual({ error: { status: 503, code: 'unavailable', message: expect.any(String) } });
    const oauth = await oauthRoute.POST(post('/t', 'grant_type=down', 'application/x-www-form-urlencoded'), ctx);
    expect(oauth.status).toBe(503);
    expect(oauth.headers.get('Retry-After')).toBe('5');
    expect(oauth.headers.get('Cache-Control')).toBe('no-store');
    const oauthText = await oauth.text();
    expect(JSON.parse(oauthText)).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    expect(apiText + oauthText).not.toMatch(/10\.0\.0\.5|ECONNREFUSED/);
    spy.mockRestore();
  });

  it('speaks RFC 6749 on OAuth routes, also for validation and unexpected errors', async () => {
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const known = await oauthRoute.POST(post('/t', 'grant_type=password', 'application/x-www-form-urlencoded'), ctx);
    expect(known.status).toBe(400);
    expect(await known.json()).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
    const repeated = await oauthRoute.POST(post('/t', 'grant_type=a&grant_type=b', 'application/x-www-form-urlencoded'), ctx);
    expect(await repeated.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(/once/) });
    const boom = await oauthRoute.POST(post('/t', 'grant_type=boom', 'application/x-www-form-urlencoded'), ctx);
    expect(boom.status).toBe(500);
    const body = await boom.json();
    expect(body).toEqual({ error: 'server_error', error_description: expect.any(String) });
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect(boom.headers.get('Cache-Control')).toBe('no-store');
    spy.mockRestore();
  });

  it('rate limits with the documented headers and a 429 with Retry-After', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 3, windowSeconds: 60 }));
    const headers = { 'x-forwarded-for': '198.51.100.1' };
    for (let i = 0; i < 3; i++) expect((await route.GET(get('/x', headers), ctx)).status).toBe(200);
    const refused = await route.GET(get('/x', headers), ctx);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { status: 429, code: 'rate_limited', message: expect.any(String) } });
    expect(refused.headers.get('Retry-After')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('RateLimit-Policy')).toBe('"default";q=3;w=60');
    expect(refused.headers.get('RateLimit')).toMatch(/^"default";r=0;t=\d+$/);
    expect(refused.headers.get('X-RateLimit-Remaining')).toBe('0');
    // Another client has its own budget.
    expect((await route.GET(get('/x', { 'x-forwarded-for': '198.51.100.2' }), ctx)).status).toBe(200);
  });

  it('answers a preflight with the budget’s headers, and takes nothing from it', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 3, windowSeconds: 60 }));
    const headers = { 'x-forwarded-for': '198.51.100.3' };
    const preflight = () => route.OPTIONS(new Request('http://localhost/x', { method: 'OPTIONS', headers }), ctx);
    const fresh = await preflight();
    expect(fresh.status).toBe(204);
    expect(fresh.headers.get('RateLimit-Policy')).toBe('"default";q=3;w=60');
    expect(fresh.headers.get('X-RateLimit-Remaining')).toBe('3');
    expect((await route.GET(get('/x', headers), ctx)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await preflight()).headers.get('X-RateLimit-Remaining')).toBe('2');
    expect((await route.GET(get('/x', headers), ctx)).headers.get('X-RateLimit-Remaining')).toBe('1');
  });

  it('counts an IPv6 client by its /64: new addresses in one network share one budget', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 3, windowSeconds: 60 }));
    for (let i = 1; i <= 3; i++) expect((await route.GET(get('/x', { 'x-forwarded-for': `2001:db8:7:7::${i}` }), ctx)).status).toBe(200);
    expect((await route.GET(get('/x', { 'x-forwarded-for': '2001:db8:7:7:ffff:1:2:3' }), ctx)).status).toBe(429);
    expect((await route.GET(get('/x', { 'x-forwarded-for': '2001:db8:7:8::1' }), ctx)).status).toBe(200);
  });

  it('lets a handler charge more units (a batch pays per sub-request)', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 3, windowSeconds: 60 }));
    const batch = defineRoute(
      { ...API, path: '/b', rateLimit: true, methods: { POST: { credential: NONE, body: z.object({ n: z.number().int() }) } } },
      {
        POST: async ({ body, charge }) => {
          await charge(body.n - 1);
          return json({ ran: body.n });
        },
      },
    );
    const req = (n: number) => post('/b', JSON.stringify({ n }));
    expect((await batch.POST(req(3), ctx)).status).toBe(200);
    const refused = await batch.POST(req(1), ctx);
    expect(refused.status).toBe(429);
  });

  it('does not charge CORS preflights', async () => {
    for (let i = 0; i < 5; i++) await route.OPTIONS(new Request('http://localhost/x', { method: 'OPTIONS' }), ctx);
    expect((await route.GET(get('/x'), ctx)).status).toBe(200);
  });

  it('marks a deprecated route with Deprecation, Sunset and Link headers', async () => {
    const old = defineRoute(
      {
        ...API,
        path: '/old',
        deprecated: { since: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2026-06-01T00:00:00Z'), link: 'https://example.com/migrate' },
        methods: { GET: { credential: NONE } },
      },
      { GET: () => json({}) },
    );
    const res = await old.GET(get('/old'), ctx);
    expect(res.headers.get('Deprecation')).toBe('@1767225600');
    expect(res.headers.get('Sunset')).toBe('Mon, 01 Jun 2026 00:00:00 GMT');
    expect(res.headers.get('Link')).toBe('<https://example.com/migrate>; rel="deprecation"; type="text/html"');
  });

  it('sends a JSON answer as application/json, with the headers the handler gave it', async () => {
    const tagged = defineRoute(
      { ...API, path: '/t', cors: 'public', methods: { GET: { credential: NONE } } },
      { GET: () => jsonText('{"ok":true}', { headers: { 'Service-Sandbox': 'true' } }) },
    );
    const res = await tagged.GET(get('/t'), ctx);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('Service-Sandbox')).toBe('true');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(await res.json()).toEqual({ ok: true });
  });

  it("passes a handler's own Response through with its body, type and cache policy", async () => {
    const raw = defineRoute(
      { ...API, path: '/r', methods: { GET: { credential: NONE, cache: 'public, max-age=60' } } },
      { GET: () => new Response('# Title', { headers: { 'Content-Type': 'text/markdown', 'Cache-Control': 'public, max-age=5' } }) },
    );
    const res = await raw.GET(get('/r'), ctx);
    expect(res.headers.get('Content-Type')).toBe('text/markdown');
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=5');
    expect(res.headers.get('X-Request-Id')).toMatch(/^req_/);
    expect(await res.text()).toBe('# Title');
  });

  it("keeps the kernel's headers over a handler's, whatever case the handler wrote them in (but not its Cache-Control)", async () => {
    const options = await route.OPTIONS(new Request('http://localhost/x', { method: 'OPTIONS' }), ctx);
    expect(options.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(options.headers.get('Allow')).toBe('GET, POST, HEAD, OPTIONS');
    const cased = defineRoute(
      { ...API, path: '/c', cors: 'public', methods: { GET: { credential: NONE } } },
      { GET: () => json({}, { headers: { 'ACCESS-CONTROL-ALLOW-ORIGIN': 'https://evil.example', 'X-Request-Id': 'mine', 'CACHE-CONTROL': 'private' } }) },
    );
    const own = await cased.GET(get('/c'), ctx);
    // One value each, not the two merged ("https://evil.example, *").
    expect(own.headers.get('Access-Control-Allow-Origin')).toBe('*'); // the kernel's CORS stands
    expect(own.headers.get('X-Request-Id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(own.headers.get('Cache-Control')).toBe('private'); // the handler's cache policy stands
  });

  it('gives handlers a context they can destructure (url, charge, request id, client address)', async () => {
    const seen: string[] = [];
    const r = defineRoute(
      { ...API, path: '/p', rateLimit: true, methods: { GET: { credential: NONE } } },
      {
        GET: async ({ url, charge, requestId, clientIp }) => {
          await charge(1);
          seen.push(url.pathname, url.searchParams.get('a') ?? '', requestId.slice(0, 4), clientIp);
          return json({});
        },
      },
    );
    expect((await r.GET(get('/p?a=1', { 'x-forwarded-for': '198.51.100.7' }), ctx)).status).toBe(200);
    expect(seen).toEqual(['/p', '1', 'req_', '198.51.100.7']);
  });

  it('dispatches a sub-request in process without charging, giving the handler a real Request', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 1, windowSeconds: 60 }));
    const inner = defineRoute(
      {
        ...API,
        path: '/i',
        rateLimit: true,
        methods: { GET: { credential: { kind: 'optional-bearer', resource: 'api' }, query: z.object({ n: z.coerce.number().int() }) } },
      },
      // The handler may read anything of a Request: its signal, a clone, its headers.
      {
        GET: ({ query, request, clientIp }) =>
          json({ n: query.n, aborted: request.signal.aborted, cloned: request.clone().url, auth: request.headers.get('authorization'), clientIp }),
      },
    );
    const sub = (url: string, headers: Record<string, string> = {}) => ({ url, headers: new Headers(headers), clientIp: '198.51.100.9' });
    for (let i = 0; i < 3; i++) {
      const a = (await inner.dispatch(sub('http://localhost/i?n=4', { authorization: 'Bearer svc_sandbox' }), testServices())) as JsonReply;
      expect(a.status).toBe(200);
      expect(JSON.parse(a.text)).toEqual({ n: 4, aborted: false, cloned: 'http://localhost/i?n=4', auth: 'Bearer svc_sandbox', clientIp: '198.51.100.9' });
    }
    const refused = (await inner.dispatch(sub('http://localhost/i?n=4', { authorization: 'Basic x' }), testServices())) as JsonReply;
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text).error.code).toBe('invalid_token');
    const invalid = await inner.dispatch(sub('http://localhost/i?n=x'), testServices());
    expect(invalid.status).toBe(400);
    // The one unit of budget was not spent by any of them.
    expect((await route.GET(get('/x'), ctx)).status).toBe(200);
  });

  it('adds fields beside `error` when the route asks for them', async () => {
    const listed = defineRoute(
      { ...API, path: '/l', methods: { GET: { credential: { kind: 'optional-bearer', resource: 'api' } } } },
      { GET: () => json({}) },
      { errorExtra: (e) => (e.status === 401 ? { endpoints: ['/l'] } : undefined) },
    );
    const res = await listed.GET(get('/l', { authorization: 'Basic x' }), ctx);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ endpoints: ['/l'], error: { status: 401, code: 'invalid_token', message: expect.any(String) } });
  });
});

describe('CORS of the SDK surface (an app allows web origins)', () => {
  // A kernel whose key check is the SDK's rule alone (lib/identity/keys/directory.ts): the key `good` of an app
  // that allows https://app.example, the key `gone` revoked. The database-backed check is in
  // tests/integration/sdk-money.test.ts.
  const handled: string[] = [];
  const sdkKernel = createKernel<Services>({
    services: () => testServices(),
    corsRequestHeaders: 'X-Api-Key, Content-Type',
    checkCredential: async (_credential, request) => {
      const key = request.headers.get('x-api-key');
      if (key === 'gone') throw new ApiError('forbidden', 'This API key has been revoked: switch to another key.');
      if (key !== 'good') throw new ApiError('invalid_token', 'Unknown API key.');
      const origin = request.headers.get('origin');
      if (origin !== null && origin !== 'https://app.example') throw new OriginRefused(`The origin ${origin} is not allowed to use this app's keys.`);
      return { principal: { app: 'app_1' } };
    },
  });
  const ads = bound(
    sdkKernel(
      { ...API, path: '/ads', rateLimit: true, cors: 'sdk', apiVersion: true, methods: { GET: { credential: { kind: 'api-key' } } } },
      { GET: () => (handled.push('ads'), json({ ad: 'an ad' })) },
    ),
  );
  const call = (headers: Record<string, string>) => ads.GET(get('/ads', headers), ctx);

  it('lets an allowed page read the answer and every header', async () => {
    const res = await call({ 'x-api-key': 'good', origin: 'https://app.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://app.example');
    expect(res.headers.get('Access-Control-Expose-Headers')).toBe('*');
    expect(res.headers.get('Vary')).toBe('Origin');
  });

  it("lets a refused page read its refusal's code and message, and nothing else: no ad, no handler run, no other header exposed, no credentials", async () => {
    handled.length = 0;
    const res = await call({ 'x-api-key': 'good', origin: 'https://shop.example' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({
      error: { status: 403, code: 'forbidden', message: "The origin https://shop.example is not allowed to use this app's keys." },
    });
    expect(handled).toEqual([]);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://shop.example');
    expect(res.headers.get('Vary')).toBe('Origin');
    // Only the CORS-safelisted headers (Content-Type, Cache-Control) are readable by the page.
    expect(res.headers.get('Access-Control-Expose-Headers')).toBeNull();
    expect(res.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
  });

  it('lets any page read the refusal of a key (401, revoked 403) and a 429, as before, with its headers', async () => {
    for (const [key, status] of [
      ['nope', 401],
      ['gone', 403],
    ] as const) {
      const res = await call({ 'x-api-key': key, origin: 'https://shop.example' });
      expect(res.status).toBe(status);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('https://shop.example');
      expect(res.headers.get('Access-Control-Expose-Headers')).toBe('*');
    }
    useRateLimiter(new MemoryRateLimiter({ max: 1, windowSeconds: 60 }));
    await call({ 'x-api-key': 'good' });
    const limited = await call({ 'x-api-key': 'good', origin: 'https://shop.example' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Access-Control-Allow-Origin')).toBe('https://shop.example');
    expect(limited.headers.get('Access-Control-Expose-Headers')).toBe('*');
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/);
  });

  it('answers a request without Origin (a server) with `*`, and a preflight from any page, refused or not, before any key is checked', async () => {
    const server = await call({ 'x-api-key': 'good' });
    expect(server.status).toBe(200);
    expect(server.headers.get('Access-Control-Allow-Origin')).toBe('*');
    for (const origin of ['https://app.example', 'https://shop.example']) {
      const preflight = await ads.OPTIONS(
        new Request('http://localhost/ads', {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
        }),
        ctx,
      );
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe(origin);
      expect(preflight.headers.get('Access-Control-Allow-Headers')).toBe('X-Api-Key, Content-Type');
      expect(preflight.headers.get('Access-Control-Allow-Methods')).toBe('GET, HEAD, OPTIONS');
      expect(preflight.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    }
  });
});
