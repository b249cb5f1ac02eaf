// The request path as the router should see it (scripts/serve.mjs). RFC 3986 §6.2.2.2: a
// percent-encoded unreserved character (a letter, a digit, `-`, `.`, `_`, `~`) is that
// character, so `/api/v1/%73earch` is `/api/v1/search`; other escapes stay escaped, with their
// hex digits in uppercase (§6.2.2.1). Then dot segments are removed (§6.2.2.3), as a browser
// would before sending. Next's router answered such paths 500 ("Attempted to handle request too
// many times"); normalized, they reach the route they name, or its 404.

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** `url` (a request target: path and query) with its path normalized; the query is left as sent. */
export function normalizeRequestTarget(url) {
  if (!url.startsWith('/')) return url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const query = q < 0 ? '' : url.slice(q);
  if (!path.includes('%') && !path.includes('.')) return url;
  const decoded = path.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : escape.toUpperCase();
  });
  // The WHATWG URL parser removes dot segments and keeps the escapes as they are. The path goes
  // after an authority of its own: resolved against a base, `//host/...` (or `/\host/...`) would be
  // read as a network-path reference, its first segment taken for a host (dropped, or refused with
  // a throw that left the request unanswered).
  return new URL(`http://localhost${decoded}`).pathname + query;
}
