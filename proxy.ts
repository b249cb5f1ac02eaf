import { NextResponse, type NextRequest } from 'next/server';
import { env } from './lib/platform/env';
import { isCrossOriginPost } from './lib/platform/http/host-origin';
import { newNonce, pageSecurityHeaders, wantsHsts } from './lib/platform/http/security-headers';

/**
 * The site's pages get their security headers here (lib/platform/http/security-headers.ts): a
 * Content-Security-Policy with a nonce drawn for this response, which Next reads from the
 * request's copy of the header and puts on the scripts it renders, and the page headers around
 * it. The matcher leaves out everything that is not a page: the API's prefixes (the route
 * registry's paths, the creative upload's among them, whose body the proxy would otherwise hold in
 * memory; tests/integration/security-headers.test.ts holds the list to it), Next's own
 * files, any path with a dot (public files, `.md` twins, `llms.txt`), markdown twins asked for
 * with `Accept`, and router prefetches.
 */
export function proxy(request: NextRequest): NextResponse {
  const settings = env();
  const headers = pageSecurityHeaders({
    nonce: newNonce(),
    dev: settings.NODE_ENV === 'development',
    hsts: wantsHsts({ publicBaseUrl: settings.PUBLIC_BASE_URL, host: request.headers.get('host'), forwardedProto: request.headers.get('x-forwarded-proto') }),
  });
  if (isCrossOriginPost(request.method, request.headers)) {
    // Another site posting one of our forms (the sign-in, a console action): refused before Next
    // runs the action, so it is neither a 500 nor a line in the log.
    const refused = new NextResponse('This form was sent from another site, so it was not accepted. Open the page on this site and send it again.', {
      status: 403,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
    });
    for (const [name, value] of Object.entries(headers)) refused.headers.set(name, value);
    return refused;
  }
  const forward = new Headers(request.headers);
  forward.set('content-security-policy', headers['Content-Security-Policy']!);
  const response = NextResponse.next({ request: { headers: forward } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

export const config = {
  matcher: [
    {
      // Must be a literal (Next reads it at build time).
      source: '/((?!(?:_next|api|functions|oauth|mcp|docs/mcp|ask|a2a|agent|markdown|media|downloads|dashboard/ads/creatives/upload)(?:/|$))[^.]*)',
      missing: [
        { type: 'header', key: 'accept', value: '(.*)text/markdown(.*)' },
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
