import NextAuth from 'next-auth';
import { NextRequest } from 'next/server';
import { ApiError, OAuthError } from '../platform/http/errors';
import { defineRoute, type Context } from './kernel';
import { readText } from '../platform/http/input';
import { ROUTES } from '../schemas/registry';
import { authOptions, usesSecureCookies } from '../identity/auth/options';

/**
 * /api/auth/*: next-auth's own endpoints (sign-in callbacks, CSRF token, session, sign-out),
 * behind the kernel like every route: rate limited per address (lib/schemas/registry.ts), and a body
 * read here, within the kernel's cap (64 KB, 413 beyond), before next-auth sees it.
 * Options are built per request because the session secret may come from the database
 * (development).
 *
 * next-auth's client logger (`POST /api/auth/_log`, where its browser code reports its own
 * errors) is off: it is answered 204 and nothing is logged, because all it would write to the
 * server log is text a stranger chose.
 */
async function nextAuth({ request, params, services }: Pick<Context<{ credential: { kind: 'none' } }>, 'request' | 'params' | 'services'>): Promise<Response> {
  let segments = (params as { nextauth?: string[] }).nextauth ?? [];
  checkCallbackUrl(request);
  let bounded = request;
  // HEAD is a GET without its body (RFC 9110 §9.3.2; the kernel drops it): next-auth knows only GET and POST.
  if (request.method === 'HEAD') bounded = new NextRequest(request.url, { method: 'GET', headers: request.headers });
  if (request.method !== 'POST' && segments[0] === 'error') {
    // next-auth's error action puts `error` (the query's, else the path's next segment) into its
    // redirect as it is: beyond Latin-1 the Location header threw (a 500), and `&` or `#` changed
    // the URL. Handed over encoded, it arrives as sent.
    const url = new URL(request.url);
    const error = url.searchParams.getAll('error').at(-1);
    if (error !== undefined) {
      url.searchParams.set('error', encodeURIComponent(error));
      bounded = new NextRequest(url, { method: 'GET', headers: request.headers });
    }
    segments = segments.map((s, i) => (i === 1 ? encodeURIComponent(s) : s));
  }
  if (request.method === 'POST') {
    const body = await readText(request);
    if (segments[0] === '_log') return new Response(null, { status: 204 });
    // next-auth parses a body labelled JSON with `request.json()`, whose failure was a 500.
    if (request.headers.get('content-type')?.includes('application/json') && !isJson(body))
      throw new ApiError('invalid_request', 'The body is not valid JSON.');
    const headers = new Headers(request.headers);
    headers.delete('content-length');
    bounded = new NextRequest(request.url, { method: 'POST', headers, body });
  }
  const res = (await NextAuth(bounded as NextRequest, { params: Promise.resolve({ nextauth: segments }) }, await authOptions(services))) as Response;
  // next-auth refuses an action it does not have (and a session update without its CSRF token)
  // with a 400 in plain text; this route's errors are RFC 6749's (lib/schemas/registry.ts).
  if (res.status === 400 && !res.headers.get('content-type')?.startsWith('application/json')) {
    const text = await res.text();
    throw new OAuthError('invalid_request', text.startsWith('Error: ') ? text.slice('Error: '.length) : 'A session update needs a valid csrfToken.');
  }
  return res;
}

/**
 * next-auth answers a `callbackUrl` parameter or cookie that is neither a path nor an http(s) URL
 * (its own test, `isValidHttpUrl`) with a 500 about its configuration. The value is the client's:
 * a 400, and a cookie holding one is cleared, so that the browser's next request works.
 */
function checkCallbackUrl(request: Request): void {
  const valid = (url: string) => {
    try {
      return /^https?:$/.test(new URL(url, url.startsWith('/') ? request.url : undefined).protocol);
    } catch {
      return false;
    }
  };
  // next-auth reads the last of each, as Next parses them.
  const param = new URL(request.url).searchParams.getAll('callbackUrl').at(-1);
  if (param && !valid(param)) throw new ApiError('invalid_request', 'The callbackUrl parameter must be a path or an http(s) URL.');
  const secure = usesSecureCookies();
  const name = `${secure ? '__Secure-' : ''}next-auth.callback-url`;
  let cookie: string | undefined;
  for (const pair of (request.headers.get('cookie') ?? '').split(/; */)) {
    const at = pair.indexOf('=');
    if (at === -1 || pair.slice(0, at) !== name) continue;
    try {
      cookie = decodeURIComponent(pair.slice(at + 1));
    } catch {
      // Next skips a value it cannot decode.
    }
  }
  if (cookie && !valid(cookie)) {
    throw new ApiError('invalid_request', 'The callback URL cookie held no URL; it has been cleared.', {
      'Set-Cookie': `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`,
    });
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export const nextAuthRoute = defineRoute(ROUTES['/api/auth/[...nextauth]'], { GET: nextAuth, POST: nextAuth });
