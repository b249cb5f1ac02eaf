// The request path as the router should see it (scripts/serve.mjs). RFC 3986 §6.2.2.2: a
// percent-encoded unreserved character (a letter, a digit, `-`, `.`, `_`, `~`) is that
// character, so `/api/v1/%73earch` is `/api/v1/search`; other escapes stay escaped, with their
// hex digits in uppercase (§6.2.2.1). Then dot segments are removed (§6.2.2.3), as a browser
// would before sending. Next's router answered such paths 500 ("Attempted to handle request too
// many times"); normalized, they reach the route they name, or its 404.
//
// Last, repeated slashes (and backslashes, which browsers and Next read as slashes) are made one
// in the paths the route kernel answers (API_PREFIXES): Next would answer `/api/v1//search` with
// its own bare 308 to `/api/v1/search`, before any route, so without the headers every answer
// of the API carries (rate limit, API version, request id, CORS). Such a path is answered by the
// route it names instead, as a trailing slash is (next.config.ts); pages are still redirected.
// A segment that does not percent-decode is taken literally (`literalWhereUndecodable`), for the
// same reason: Next answered it with a 500 of its own.

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The first segments of the paths whose answers the route kernel makes: every route the registry
 * declares outside the site's pages and files (lib/schemas/registry.ts;
 * tests/scripts/request-path.test.ts holds this list to it).
 */
export const API_PREFIXES = ['/api', '/functions', '/oauth', '/mcp', '/docs/mcp', '/ask', '/a2a', '/agent'];

/** Whether `path` is one of API_PREFIXES or below one. */
export function isApiPath(path) {
  return API_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** `url` (a request target: path and query) with its path normalized; the query is left as sent. */
export function normalizeRequestTarget(url) {
  if (!url.startsWith('/')) return url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q);
  if (!path.includes('%') && !path.includes('.') && !path.includes('//') && !path.includes('\\')) return url;
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  // The WHATWG URL parser removes dot segments and keeps the escapes as they are. The path goes
  // after an authority of its own: resolved against a base, `//host/...` (or `/\host/...`) would be
  // read as a network-path reference, its first segment taken for a host (dropped, or refused with
  // a throw that left the request unanswered).
  const normalized = literalWhereUndecodable(new URL(`http://localhost${decoded}`).pathname);
  const single = normalized.replace(/\/{2,}/g, '/');
  if (isApiPath(single)) return single + query;
  // Anything else as before: a page with only extra slashes is Next's to redirect.
  return path.includes('%') || path.includes('.') ? normalized + query : url;
}

/**
 * `path` with each segment that does not percent-decode (a `%` without two hex digits, or escapes
 * of bytes that are no UTF-8) taken as the text it is: its `%` escaped as `%25`. Next decodes a
 * route's segments before any route runs, and answered such a path 500 in plain text, without
 * the API's headers; now its route answers it (under an API prefix, the API's 404).
 */
function literalWhereUndecodable(path) {
  if (!path.includes('%')) return path;
  return path
    .split('/')
    .map((segment) => {
      try {
        decodeURIComponent(segment);
        return segment;
      } catch {
        return segment.replaceAll('%', '%25');
      }
    })
    .join('/');
}
