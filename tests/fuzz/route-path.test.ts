import { beforeAll, describe, expect, it } from 'vitest';
import { nextConfig } from '@/next.config';
import { ROUTE_FILES } from '../helpers/routes';
import { Router, routingConfig, type RoutingConfig } from './route-path';

/** The fuzzer's stand-in for scripts/serve.mjs and Next's router, on the app's own route files and next.config.ts. */

const PATHS = ROUTE_FILES.map((f) => f.path);
let config: RoutingConfig;

beforeAll(async () => {
  config = await routingConfig(nextConfig);
});

const router = (skipTrailingSlashRedirect = false) => new Router(PATHS, { ...config, skipTrailingSlashRedirect });
const route = (target: string, headers: Record<string, string> = {}, r = router()) => r.route(target, new Headers(headers));

describe('the fuzzer’s router', () => {
  it('prefers a static route to a catch-all, and hands the catch-all its decoded segments', () => {
    expect(route('/api/v1/search?q=x')).toEqual({ kind: 'route', route: '/api/v1/search', params: {}, target: '/api/v1/search?q=x' });
    expect(route('/api/v1/nope/%C3%A9')).toMatchObject({ route: '/api/v1/[...unknown]', params: { unknown: ['nope', 'é'] } });
    expect(route('/functions/v1')).toMatchObject({ route: '/functions/v1/[[...unknown]]', params: {} });
    expect(route('/mcp')).toMatchObject({ route: '/mcp' });
    expect(route('/mcp/x')).toMatchObject({ route: '/mcp/[...unknown]' });
  });

  it('routes the path scripts/serve.mjs makes of an encoded one', () => {
    expect(route('/api/v1/%73earch')).toMatchObject({ route: '/api/v1/search', target: '/api/v1/search' });
    expect(route('/api/v1/x/%2e%2e/pricing')).toMatchObject({ route: '/api/v1/pricing' });
    expect(route('/%2Ewell-known/jwks.json')).toMatchObject({ route: '/.well-known/jwks.json' });
    expect(route('//api//v1///pricing')).toMatchObject({ route: '/api/v1/pricing' });
  });

  it('routes a segment that does not decode as the text it is (scripts/request-path.mjs), and a path no route has to the site', () => {
    expect(route('/api/v1/%E0%A4')).toMatchObject({ route: '/api/v1/[...unknown]', params: { unknown: ['%E0%A4'] }, target: '/api/v1/%25E0%25A4' });
    expect(route('/api/v1//pricing')).toMatchObject({ route: '/api/v1/pricing', target: '/api/v1/pricing' });
    expect(route('/nowhere/at/all')).toMatchObject({ kind: 'site' });
  });

  it('plays the markdown-twin rewrites, after static routes and before dynamic ones', () => {
    expect(route('/docs/payouts.md')).toMatchObject({ route: '/markdown/[[...slug]]', params: { slug: ['docs', 'payouts'] } });
    expect(route('/docs/payouts', { accept: 'text/markdown' })).toMatchObject({ route: '/markdown/[[...slug]]' });
    expect(route('/docs/payouts')).toMatchObject({ kind: 'site' });
    expect(route('/api/v1/x.md')).toMatchObject({ route: '/api/v1/[...unknown]' });
  });

  it('plays the home page’s twin rule before the route files: `/` asked for as markdown', () => {
    expect(route('/', { accept: 'text/markdown' })).toMatchObject({ route: '/markdown/[[...slug]]', params: {}, rewrittenFrom: '/' });
    expect(route('/?q=1', { accept: 'text/html, text/markdown;q=0.9' })).toMatchObject({ route: '/markdown/[[...slug]]', target: '/?q=1' });
    expect(route('/', { accept: 'text/html' })).toMatchObject({ kind: 'site' });
    expect(route('/index.md')).toMatchObject({ route: '/markdown/[[...slug]]', params: { slug: ['index'] } });
  });

  it('follows the trailing-slash redirect unless next.config.ts skips it', () => {
    expect(route('/api/v1/pricing/', {}, router(false))).toMatchObject({ route: '/api/v1/pricing', target: '/api/v1/pricing' });
    expect(route('/api/v1/pricing/', {}, router(true))).toMatchObject({ route: '/api/v1/pricing', target: '/api/v1/pricing/' });
  });
});
