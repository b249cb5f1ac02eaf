import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without declarations.
import { normalizeRequestTarget } from '../../scripts/request-path.mjs';

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
    // These threw (Invalid URL), and scripts/serve.mjs never answered the request.
    expect(norm('//.%e0%a4/llms-full.txt')).toBe('//.%E0%A4/llms-full.txt');
    expect(norm('/\\ask%2F?q=1')).toBe('//ask%2F?q=1');
    expect(norm('//functions%ED%A0%80//v1//consents/')).toBe('//functions%ED%A0%80//v1//consents/');
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
});
