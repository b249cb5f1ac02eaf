/**
 * The client's address for rate limiting: the address our own platform appended to
 * `X-Forwarded-For`, never a value the client chose, so a client cannot pick the address it is
 * counted by.
 *
 * - On Vercel the platform overwrites `X-Forwarded-For` with the client's address.
 * - Locally, `scripts/serve.mjs` (our platform for `npm run dev` and `npm start`) appends the
 *   socket's peer address, so the last entry is ours even when the client sent its own header.
 *
 * Either way the last entry is the one we trust.
 */
export function clientIp(headers: Headers): string {
  const forwarded = headers.get('x-forwarded-for');
  if (!forwarded) return 'unknown';
  // The last non-empty entry (a trailing comma leaves an empty one).
  const entries = forwarded.split(',');
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i]!.trim();
    if (entry) return normalizeIp(entry);
  }
  return 'unknown';
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
export function normalizeIp(ip: string): string {
  const lower = ip.toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower;
}

/**
 * Who a request comes from, for counting: the address, or for IPv6 its /64 network, which is
 * what one subscriber usually holds (RFC 6177), so that one network counts as one sender and
 * not as millions of fresh budgets. The API rate limit and the sign-in throttle both count by it.
 */
export function senderOf(ip: string): string {
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => (g || '0').replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
