import { isLoopbackHostname, parseHost } from './host-origin';

/**
 * The security headers of the site (ARCHITECTURE.md, Security headers). Two sets:
 *
 * - every answer, API and files included (next.config.ts): `X-Content-Type-Options: nosniff`
 *   and a `Referrer-Policy`;
 * - every page (proxy.ts, which runs for page paths only): a Content-Security-Policy with a
 *   fresh nonce, `X-Frame-Options: DENY`, and HSTS when the deployment is on https.
 *
 * No `Vary: Accept` on pages, although a content page's URL also answers its markdown twin for
 * `Accept: text/markdown` (next.config.ts): Next sets a page's `Vary` itself, replacing any set
 * before it (`res.setHeader('Vary', …)` in its app-page handler), and offers pages no way to add
 * to it. The twin says `Vary: Accept`, and the page's HTML is `no-store` now that every page is
 * rendered per request, so no cache can keep the HTML and hand it to a client asking for
 * markdown, nor the other way round.
 *
 * Why a nonce, and so why every page is rendered per request: the App Router puts the page's
 * React Server Components payload in inline scripts (`self.__next_f.push(…)`). A policy that
 * allows them must name a nonce, their hashes or `'unsafe-inline'`. `'unsafe-inline'` would leave
 * the script policy protecting nothing; hashes of a static page's inline scripts are not
 * published by Next (its experimental SRI covers only the external chunks), and a dynamic page's
 * change with every request. A nonce works for both, and Next puts it on its own scripts when the
 * request carries the policy, but only while rendering: a page prerendered at build time has no
 * nonce, so the root layout renders every page per request (`dynamic = 'force-dynamic'`). The
 * price is the static HTML of the public pages and their CDN caching; their markdown twins,
 * `llms.txt` and the API stay cacheable.
 *
 * The policy, directive by directive:
 * - scripts: this origin's files (Next's chunks, `/sdk/*.js`) and inline scripts carrying the
 *   nonce; `'unsafe-eval'` only in development, where React needs it. No `'strict-dynamic'`: our
 *   scripts come from our own origin, whose other answers cannot run as script (`nosniff`).
 * - styles: this origin, and inline. The SDK (on /demo) and the toasts (sonner) add their
 *   stylesheets as `<style>` elements, and React renders `style` attributes (the SDK's reserved
 *   room, the console's charts, Radix's dialogs); none of them can carry a nonce. Inline styles
 *   cannot run code.
 * - images and media: this origin, `data:` images, and any https host: ads show their
 *   advertisers' creatives (images, and the floating video's WebM).
 * - fetches, forms, frames and everything else: this origin only; no plugins (`object-src`), no
 *   `<base>`, and no page of ours inside anyone's frame (`frame-ancestors 'none'`, with
 *   `X-Frame-Options: DENY` for browsers that predate it).
 */

/** Headers for every answer, set in next.config.ts. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'X-Content-Type-Options': 'nosniff',
  // Our pages' addresses carry authorization requests and console ids: other sites get the origin only.
  'Referrer-Policy': 'strict-origin-when-cross-origin',
};

/** One year; subdomains included, since a deployment's own subdomains serve nothing over http either. */
export const HSTS = 'max-age=31536000; includeSubDomains';

/** A nonce for one response: 128 random bits, base64 (what Next's nonce parser accepts). */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

export function contentSecurityPolicy(nonce: string, options: { dev?: boolean } = {}): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'${options.dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: https:",
    "media-src 'self' https:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Whether to send HSTS: when the deployment's public URL is https, or the platform in front says
 * the request came over https (`X-Forwarded-Proto`, which Vercel sets). Never to a loopback
 * host: HSTS there would follow the developer to every other local server on that name.
 * (Browsers ignore it over plain http anyway.)
 */
export function wantsHsts(request: { publicBaseUrl: string; host: string | null; forwardedProto: string | null }): boolean {
  const base = new URL(request.publicBaseUrl);
  const hostname = (request.host && parseHost(request.host)?.hostname) || base.hostname;
  if (isLoopbackHostname(hostname)) return false;
  return base.protocol === 'https:' || request.forwardedProto?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/** The headers of one page answer (besides COMMON_SECURITY_HEADERS, which every answer gets). */
export function pageSecurityHeaders(page: { nonce: string; hsts: boolean; dev?: boolean }): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Security-Policy': contentSecurityPolicy(page.nonce, { dev: page.dev }),
    'X-Frame-Options': 'DENY',
  };
  if (page.hsts) headers['Strict-Transport-Security'] = HSTS;
  return headers;
}
