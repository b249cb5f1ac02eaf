import type { Answer } from './answers';
import type { Deprecation, HttpMethod, RouteDeclaration } from './declaration';
import type { Exchange } from './exchange';
import { writeKeyRateLimitHeaders, writeRateLimitHeaders } from './rate-limit';

/**
 * The headers the kernel puts on every answer of a route, errors included: request id,
 * Cache-Control, API-Version, rate limit, CORS, deprecation. A handler's own headers stay unless
 * the kernel sets the same name, except Cache-Control, which a handler may decide.
 */

export const API_VERSION = '1';

/** What a route answers a preflight with: its methods, and the request headers the service reads. */
export interface Preflight {
  allow: string;
  requestHeaders: string;
}

/** The kernel's own headers of an answer. Names are lowercase here. */
function routeHeaders(declaration: RouteDeclaration, x: Exchange<{ now(): number }>, method: HttpMethod, preflight: Preflight): Record<string, string> {
  const h: Record<string, string> = { 'x-request-id': x.requestId };
  if (declaration.apiVersion) h['api-version'] = API_VERSION;
  if (x.limit && x.limiter) {
    const limitHeaders: Record<string, string> = {};
    writeRateLimitHeaders(limitHeaders, x.limit, x.limiter.config, x.limit.at ?? x.services.now());
    if (x.budget) writeKeyRateLimitHeaders(limitHeaders, x.budget.result, x.budget.limiter.config, x.budget.result.at ?? x.services.now());
    for (const name in limitHeaders) h[name.toLowerCase()] = limitHeaders[name]!;
  }
  if (declaration.cors === 'sdk') {
    // Each app says which web origins may use its keys (lib/identity/keys/directory.ts), and the answer is
    // readable by the page that asked (`*` for a request that sent no Origin). A page on an
    // origin the app refused reads only its refusal: the 403 envelope, answered before anything
    // was served or recorded (by the key's check, or first thing for a beacon), so that the SDK
    // can tell the page's developer why and how to fix it. Never with credentials: no cookie
    // reaches these routes.
    h['access-control-allow-origin'] = x.headers.get('origin') ?? '*';
    h['vary'] = 'Origin';
  }
  if (declaration.cors !== 'none') {
    if (declaration.cors === 'public') h['access-control-allow-origin'] = '*';
    // Every header is readable by any origin: for requests without credentials `*` means
    // exactly that (Fetch standard, CORS protocol), and no cookies reach these routes. A refused
    // origin's 403 exposes none beyond the CORS-safelisted ones (Content-Type, Cache-Control…):
    // the page learns the error's code and message, not the budgets or ids in the others.
    if (!x.originRefused) h['access-control-expose-headers'] = '*';
    if (method === 'OPTIONS') {
      h['access-control-allow-methods'] = preflight.allow;
      h['access-control-allow-headers'] = preflight.requestHeaders;
      h['access-control-max-age'] = '600';
    }
  }
  if (declaration.deprecated) for (const [name, value] of deprecationHeaders(declaration.deprecated)) h[name] = value;
  return h;
}

/** The answer as a Response, with the kernel's headers over its own (a handler's Cache-Control stands). */
export function send(declaration: RouteDeclaration, x: Exchange<{ now(): number }>, method: HttpMethod, preflight: Preflight, answer: Answer): Response {
  const own = routeHeaders(declaration, x, method, preflight);
  if (answer instanceof Response) {
    // Copied as Headers, which keep repeated headers (several Set-Cookie) apart.
    const headers = new Headers(answer.headers);
    if (!headers.has('cache-control')) headers.set('cache-control', x.cacheControl);
    for (const name in own) headers.set(name, own[name]!);
    return new Response(method === 'HEAD' ? null : answer.body, { status: answer.status, statusText: answer.statusText, headers });
  }
  // A JSON reply's headers are one record, names in lowercase so that the kernel's replace the
  // handler's whatever case it wrote them in: a Response takes a record in one pass.
  const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': x.cacheControl };
  for (const name in answer.headers) headers[name.toLowerCase()] = answer.headers[name]!;
  Object.assign(headers, own);
  return new Response(method === 'HEAD' ? null : answer.text, { status: answer.status, headers });
}

function deprecationHeaders(d: Deprecation): [string, string][] {
  return [
    // RFC 9745 §2.1: a structured-field date, `@` followed by Unix seconds.
    ['deprecation', `@${Math.floor(d.since.getTime() / 1000)}`],
    // RFC 8594 §3: an HTTP date.
    ['sunset', d.sunset.toUTCString()],
    ['link', `<${d.link}>; rel="deprecation"; type="text/html"`],
  ];
}
