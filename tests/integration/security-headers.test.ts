/// <reference types="vite/client" />
import { buildCustomRoute } from 'next/dist/lib/build-custom-route';
import * as pageStaticInfo from 'next/dist/build/analysis/get-page-static-info';
import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it } from 'vitest';
import { nextConfig } from '@/next.config';
import { config as proxyConfig, proxy } from '@/proxy';
import { allPages } from '@/lib/docs/content/pages';
import { resetEnv } from '@/lib/platform/env';
import { COMMON_SECURITY_HEADERS } from '@/lib/platform/http/security-headers';
import { ROUTES } from '@/lib/schemas/registry';

/**
 * Where the security headers are set (lib/platform/http/security-headers.ts), checked with Next's own
 * matching code: proxy.ts runs for every page and for nothing else the route registry declares,
 * and gives each page answer its policy with a nonce Next will find; next.config.ts gives every
 * answer nosniff and a Referrer-Policy, except /oauth/authorize, which sets its own.
 */

/** Next's compilation of a proxy's matcher, as the build does it (exported at run time, not in Next's types). */
const { getMiddlewareMatchers } = pageStaticInfo as unknown as {
  getMiddlewareMatchers(matcher: unknown, nextConfig: object): { regexp: string; missing?: unknown[] }[];
};
const proxyMatchers = getMiddlewareMatchers(proxyConfig.matcher, {}).map((m) => ({ ...m, regexp: new RegExp(m.regexp) }));
const proxyRuns = (path: string) => proxyMatchers.some((m) => m.regexp.test(path));

const PAGES = [
  ...allPages().map((p) => p.path),
  '/signin',
  '/signup',
  '/demo',
  '/dashboard',
  '/dashboard/earnings',
  '/dashboard/apps/3f1c0d8e',
  '/no-such-page',
  '/docs/no-such-page',
];

describe("the proxy's matcher", () => {
  it.each(PAGES)('runs for the page %s', (p) => {
    expect(proxyRuns(p)).toBe(true);
  });

  // Every route, and the paths below it (unknown paths under a prefix answer the API's 404).
  const routes = Object.keys(ROUTES).map((p) => p.replace(/\/\[.*$/, '/anything'));
  it.each(routes)('leaves the route %s and the paths below it alone', (p) => {
    for (const path of [p, `${p}/below`]) expect(proxyRuns(path), path).toBe(false);
  });

  it.each([
    '/_next/static/chunks/app.js',
    '/_next/image',
    '/sdk/v1.0.0.js',
    '/ads/fernway.webm',
    '/favicon.ico',
    '/docs/payouts.md',
    '/index.md',
    '/llms.txt',
    '/.well-known/jwks.json',
  ])('leaves the file %s alone', (p) => expect(proxyRuns(p)).toBe(false));

  it('leaves markdown asked for with Accept, and router prefetches, alone', () => {
    const missing = proxyMatchers[0]!.missing ?? [];
    expect(missing).toContainEqual({ type: 'header', key: 'accept', value: '(.*)text/markdown(.*)' });
    expect(missing).toContainEqual({ type: 'header', key: 'next-router-prefetch' });
  });

  it('runs for every page file under app/', () => {
    for (const file of Object.keys(import.meta.glob('/app/**/page.tsx'))) {
      const path =
        file
          .replace(/^\/app/, '')
          .replace(/\/page\.tsx$/, '')
          .replace(/\[\[?\.{3}[^/]*\]?\]/, 'some/page')
          .replace(/\[[^/]*\]/, '7f3a') || '/';
      expect(proxyRuns(path), `${file} as ${path}`).toBe(true);
    }
  });
});

describe('the proxy', () => {
  afterEach(() => {
    delete process.env.PUBLIC_BASE_URL;
    resetEnv();
  });

  const run = (url: string, headers: Record<string, string> = {}) => proxy(new NextRequest(url, { headers }));

  it('sends a page its policy, with a fresh nonce that the render gets too, and DENY framing', () => {
    const first = run('http://localhost:3000/docs');
    const second = run('http://localhost:3000/docs');
    const policy = first.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(policy).toContain("frame-ancestors 'none'");
    expect(second.headers.get('content-security-policy')).not.toContain(nonce);
    // Next renders with the request's headers as the proxy rewrote them, and reads the nonce there.
    expect(first.headers.get('x-middleware-next')).toBe('1');
    expect(first.headers.get('x-middleware-request-content-security-policy')).toBe(policy);
    expect(first.headers.get('x-frame-options')).toBe('DENY');
  });

  it('answers another site posting one of our forms 403, with the page headers, before Next runs the action', async () => {
    const post = (origin: string) => proxy(new NextRequest('http://localhost:3000/signin', { method: 'POST', headers: { host: 'localhost:3000', origin } }));
    const refused = post('https://evil.example');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-middleware-next')).toBeNull();
    expect(refused.headers.get('x-frame-options')).toBe('DENY');
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(await refused.text()).toMatch(/another site/);
    // Our own page's post goes on to Next.
    expect(post('http://localhost:3000').headers.get('x-middleware-next')).toBe('1');
  });

  it('adds HSTS only for an https deployment, never on localhost', () => {
    expect(run('http://localhost:3000/').headers.get('strict-transport-security')).toBeNull();
    expect(run('http://localhost:3000/', { 'x-forwarded-proto': 'https' }).headers.get('strict-transport-security')).toBeNull();
    process.env.PUBLIC_BASE_URL = 'https://monetize.example';
    resetEnv();
    expect(run('https://monetize.example/signin', { host: 'monetize.example' }).headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
    expect(run('http://localhost:3000/signin', { host: 'localhost:3000' }).headers.get('strict-transport-security')).toBeNull();
  });
});

describe("next.config.ts's headers", async () => {
  const rules = (await nextConfig.headers!()).map((r) => ({ ...r, regex: new RegExp(buildCustomRoute('header', r).regex) }));
  const headersOf = (path: string) => Object.fromEntries(rules.filter((r) => r.regex.test(path)).flatMap((r) => r.headers.map((h) => [h.key, h.value])));

  it.each([
    '/',
    '/docs',
    '/signin',
    '/api/v1/pricing',
    '/mcp',
    '/docs/mcp',
    '/oauth/token',
    '/functions/v1/ads',
    '/sdk/v1.0.0.js',
    '/_next/static/chunks/app.js',
    '/llms.txt',
  ])('give %s nosniff and the Referrer-Policy', (path) => expect(headersOf(path)).toMatchObject(COMMON_SECURITY_HEADERS));

  it('leave /oauth/authorize to set its own Referrer-Policy (the consent page and its redirects)', () => {
    expect(headersOf('/oauth/authorize')).toEqual({});
  });

  it("keep the SDK script's cross-origin and caching headers", () => {
    expect(headersOf('/sdk/v1.0.0.js')).toMatchObject({
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Cache-Control': 'public, max-age=31536000, immutable',
    });
    expect(headersOf('/sdk/v1.js')['Cache-Control']).toBe('public, max-age=300, must-revalidate');
  });
});
