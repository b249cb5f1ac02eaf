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
