import { describe, expect, it } from 'vitest';
import { COMMON_SECURITY_HEADERS, contentSecurityPolicy, HSTS, newNonce, pageSecurityHeaders, wantsHsts } from './security-headers';

/** A policy as a map of directive to its sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split(';').map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name!, sources];
    }),
  );
}

describe('the Content-Security-Policy of pages', () => {
  const policy = directives(contentSecurityPolicy('abc123=='));

  it('runs only our own scripts and inline scripts carrying the nonce: no unsafe-inline, no eval in production', () => {
    expect(policy.get('script-src')).toEqual(["'self'", "'nonce-abc123=='"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(directives(contentSecurityPolicy('n', { dev: true })).get('script-src')).toEqual(["'self'", "'nonce-n'", "'unsafe-eval'"]);
  });

  it('cannot be framed, loads no plugins, sets no <base>, and posts forms and fetches only to us', () => {
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
  });

  it("allows inline styles (the SDK's <style>, React's style attributes) and ads' https images and videos", () => {
    expect(policy.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:', 'https:']);
    expect(policy.get('media-src')).toEqual(["'self'", 'https:']);
  });

  it('names a nonce Next can find (its parser takes the first nonce source of script-src)', () => {
    const nonce = newNonce();
    const source = directives(contentSecurityPolicy(nonce))
      .get('script-src')!
      .find((s) => s.startsWith("'nonce-"));
    expect(source).toMatch(/^'nonce-([A-Za-z0-9+/_-]+={0,2})'$/);
    expect(source).toBe(`'nonce-${nonce}'`);
  });
});

describe('nonces', () => {
  it('are 128 random bits, different every time', () => {
    const nonces = new Set(Array.from({ length: 1000 }, newNonce));
    expect(nonces.size).toBe(1000);
    for (const n of [...nonces].slice(0, 20)) expect(Buffer.from(n, 'base64')).toHaveLength(16);
  });
});

describe('HSTS', () => {
  it('is sent when the deployment is on https, or the platform says the request came over https', () => {
    expect(wantsHsts({ publicBaseUrl: 'https://monetize.example', host: 'monetize.example', forwardedProto: null })).toBe(true);
    expect(wantsHsts({ publicBaseUrl: 'https://monetize.example', host: null, forwardedProto: null })).toBe(true);
    expect(wantsHsts({ publicBaseUrl: 'http://monetize.example', host: 'monetize-abc.vercel.app', forwardedProto: 'https' })).toBe(true);
    expect(wantsHsts({ publicBaseUrl: 'http://monetize.example', host: 'monetize.example', forwardedProto: 'HTTPS, http' })).toBe(true);
  });

  it('is never sent over plain http, nor to a loopback host whatever the headers say', () => {
    expect(wantsHsts({ publicBaseUrl: 'http://monetize.example', host: 'monetize.example', forwardedProto: 'http' })).toBe(false);
    expect(wantsHsts({ publicBaseUrl: 'http://localhost:3000', host: 'localhost:3000', forwardedProto: null })).toBe(false);
    for (const host of ['localhost:3000', '127.0.0.1:3000', '[::1]:3000', 'localhost']) {
      expect(wantsHsts({ publicBaseUrl: 'https://monetize.example', host, forwardedProto: 'https' }), host).toBe(false);
    }
    expect(wantsHsts({ publicBaseUrl: 'https://localhost:3000', host: null, forwardedProto: 'https' })).toBe(false);
  });
});

describe('the headers of one page', () => {
  it('are the policy, DENY framing, and HSTS when asked', () => {
    const h = pageSecurityHeaders({ nonce: 'n0nce', hsts: true });
    expect(h).toEqual({ 'Content-Security-Policy': contentSecurityPolicy('n0nce'), 'X-Frame-Options': 'DENY', 'Strict-Transport-Security': HSTS });
    expect(pageSecurityHeaders({ nonce: 'n', hsts: false })['Strict-Transport-Security']).toBeUndefined();
    expect(HSTS).toMatch(/^max-age=31536000\b/);
  });

  it('come with nosniff and a Referrer-Policy that gives other sites the origin only, as every answer does', () => {
    expect(COMMON_SECURITY_HEADERS).toEqual({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'strict-origin-when-cross-origin' });
  });
});
