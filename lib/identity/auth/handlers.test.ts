// First: Next's request scope, which next-auth's route handler needs (cookies(), headers()).
import { callRoute, nextRequest } from '../../../tests/fuzz/next-scope';
import { generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { makeServices } from '../../../tests/helpers/services';
import type { OAuthSecrets } from '../secrets';
import type { Services } from '../../services';
import { nextAuthRoute } from '../../routes/auth';
import { safeRedirect } from './options';

/**
 * /api/auth/* answers what it is sent without a 500 (found by tests/integration/fuzz.test.ts):
 * a `callbackUrl` that is no URL, a body labelled JSON that is not JSON, and HEAD.
 */

async function services(): Promise<Services> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const secrets = {
    signingKey: privateKey,
    verifyKey: publicKey,
    publicJwk: { kid: 'k', alg: 'ES256', use: 'sig' },
    sessionSecret: 's'.repeat(40),
  } as OAuthSecrets;
  return { ...makeServices(), oauthSecrets: async () => secrets };
}

async function call(s: Services, method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  const url = `http://localhost:3000${path}`;
  const route = nextAuthRoute.with(s);
  const handler = route[method as 'GET'];
  const res = await callRoute(
    '/api/auth/[...nextauth]',
    handler,
    nextRequest(url, { method, headers: new Headers({ 'x-forwarded-for': '192.0.2.9', ...init.headers }), body: init.body }),
    {
      nextauth: new URL(url).pathname.split('/').slice(3).map(decodeURIComponent),
    },
  );
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('next-auth behind the kernel', () => {
  it('refuses a callbackUrl parameter or cookie that is no URL with a 400, clearing the cookie, where it was a 500', async () => {
    const s = await services();
    const param = await call(s, 'GET', '/api/auth/csrf?callbackUrl=not%20a%20url');
    expect(param.status).toBe(400);
    expect(JSON.parse(param.text)).toMatchObject({ error: 'invalid_request' });
    const cookie = await call(s, 'GET', '/api/auth/session', { headers: { cookie: 'a=b; next-auth.callback-url=http%3A%2F%2Flocalhost%3A3000%5D' } });
    expect(cookie.status).toBe(400);
    expect(cookie.headers.get('set-cookie')).toMatch(/^next-auth\.callback-url=; Path=\/; Max-Age=0/);
    // Good values still pass: a path, and a URL (next-auth sends one of another origin home).
    expect((await call(s, 'GET', '/api/auth/csrf?callbackUrl=%2Fdashboard')).status).toBe(200);
    expect((await call(s, 'GET', '/api/auth/session', { headers: { cookie: 'next-auth.callback-url=https%3A%2F%2Fevil.example%2F' } })).status).toBe(200);
  });

  it('sends a callbackUrl in the form that is no URL home, where it was a 500', async () => {
    const signout = await call(await services(), 'POST', '/api/auth/signout', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'csrfToken=x&callbackUrl=http%3A%2F%2Flocalhost%3A3000%5D',
    });
    expect(signout.status).toBeLessThan(500);
  });

  it('refuses a body labelled JSON that is not JSON: 400 invalid_request, where it was a 500', async () => {
    const res = await call(await services(), 'POST', '/api/auth/signout', { headers: { 'content-type': 'application/json' }, body: 'csrfToken=x' });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: 'invalid_request', error_description: 'The body is not valid JSON.' });
  });

  it('redirects the error action with its error encoded, where a character beyond Latin-1 was a 500', async () => {
    const s = await services();
    for (const path of ['/api/auth/error?error=%F0%9F%98%80', '/api/auth/error/%F0%9F%98%80']) {
      const res = await call(s, 'GET', path);
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location')).toBe('/signin?error=%F0%9F%98%80');
    }
    // `&` stays inside the value instead of adding a parameter.
    expect((await call(s, 'GET', '/api/auth/error?error=x%26callbackUrl%3Dhttps%3A%2F%2Fevil.example')).headers.get('location')).toBe(
      '/signin?error=x%26callbackUrl%3Dhttps%3A%2F%2Fevil.example',
    );
    expect((await call(s, 'GET', '/api/auth/error?error=Configuration')).headers.get('location')).toBe('/signin?error=Configuration');
  });

  it('answers an action next-auth does not have in the route’s error shape, where it was plain text', async () => {
    const s = await services();
    for (const [method, path] of [
      ['GET', '/api/auth/nope'],
      ['POST', '/api/auth/session'],
    ] as const) {
      const res = await call(s, method, path, method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=b' } : {});
      expect(res.status, path).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(JSON.parse(res.text)).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
    }
  });

  it('answers HEAD as GET, without the body, where next-auth answered 400', async () => {
    const s = await services();
    const get = await call(s, 'GET', '/api/auth/session');
    const head = await call(s, 'HEAD', '/api/auth/session');
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
  });
});

describe('safeRedirect', () => {
  const base = 'http://localhost:3000';
  it('keeps next-auth’s rule: a path or a URL of this origin, else home', () => {
    expect(safeRedirect('/dashboard', base)).toBe(`${base}/dashboard`);
    expect(safeRedirect(`${base}/x?y=1`, base)).toBe(`${base}/x?y=1`);
    expect(safeRedirect('https://evil.example/', base)).toBe(base);
  });

  it('sends a value that is no URL home instead of throwing', () => {
    for (const url of ['not a url', `${base}]`, '[', 'http://', 'javascript']) expect(safeRedirect(url, base)).toBe(base);
  });
});
