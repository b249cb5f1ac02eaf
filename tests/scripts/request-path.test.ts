import { describe, expect, it } from 'vitest';
import { ROUTES } from '@/lib/schemas/registry';
// @ts-expect-error: a plain ES module script, without declarations.
import { API_PREFIXES, isApiPath, normalizeRequestTarget } from '../../scripts/request-path.mjs';

const norm = (url: string) => normalizeRequestTarget(url) as string;

describe('the request path the router sees (RFC 3986 §6.2.2)', () => {
  it('decodes escaped unreserved characters, leaving the query as sent', () => {
    expect(norm('/api/v1/%73earch?q=api')).toBe('/api/v1/search?q=api');
    expect(norm('/oauth/%74oken')).toBe('/oauth/token');
    expect(norm('/docs/%6dcp')).toBe('/docs/mcp');
    expect(norm('/a%2Db%5Fc%2ed%7Ee')).toBe('/a-b_c.d~e');
    expect(norm('/api/v1/search?q=%73%2F')).toBe('/api/v1/search?q=%73%2F');
  });

  it('keeps reserved and other escapes escaped, in uppercase', () => {
    expect(norm('/api/v1/se%2farch')).toBe('/api/v1/se%2Farch');
    expect(norm('/x/%3f%23%25%20%c3%a9')).toBe('/x/%3F%23%25%20%C3%A9');
  });

  it('removes dot segments, escaped or not', () => {
    expect(norm('/api/v1/%2e%2e/x')).toBe('/api/x');
    expect(norm('/api/v1/./me/../pricing')).toBe('/api/v1/pricing');
    expect(norm('/../../etc/passwd')).toBe('/etc/passwd');
  });

  it('keeps a path that begins with two slashes a path: its first segment is no host', () => {
    // These threw (Invalid URL), and scripts/serve.mjs never answered the request. (Their escapes
    // that are no UTF-8 are taken literally: below.)
    expect(norm('//.%e0%a4/llms-full.txt')).toBe('//.%25E0%25A4/llms-full.txt');
    expect(norm('/\\ask%2F?q=1')).toBe('//ask%2F?q=1');
    expect(norm('//functions%ED%A0%80//v1//consents/')).toBe('//functions%25ED%25A0%2580//v1//consents/');
    // And this one lost its first segment, as if it named a host.
    expect(norm('//evil.example/api/v1/%73earch')).toBe('//evil.example/api/v1/search');
    expect(norm('//./x/%2e%2e/y')).toBe('//y');
  });

  it('leaves ordinary targets, and anything that is not a path, alone', () => {
    expect(norm('/api/v1/search?q=a.b')).toBe('/api/v1/search?q=a.b');
    expect(norm('/sdk/v1.0.0.js')).toBe('/sdk/v1.0.0.js');
    expect(norm('*')).toBe('*');
    expect(norm('http://example.com/x')).toBe('http://example.com/x');
  });

  it('makes repeated slashes and backslashes one in API paths, so their route answers with its headers', () => {
    // Next answered these with a bare 308 of its own: no rate-limit, API-Version or request-id header.
    expect(norm('/api/v1//search?q=a//b')).toBe('/api/v1/search?q=a//b');
    expect(norm('//api//v1///search')).toBe('/api/v1/search');
    expect(norm('/api\\v1\\pricing')).toBe('/api/v1/pricing');
    expect(norm('/api/v1//')).toBe('/api/v1/');
    expect(norm('/functions/v1//ads?placement_id=x')).toBe('/functions/v1/ads?placement_id=x');
    expect(norm('/docs//mcp')).toBe('/docs/mcp');
    expect(norm('/oauth//token')).toBe('/oauth/token');
    expect(norm('/api/v1/%2e%2e//v1/%70ricing')).toBe('/api/v1/pricing');
    // A trailing slash is the route's to answer (next.config.ts), and stays.
    expect(norm('/api/v1/search/')).toBe('/api/v1/search/');
  });

  it('takes a segment that does not percent-decode literally, which Next answered 500 before any route', () => {
    expect(norm('/api/v1/%E0%A4')).toBe('/api/v1/%25E0%25A4');
    expect(norm('/api/v1/%zz')).toBe('/api/v1/%25zz');
    expect(norm('/api/v1/search%')).toBe('/api/v1/search%25');
    expect(norm('/functions/v1/%FF/ads')).toBe('/functions/v1/%25FF/ads');
    expect(norm('/docs/%C3')).toBe('/docs/%25C3');
    // Only the segment that does not decode: the others keep their escapes as they were.
    expect(norm('/api/v1/%C3%A9/%C3?q=%E0')).toBe('/api/v1/%C3%A9/%25C3?q=%E0');
    expect(norm('/api/v1/caf%c3%a9')).toBe('/api/v1/caf%C3%A9');
  });

  it('leaves them in pages and files, which Next redirects to the path with single slashes', () => {
    expect(norm('/docs//quickstart')).toBe('/docs//quickstart');
    expect(norm('/docs\\quickstart')).toBe('/docs\\quickstart');
    expect(norm('/sdk//v1.js')).toBe('/sdk//v1.js');
    expect(norm('//apix/v1')).toBe('//apix/v1');
  });

  it('knows as API paths exactly the prefixes of the routes that carry the rate-limit headers', () => {
    const limited = Object.entries(ROUTES)
      .filter(([, declaration]) => declaration.rateLimit)
      .map(([path]) => path.replace(/\/\[.*$/, ''));
    for (const path of limited) {
      expect(isApiPath(path), path).toBe(true);
      expect(norm(path.replace(/\//g, '//')), path).toBe(path);
      expect(norm(`${path}//below`), path).toBe(`${path}/below`);
    }
    for (const prefix of API_PREFIXES as string[])
      expect(
        limited.some((p) => p === prefix || p.startsWith(`${prefix}/`)),
        prefix,
      ).toBe(true);
    // The site's own files (well-known documents, twins, llms.txt) keep Next's redirect.
    for (const other of Object.keys(ROUTES).filter((p) => !ROUTES[p as keyof typeof ROUTES].rateLimit)) expect(isApiPath(other), other).toBe(false);
    for (const page of ['/', '/docs/quickstart', '/dashboard', '/demo', '/signin', '/apis', '/asking']) expect(isApiPath(page), page).toBe(false);
  });
});
