/**
 * Redirect URI policy: what a client may register (RFC 7591 §2, RFC 8252 §7, RFC 9700 §2.1) and
 * how a requested URI is matched against the registered ones (RFC 6749 §3.1.2, RFC 9700 §4.1.3:
 * exact string comparison; RFC 8252 §7.3: a loopback URI matches on any port).
 *
 * Matching compares the raw strings. Nothing is normalised first: `http://127.1/cb`,
 * `http://LOCALHOST/cb` and `/a/../cb` are other URIs, not spellings of a registered one.
 */

/** Real redirect URIs are well under 200 characters; ten of these are at most 5 KB a client. */
export const MAX_REDIRECT_URI_LENGTH = 512;
export const MAX_REDIRECT_URIS = 10;

/** Schemes that run code or read local files: never a redirect target (RFC 9700 §4.1.3). */
const FORBIDDEN_SCHEMES = new Set(['javascript', 'data', 'vbscript', 'file', 'blob', 'about', 'filesystem', 'ws', 'wss', 'ftp']);

// `http://` + a loopback host written exactly + an optional port + path and query, no fragment.
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?(\/[^?#]*)?(\?[^#]*)?$/;

export type RedirectUriCheck = { ok: true; kind: 'https' | 'loopback' | 'private-use' } | { ok: false; reason: string };

/** `.` and `..` segments, also percent-encoded: parsers would resolve them to another path. */
function hasDotSegment(rawPath: string): boolean {
  return rawPath.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment));
}

/** May a client register this redirect URI? */
export function checkRedirectUri(uri: string): RedirectUriCheck {
  if (typeof uri !== 'string' || uri.length === 0) return { ok: false, reason: 'a redirect URI must be a non-empty string' };
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return { ok: false, reason: `a redirect URI must be at most ${MAX_REDIRECT_URI_LENGTH} characters` };
  // Control characters, spaces and backslashes are parsed differently by different clients.
  if (/[\u0000-\u0020\u007f\\]/.test(uri)) return { ok: false, reason: 'a redirect URI must not contain spaces, control characters or backslashes' };
  // RFC 6749 §3.1.2: the endpoint URI must not include a fragment component (even an empty one).
  if (uri.includes('#')) return { ok: false, reason: 'a redirect URI must not contain a fragment' };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { ok: false, reason: 'a redirect URI must be an absolute URI' };
  }
  const scheme = url.protocol.slice(0, -1);
  if (FORBIDDEN_SCHEMES.has(scheme)) return { ok: false, reason: `the ${scheme}: scheme is not allowed` };
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(uri)) {
    return { ok: false, reason: 'a redirect URI must not contain user information' };
  }
  // The path as written (URL's pathname has already resolved the dot segments away).
  if (hasDotSegment(uri.replace(/^[a-z][a-z0-9+.-]*:(\/\/[^/?#]*)?/i, '').split('?')[0]!)) {
    return { ok: false, reason: 'a redirect URI must not contain dot segments' };
  }
  if (scheme === 'https') {
    if (!url.hostname) return { ok: false, reason: 'an https redirect URI needs a host' };
    return { ok: true, kind: 'https' };
  }
  if (scheme === 'http') {
    // RFC 8252 §7.3 and §8.3: plain http only to the loopback interface, written literally.
    const m = LOOPBACK.exec(uri);
    if (!m) return { ok: false, reason: 'http redirect URIs are allowed only for 127.0.0.1, localhost and [::1]' };
    if (m[2] !== undefined && Number(m[2]) > 65535) return { ok: false, reason: 'the port is out of range' };
    return { ok: true, kind: 'loopback' };
  }
  // RFC 8252 §7.1: a private-use scheme is a reverse domain name, so it contains a period.
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/i.test(scheme)) return { ok: true, kind: 'private-use' };
  return { ok: false, reason: 'redirect URIs must use https, http on a loopback address, or a private-use scheme such as com.example.app:' };
}

/** Is this URI an http URI on a loopback address (shown as a warning on the consent page)? */
export function isLoopbackRedirect(uri: string): boolean {
  return LOOPBACK.test(uri);
}

/**
 * The registered URI the request names, or null. Exact string match, except that a registered
 * loopback URI matches the same URI on any port (RFC 8252 §7.3): the host as written, the path
 * and the query must be identical.
 */
export function matchRedirectUri(registered: readonly string[], requested: string): string | null {
  if (registered.includes(requested)) return requested;
  const r = LOOPBACK.exec(requested);
  if (!r || (r[2] !== undefined && Number(r[2]) > 65535)) return null;
  for (const candidate of registered) {
    const c = LOOPBACK.exec(candidate);
    if (c && c[1] === r[1] && (c[3] ?? '') === (r[3] ?? '') && (c[4] ?? '') === (r[4] ?? '')) return requested;
  }
  return null;
}

/** The host shown on the consent page: where the browser will be sent. */
export function redirectTarget(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || `${url.protocol}${url.pathname}`.slice(0, 80);
  } catch {
    return uri.slice(0, 80);
  }
}
