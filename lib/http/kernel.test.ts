import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ApiError, ERROR_CODES, OAuthError } from './errors';
import { defineRoute, internalGet, internalRoute, json, jsonText, method, isKernelHandler, newRequestId, API_VERSION, JsonAnswer } from './kernel';
import { MemoryRateLimiter, useRateLimiter } from './rate-limit';

const ctx = { params: Promise.resolve({}) };
const get = (url: string, headers: Record<string, string> = {}) => new Request(`http://localhost${url}`, { headers });
const post = (url: string, body: string, contentType = 'application/json') =>
  new Request(`http://localhost${url}`, { method: 'POST', body, headers: { 'content-type': contentType } });

const route = defineRoute({
  name: 'test',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    GET: method({
      query: z.object({ limit: z.coerce.number().int().min(1).max(20).default(5), q: z.string().min(1).optional() }),
      cache: 'public, max-age=60',
      handler: ({ query }) => json({ limit: query.limit, q: query.q ?? null }),
    }),
    POST: method({
      body: z.object({ name: z.string().min(1) }),
      handler: ({ body }) => json({ hello: body.name }, { status: 201 }),
    }),
  },
});

const oauthRoute = defineRoute({
  name: 'oauth-test',
  errors: 'oauth',
  methods: {
    POST: method({
      bodyType: 'form',
      body: z.object({ grant_type: z.string() }),
      handler: ({ body }) => {
        if (body.grant_type === 'boom') throw new Error('database password is hunter2');
        throw new OAuthError('unsupported_grant_type', 'Only authorization_code is supported.');
      },
    }),
  },
});

const failing = defineRoute({
  name: 'failing',
  methods: {
    GET: method({
      handler: () => {
        throw new Error('connection to 10.0.0.5 refused: secret detail');
      },
    }),
  },
});

beforeEach(() => {
  useRateLimiter(new MemoryRateLimiter({ max: 1000, windowSeconds: 60 }));
});
afterEach(() => useRateLimiter(undefined));

describe('route kernel', () => {
  it('brands every handler it makes, for every method', () => {
    for (const fn of Object.values(route)) expect(isKernelHandler(fn)).toBe(true);
    expect(isKernelHandler(() => new Response())).toBe(false);
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

  it('rate limits with the headers of DESIGN.md and a 429 with Retry-After', async () => {
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

  it('lets a handler charge more units (a batch pays per sub-request)', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 3, windowSeconds: 60 }));
    const batch = defineRoute({
      name: 'batch-like',
      rateLimit: true,
      methods: {
        POST: method({
          body: z.object({ n: z.number().int() }),
          handler: async ({ body, charge }) => {
            await charge(body.n - 1);
            return json({ ran: body.n });
          },
        }),
      },
    });
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
    const old = defineRoute({
      name: 'old',
      deprecated: { since: new Date('2026-01-01T00:00:00Z'), sunset: new Date('2026-06-01T00:00:00Z'), link: 'https://example.com/migrate' },
      methods: { GET: method({ handler: () => json({}) }) },
    });
    const res = await old.GET(get('/old'), ctx);
    expect(res.headers.get('Deprecation')).toBe('@1767225600');
    expect(res.headers.get('Sunset')).toBe('Mon, 01 Jun 2026 00:00:00 GMT');
    expect(res.headers.get('Link')).toBe('<https://example.com/migrate>; rel="deprecation"; type="text/html"');
  });

  it('sends a JSON answer as application/json, with headers the handler set on it afterwards', async () => {
    const tagged = defineRoute({
      name: 'tagged',
      cors: 'public',
      methods: {
        GET: method({
          handler: () => {
            const response = jsonText('{"ok":true}');
            response.headers.set('Service-Sandbox', 'true');
            return response;
          },
        }),
      },
    });
    const res = await tagged.GET(get('/t'), ctx);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('Service-Sandbox')).toBe('true');
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(await res.json()).toEqual({ ok: true });
  });

  it("passes a handler's own Response through with its body, type and cache policy", async () => {
    const raw = defineRoute({
      name: 'raw',
      methods: {
        GET: method({
          cache: 'public, max-age=60',
          handler: () => new Response('# Title', { headers: { 'Content-Type': 'text/markdown', 'Cache-Control': 'public, max-age=5' } }),
        }),
      },
    });
    const res = await raw.GET(get('/r'), ctx);
    expect(res.headers.get('Content-Type')).toBe('text/markdown');
    expect(res.headers.get('Cache-Control')).toBe('public, max-age=5');
    expect(res.headers.get('X-Request-Id')).toMatch(/^req_/);
    expect(await res.text()).toBe('# Title');
  });

  it('gives in-process callers the JSON text, status and headers of a JSON answer', () => {
    const a = json({ a: 1 }, { status: 201 });
    expect([a.jsonBody, a.status, a.hasHeaders()]).toEqual(['{"a":1}', 201, false]);
    const b = jsonText('[1]', { headers: { 'X-A': 'b' } });
    expect([b.jsonBody, b.status, b.headers.get('x-a')]).toEqual(['[1]', 200, 'b']);
  });

  it('sends each header once, whatever case the handler wrote its own in', async () => {
    const res = await route.GET(get('/x'), ctx);
    const names = [...res.headers.keys()];
    expect(new Set(names).size).toBe(names.length);
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    const options = await route.OPTIONS(new Request('http://localhost/x', { method: 'OPTIONS' }), ctx);
    expect(options.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(options.headers.get('Allow')).toBe('GET, POST, HEAD, OPTIONS');
    const cased = defineRoute({
      name: 'cased',
      cors: 'public',
      methods: { GET: method({ handler: () => json({}, { headers: { 'Access-Control-Allow-Origin': 'https://evil.example', 'CACHE-CONTROL': 'private' } }) }) },
    });
    const own = await cased.GET(get('/c'), ctx);
    expect(own.headers.get('Access-Control-Allow-Origin')).toBe('*'); // the kernel's CORS stands
    expect(own.headers.get('Cache-Control')).toBe('private'); // the handler's cache policy stands
  });

  it('answers at once, without a promise, when nothing had to wait', async () => {
    // Next passes no params to a route without dynamic segments.
    const res = route.GET(get('/x?limit=3'));
    expect(res).toBeInstanceOf(Response);
    expect(await (res as Response).json()).toEqual({ limit: 3, q: null });
    // A body must be read first: that answer comes later.
    expect(route.POST(post('/x', '{"name":"Ada"}'))).toBeInstanceOf(Promise);
  });

  it('gives handlers a context they can destructure (url, charge), parsed only when read', async () => {
    const seen: string[] = [];
    const r = defineRoute({
      name: 'ctx',
      rateLimit: true,
      methods: {
        GET: method({
          handler: async ({ url, charge, requestId, clientIp }) => {
            await charge(1);
            seen.push(url.pathname, url.searchParams.get('a') ?? '', requestId.slice(0, 4), clientIp);
            return json({});
          },
        }),
      },
    });
    expect((await r.GET(get('/p?a=1', { 'x-forwarded-for': '198.51.100.7' }), ctx)).status).toBe(200);
    expect(seen).toEqual(['/p', '1', 'req_', '198.51.100.7']);
  });

  it('validates a query string once and gives the same frozen value for it again', async () => {
    const values: unknown[] = [];
    const r = defineRoute({
      name: 'cached-query',
      methods: {
        GET: method({
          query: z.object({ n: z.coerce.number().int().max(5), tags: z.string().optional() }),
          handler: ({ query }) => {
            values.push(query);
            return json(query);
          },
        }),
      },
    });
    await r.GET(get('/q?n=2&tags=a'), ctx);
    const again = await r.GET(get('/q?n=2&tags=a'), ctx);
    expect(await again.json()).toEqual({ n: 2, tags: 'a' });
    expect(values[1]).toBe(values[0]);
    expect(Object.isFrozen(values[0])).toBe(true);
    // A refusal is never remembered as a value, and another string is validated on its own.
    expect((await r.GET(get('/q?n=9'), ctx)).status).toBe(400);
    expect((await r.GET(get('/q?n=9'), ctx)).status).toBe(400);
    expect((await r.GET(get('/q?n=2&n=2'), ctx)).status).toBe(400);
    expect(await (await r.GET(get('/q?n=3'), ctx)).json()).toEqual({ n: 3 });
  });

  it('dispatches in process without charging, answering as the handler did', async () => {
    useRateLimiter(new MemoryRateLimiter({ max: 1, windowSeconds: 60 }));
    const answer = internalRoute({
      name: 'internal',
      rateLimit: true,
      methods: {
        GET: method({
          query: z.object({ n: z.coerce.number().int() }),
          authorize: async (request) => {
            if (request.headers.get('authorization') !== 'Bearer ok') throw new ApiError('invalid_token', 'No.');
            return 'ok';
          },
          handler: ({ query, auth }) => json({ n: query.n, auth }),
        }),
      },
    });
    const ok = new Headers({ authorization: 'Bearer ok' });
    for (let i = 0; i < 3; i++) {
      const a = await answer(internalGet('http://localhost/i?n=4', ok));
      expect(a).toBeInstanceOf(JsonAnswer);
      expect(a.status).toBe(200);
      expect((a as JsonAnswer).jsonBody).toBe('{"n":4,"auth":"ok"}');
    }
    const refused = await answer(internalGet('http://localhost/i?n=4', new Headers()));
    expect(refused.status).toBe(401);
    expect(JSON.parse((refused as JsonAnswer).jsonBody).error.code).toBe('invalid_token');
    const invalid = await answer(internalGet('http://localhost/i?n=x', ok));
    expect(invalid.status).toBe(400);
    // The one unit of budget was not spent by any of them.
    expect((await route.GET(get('/x'), ctx)).status).toBe(200);
  });

  it('maps every code of the closed table to its status', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      const e = new ApiError(code as keyof typeof ERROR_CODES, 'm');
      expect(e.body()).toEqual({ error: { status, code, message: 'm' } });
    }
  });
});
