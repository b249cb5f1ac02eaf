import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Engine } from '@/lib/platform/db/engine';
import { env } from '@/lib/platform/env';
import type { RouteDeclaration } from '@/lib/platform/http/declaration';
import { json, routeOf } from '@/lib/platform/http/kernel';
import { defineRoute } from '@/lib/routes/kernel';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { buildOpenApiDocument } from '@/lib/docs/openapi/document';
import { restOperations, type Operation as RegistryOperation, type RoutePath } from '@/lib/schemas/registry';
import { apiErrorBody, intParam } from '@/lib/schemas/common';
import { openPgliteCopy } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, testServices, setTestServices } from '../helpers/services';

/**
 * The OpenAPI 3.1 document (content/docs/versioning.md): valid, complete
 * against the route files, faithful to the zod schemas the handlers validate with, and driven by
 * the route's deprecation flag.
 */

type Json = Record<string, unknown>;
type Operation = { parameters: { name: string; in: string; required: boolean; schema: Json }[]; responses: Record<string, Json>; deprecated?: boolean };
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, Json> } };

const openApiHandlers = handlersOf('/api/v1/openapi.json');
const indexHandlers = handlersOf('/api/v1');

const ctx = () => ({ params: Promise.resolve({}) });
const req = (url: string, method = 'GET') => new Request(`http://localhost${url}`, { method, headers: { 'x-forwarded-for': '192.0.2.88' } });
const HTTP_VERBS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const appApiDir = path.resolve(__dirname, '../../app/api/v1');

function routeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return routeFiles(full);
    return /^route\.(ts|tsx|js|mjs)$/.test(name) ? [full] : [];
  });
}

/** `app/api/v1/me/apps/route.ts` → `/api/v1/me/apps`; `[id]` → `{id}`; route groups vanish. */
function urlPathOf(file: string): string {
  const segments = path
    .relative(appApiDir, path.dirname(file))
    .split(path.sep)
    .filter((s) => s !== '' && !/^\(.*\)$/.test(s))
    .map((s) => s.replace(/^\[{1,2}(?:\.\.\.)?([^\]]+)\]{1,2}$/, '{$1}'));
  return ['/api/v1', ...segments].join('/');
}

let db: Engine;
let doc: Doc;

beforeAll(async () => {
  db = await openPgliteCopy();
  setTestServices(makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 100_000, windowSeconds: 60 }) }));
  const res = await openApiHandlers.GET(req('/api/v1/openapi.json'), ctx());
  expect(res.status).toBe(200);
  expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
  doc = (await res.json()) as Doc;
});
afterAll(async () => {
  setTestServices(undefined);
  await db?.close();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([verb]) => HTTP_VERBS.includes(verb))
      .map(([verb, op]) => ({ key: `${verb.toUpperCase()} ${p}`, op })),
  );

describe('GET /api/v1/openapi.json', () => {
  it('is OpenAPI 3.1.0 and passes @apidevtools/swagger-parser validation', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('documents every route file under app/api/v1, with each method the route declares', async () => {
    const files = routeFiles(appApiDir);
    expect(files.length).toBeGreaterThan(0);
    const missing: string[] = [];
    for (const file of files) {
      const urlPath = urlPathOf(file);
      // The 404 of paths no route has (lib/routes/not-found.ts) declares nothing to document.
      if (/\[\.\.\.unknown\]/.test(file)) continue;
      const mod = (await import(file)) as Record<string, unknown>;
      // The file's handlers, run with the test's services: OPTIONS answers the kernel's Allow list without running a handler.
      const route = routeOf(mod.OPTIONS);
      expect(route, `${urlPath} exports the kernel's handlers`).toBeDefined();
      const allow = (await route!.with(testServices()).OPTIONS(req(urlPath, 'OPTIONS'), ctx())).headers.get('Allow') ?? '';
      const declared = allow.split(/,\s*/).filter((m) => m && m !== 'HEAD' && m !== 'OPTIONS');
      expect(declared.length, `${urlPath} declares a method`).toBeGreaterThan(0);
      for (const m of declared) {
        if (!doc.paths[urlPath]?.[m.toLowerCase()]) missing.push(`${m} ${urlPath} (${path.relative(process.cwd(), file)})`);
      }
    }
    expect(missing, 'routes missing from the OpenAPI document').toEqual([]);
  });

  it('maps route files to URL paths', () => {
    expect(urlPathOf(path.join(appApiDir, 'route.ts'))).toBe('/api/v1');
    expect(urlPathOf(path.join(appApiDir, 'openapi.json', 'route.ts'))).toBe('/api/v1/openapi.json');
    expect(urlPathOf(path.join(appApiDir, 'me', 'api-keys', 'route.ts'))).toBe('/api/v1/me/api-keys');
    expect(urlPathOf(path.join(appApiDir, '(group)', 'apps', '[id]', 'route.ts'))).toBe('/api/v1/apps/{id}');
  });

  it('every operation documents a 429 with an integer Retry-After and the error envelope', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(0);
    for (const { key, op } of ops) {
      const r429 = op.responses['429'] as { headers?: Record<string, { schema?: Json }>; content?: Record<string, { schema: Json }> } | undefined;
      expect(r429, `${key} has a 429`).toBeDefined();
      expect(r429!.headers?.['Retry-After']?.schema, `${key} 429 has Retry-After`).toEqual({ type: 'integer' });
      expect(r429!.content?.['application/json']?.schema, `${key} 429 body`).toEqual({ $ref: '#/components/schemas/Error' });
    }
  });

  it('declares the oauth2 (authorization code), sandbox (http bearer) and sdkKey (x-api-key header) schemes', () => {
    const base = env().PUBLIC_BASE_URL;
    const { oauth2, sandbox, sdkKey } = doc.components.securitySchemes as Record<string, Json & { flows?: Record<string, Json> }>;
    expect(oauth2).toMatchObject({
      type: 'oauth2',
      flows: {
        authorizationCode: {
          authorizationUrl: `${base}/oauth/authorize`,
          tokenUrl: `${base}/oauth/token`,
          scopes: {
            'profile:read': expect.any(String),
            'apps:read': expect.any(String),
            'earnings:read': expect.any(String),
            'api_keys:read': expect.any(String),
            'campaigns:read': expect.any(String),
            'licenses:read': expect.any(String),
          },
        },
      },
    });
    expect(Object.keys(oauth2!.flows!)).toEqual(['authorizationCode']);
    expect(sandbox).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(sdkKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
  });

  it('marks no real operation deprecated (none is today)', () => {
    expect(
      operations()
        .filter(({ op }) => op.deprecated)
        .map(({ key }) => key),
    ).toEqual([]);
  });
});

describe('documented query parameters match the published limits and the zod schemas the handlers validate with', () => {
  type IntRow = { path: string; name: string; kind: 'int'; min: number; max: number; fallback: number };
  type EnumRow = { path: string; name: string; kind: 'enum'; values: string[]; fallback: string };
  type StringRow = { path: string; name: string; kind: 'string'; required: boolean; minLength: number; maxLength: number };
  type UuidRow = { path: string; name: string; kind: 'uuid' };
  type Row = IntRow | EnumRow | StringRow | UuidRow;

  const rows: Row[] = [
    { path: '/api/v1/search', name: 'q', kind: 'string', required: true, minLength: 1, maxLength: 200 },
    { path: '/api/v1/search', name: 'limit', kind: 'int', min: 1, max: 20, fallback: 5 },
    { path: '/api/v1/search', name: 'cursor', kind: 'string', required: false, minLength: 1, maxLength: 512 },
    { path: '/api/v1/pages', name: 'limit', kind: 'int', min: 1, max: 100, fallback: 50 },
    { path: '/api/v1/pages', name: 'cursor', kind: 'string', required: false, minLength: 1, maxLength: 512 },
    { path: '/api/v1/pricing', name: 'audience', kind: 'enum', values: ['all', 'publisher', 'advertiser', 'data_buyer'], fallback: 'all' },
    { path: '/api/v1/me/apps', name: 'placement_status', kind: 'enum', values: ['all', 'active', 'paused'], fallback: 'all' },
    { path: '/api/v1/me/earnings', name: 'payout_limit', kind: 'int', min: 0, max: 50, fallback: 10 },
    { path: '/api/v1/me/earnings/daily', name: 'days', kind: 'enum', values: ['7', '30', '90'], fallback: '30' },
    { path: '/api/v1/me/earnings/daily', name: 'app_id', kind: 'uuid' },
    { path: '/api/v1/me/earnings/daily', name: 'placement_id', kind: 'uuid' },
    { path: '/api/v1/me/api-keys', name: 'environment', kind: 'enum', values: ['all', 'development', 'production'], fallback: 'all' },
  ];

  const documented = (p: string, name: string) => doc.paths[p]?.get?.parameters.find((x) => x.in === 'query' && x.name === name);
  const validator = (p: string, name: string) => {
    const op = restOperations().find((o) => o.path === p && o.method === 'GET');
    return op?.declaration.query?.shape[name] as z.ZodType | undefined;
  };

  it.each([
    '/api/v1',
    '/api/v1/search',
    '/api/v1/pages',
    '/api/v1/pricing',
    '/api/v1/me',
    '/api/v1/me/apps',
    '/api/v1/me/earnings',
    '/api/v1/me/earnings/daily',
    '/api/v1/me/api-keys',
  ])('GET %s documents exactly the query parameters of the table', (p) => {
    const names = (doc.paths[p]?.get?.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name);
    expect(names.sort()).toEqual(
      rows
        .filter((r) => r.path === p)
        .map((r) => r.name)
        .sort(),
    );
  });

  it.each(rows.map((r) => ({ ...r, label: `GET ${r.path} ${r.name}` })))('$label', (row) => {
    const param = documented(row.path, row.name);
    const zod = validator(row.path, row.name);
    expect(param, 'documented').toBeDefined();
    expect(zod, 'validated').toBeDefined();
    const ok = (raw: string | undefined) => zod!.safeParse(raw);

    if (row.kind === 'int') {
      expect(param).toMatchObject({ required: false, schema: { type: 'integer', minimum: row.min, maximum: row.max, default: row.fallback } });
      expect(ok(String(row.min))).toEqual({ success: true, data: row.min });
      expect(ok(String(row.max))).toEqual({ success: true, data: row.max });
      expect(ok(undefined)).toEqual({ success: true, data: row.fallback });
      for (const bad of [String(row.min - 1), String(row.max + 1), '', 'abc', '1.5', '1e1', '0x10']) expect(ok(bad).success, bad).toBe(false);
    } else if (row.kind === 'enum') {
      expect(param).toMatchObject({ required: false, schema: { type: 'string', default: row.fallback } });
      expect([...(param!.schema.enum as string[])].sort()).toEqual([...row.values].sort());
      for (const v of row.values) expect(ok(v)).toEqual({ success: true, data: v });
      expect(ok(undefined)).toEqual({ success: true, data: row.fallback });
      const upper = row.values[0]!.toUpperCase();
      for (const bad of ['', 'bogus', ...(upper === row.values[0] ? [] : [upper])]) expect(ok(bad).success, bad).toBe(false);
    } else if (row.kind === 'uuid') {
      expect(param).toMatchObject({ required: false, schema: { type: 'string', format: 'uuid' } });
      expect(ok('00000000-0000-4000-8000-00000000a001').success).toBe(true);
      expect(ok(undefined).success).toBe(true);
      for (const bad of ['', 'abc', '00000000-0000-4000-8000-00000000a00']) expect(ok(bad).success, bad).toBe(false);
    } else {
      expect(param).toMatchObject({ required: row.required, schema: { type: 'string', minLength: row.minLength, maxLength: row.maxLength } });
      expect(ok('a'.repeat(row.maxLength)).success).toBe(true);
      expect(ok('a'.repeat(row.maxLength + 1)).success).toBe(false);
      expect(ok('').success).toBe(false);
      expect(ok(undefined).success).toBe(!row.required);
    }
  });
});

describe('deprecation: one flag on the route drives the headers and the document', () => {
  const deprecated = {
    since: new Date('2026-01-15T00:00:00Z'),
    sunset: new Date('2026-07-15T00:00:00Z'),
    link: 'https://example.com/docs/versioning#test-deprecated',
  };
  const declaration = {
    path: '/api/v1/test-deprecated',
    errors: 'api',
    rateLimit: true,
    cors: 'public',
    apiVersion: true,
    deprecated,
    methods: {
      GET: {
        credential: { kind: 'none' },
        query: z.object({ n: intParam(1, 10, 1).describe('A number, 1 to 10.') }),
        cache: 'public, max-age=60',
        doc: {
          operationId: 'testDeprecated',
          summary: 'A deprecated operation (test only)',
          tags: ['Public'],
          responses: { 200: { description: 'The number.', schema: z.object({ n: z.number().int() }) } },
        },
      },
    },
  } as const satisfies RouteDeclaration;
  const route = defineRoute(declaration, { GET: ({ query }) => json({ n: query.n }) });
  /** The route's handlers, run with the test's services. */
  const handlers = { GET: (request: Request, context: ReturnType<typeof ctx>) => route.with(testServices()).GET(request, context) };

  const expectDeprecationHeaders = (res: Response) => {
    expect(res.headers.get('Deprecation')).toBe(`@${Math.floor(deprecated.since.getTime() / 1000)}`);
    expect(res.headers.get('Deprecation')).toBe('@1768435200');
    const sunset = res.headers.get('Sunset')!;
    // RFC 8594 / RFC 9110 §5.6.7: an IMF-fixdate.
    expect(sunset).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(sunset).toBe('Wed, 15 Jul 2026 00:00:00 GMT');
    expect(Date.parse(sunset)).toBe(deprecated.sunset.getTime());
    expect(res.headers.get('Link')).toBe(`<${deprecated.link}>; rel="deprecation"; type="text/html"`);
    expect(res.headers.get('Access-Control-Expose-Headers')).toBe('*');
  };

  it('the flag is at least 90 days ahead of the sunset, as the versioning policy promises', () => {
    expect(deprecated.sunset.getTime() - deprecated.since.getTime()).toBeGreaterThanOrEqual(90 * 86_400_000);
  });

  it('a deprecated route answers 200 with Deprecation, Sunset and Link', async () => {
    const res = await handlers.GET(req('/api/v1/test-deprecated?n=3'), ctx());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ n: 3 });
    expectDeprecationHeaders(res);
  });

  it('its errors carry the same headers', async () => {
    const res = await handlers.GET(req('/api/v1/test-deprecated?n=11'), ctx());
    expect(res.status).toBe(400);
    expect(apiErrorBody.parse(await res.json()).error.code).toBe('invalid_request');
    expectDeprecationHeaders(res);
  });

  it.each([
    ['/api/v1', indexHandlers.GET],
    ['/api/v1/openapi.json', openApiHandlers.GET],
  ])('a real route (%s) sends no deprecation headers', async (url, get) => {
    const res = await get(req(url), ctx());
    expect(res.status).toBe(200);
    for (const h of ['Deprecation', 'Sunset']) expect(res.headers.get(h)).toBeNull();
    expect(res.headers.get('Link') ?? '').not.toContain('rel="deprecation"');
  });

  it('the document marks that operation deprecated: true, no other, and still validates', async () => {
    const extra: RegistryOperation = { method: 'GET', path: declaration.path as RoutePath, route: declaration, declaration: declaration.methods.GET };
    const built = buildOpenApiDocument([...restOperations(), extra]) as unknown as Doc;
    expect(built.paths['/api/v1/test-deprecated']?.get?.deprecated).toBe(true);
    const others = Object.entries(built.paths)
      .filter(([p]) => p !== '/api/v1/test-deprecated')
      .flatMap(([p, item]) =>
        Object.entries(item)
          .filter(([, op]) => op.deprecated)
          .map(([verb]) => `${verb} ${p}`),
      );
    expect(others).toEqual([]);
    expect(built.paths['/api/v1/test-deprecated']?.get?.parameters).toEqual([
      { name: 'n', in: 'query', required: false, description: 'A number, 1 to 10.', schema: { type: 'integer', minimum: 1, maximum: 10, default: 1 } },
    ]);
    await expect(SwaggerParser.validate(structuredClone(built) as never)).resolves.toBeTruthy();
  });
});
