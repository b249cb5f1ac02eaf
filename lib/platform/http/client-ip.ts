import { createHmac } from 'node:crypto';
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
  return `${ipv6Groups(ip)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address that `isIP` accepted (any zone dropped). */
export function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  // A trailing dotted IPv4 part (::ffff:127.0.0.1) is two groups.
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array<string>(zeros).fill('0'), ...right].map((g) => parseInt(g, 16));
}

/**
 * The client's address as tables keep it: a keyed hash (so the table holds no address), of the
 * address or, for IPv6, of its /64 network (what one subscriber usually holds).
 */
export function addressHash(key: Buffer, clientIp: string): string {
  return createHmac('sha256', key)
    .update(`address:${senderOf(clientIp)}`)
    .digest('base64url')
    .slice(0, 32);
}

/**
 * The network a client's address belongs to, as ad traffic counts it: the /24 of an IPv4 address,
 * the /64 of an IPv6 one. Carriers and offices move a person between neighbouring addresses of
 * one network, and a fraudster with one network should count as one.
 */
export function networkOf(clientIp: string): string {
  if (clientIp.includes(':')) return senderOf(clientIp);
  const octets = clientIp.split('.');
  return octets.length === 4 ? `${octets.slice(0, 3).join('.')}.0/24` : clientIp;
}

/**
 * Who asked for an ad, as its decision remembers it: a keyed hash of the client's network
 * (`networkOf`) and its user agent. An impression is billable only from the client its ad was
 * served to (content/docs/sdk-integration.md, Counting rules); the hash holds neither. It binds
 * an impression to its ad and nothing more: the user agent is whatever the caller sends, so no
 * cap counts by it (`networkHash`).
 */
export function clientHash(key: Buffer, clientIp: string, userAgent: string | null): string {
  return createHmac('sha256', key)
    .update(`client:${networkOf(clientIp)}\n${userAgent ?? ''}`)
    .digest('base64url')
    .slice(0, 32);
}

/**
 * The client's network as the caps of ad traffic count it: a keyed hash of `networkOf` alone, the
 * /24 or /64, whatever user agent the request names. The frequency cap (per app, network and
 * campaign, public.sdk_network_fills) and the hourly cap of billable impressions (per publisher and
 * network, lib/ads/serving/events.ts) count by it: a new user agent per ad is not a new budget.
 */
export function networkHash(key: Buffer, clientIp: string): string {
  return createHmac('sha256', key)
    .update(`network:${networkOf(clientIp)}`)
    .digest('base64url')
    .slice(0, 32);
}
