import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { env } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import type { RoutePath } from '@/lib/schemas/registry';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * A path under one of the API's prefixes that no route has answers the API's 404, never the
 * site's HTML: the error envelope, the request id, the rate-limit headers (it counts), CORS, and
 * `API-Version` where the surface sends it; for every method.
 */

type Handler = (req: Request, ctx: { params: Promise<Record<string, string[]>> }) => Promise<Response>;
const CASES: { route: RoutePath; path: string; version: boolean }[] = [
  { route: '/api/v1/[...unknown]', path: '/api/v1/nope', version: true },
  { route: '/api/v1/[...unknown]', path: '/api/v1/me/nope/deeper', version: true },
  { route: '/functions/v1/[[...unknown]]', path: '/functions/v1', version: true },
  { route: '/functions/v1/[[...unknown]]', path: '/functions/v1/nope', version: true },
  { route: '/oauth/[[...unknown]]', path: '/oauth/nope', version: false },
  { route: '/mcp/[...unknown]', path: '/mcp/x', version: false },
  { route: '/docs/mcp/[...unknown]', path: '/docs/mcp/x', version: false },
  { route: '/a2a/[...unknown]', path: '/a2a/tasks/1', version: false },
  { route: '/ask/[...unknown]', path: '/ask/x', version: false },
];

beforeAll(() => setTestServices(makeServices({ rateLimiter: new MemoryRateLimiter({ max: 1000, windowSeconds: 60 }) })));
afterAll(() => setTestServices(undefined));

describe('paths no route has, under the API prefixes', () => {
  it.each(CASES)('$path answers the API 404 for every method', async ({ route, path, version }) => {
    const handlers = handlersOf(route) as unknown as Record<string, Handler>;
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await handlers[method]!(
        new Request(`${env().PUBLIC_BASE_URL}${path}`, { method, headers: { 'x-forwarded-for': '192.0.2.77', origin: 'https://elsewhere.example' } }),
        { params: Promise.resolve({ unknown: path.split('/').slice(2) }) },
      );
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.headers.get('ratelimit-policy')).toBe('"default";q=1000;w=60');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('api-version')).toBe(version ? '1' : null);
      if (method === 'HEAD') continue;
      const body = (await res.json()) as { error: { status: number; code: string; message: string } };
      expect(Object.keys(body)).toEqual(['error']);
      expect(body.error).toEqual({ status: 404, code: 'not_found', message: expect.stringContaining(`Nothing is at ${path}.`) });
    }
  });

  it('keeps the preflight a preflight', async () => {
    const res = await (handlersOf('/api/v1/[...unknown]') as unknown as Record<string, Handler>).OPTIONS!(
      new Request(`${env().PUBLIC_BASE_URL}/api/v1/nope`, { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example' } }),
      { params: Promise.resolve({ unknown: ['nope'] }) },
    );
    expect(res.status).toBe(204);
  });
});
