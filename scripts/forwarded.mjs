// The forwarding headers a platform writes, written here as one does (scripts/serve.mjs plays the
// platform's part on our own machines; Vercel does the same in production).

/**
 * Appends the socket's peer address to X-Forwarded-For (lib/platform/http/client-ip.ts trusts
 * only the last entry), and drops X-Forwarded-Host, which only a proxy we run may set: Next
 * compares a server action's Origin with X-Forwarded-Host when it is present, so a client that
 * sent `X-Forwarded-Host: evil.example` with `Origin: https://evil.example` would pass the
 * check that keeps other sites from posting the console's forms.
 */
export function platformHeaders(headers, peer) {
  const sent = headers['x-forwarded-for'];
  headers['x-forwarded-for'] = sent ? `${Array.isArray(sent) ? sent.join(', ') : sent}, ${peer}` : peer;
  delete headers['x-forwarded-host'];
}
