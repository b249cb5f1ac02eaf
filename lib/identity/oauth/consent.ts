import { createHmac } from 'node:crypto';
import { sameText } from '../../platform/crypto';
import type { SignedInUser } from '../auth/users';
import type { AuthorizationRequest } from './authorize';
import { isLoopbackRedirect, redirectTarget } from './redirect-uri';
import { SCOPE_DESCRIPTIONS } from './scopes';
import { escapeHtml, htmlPage } from '../../platform/html/page';
import { displayClientName, isolate } from './client-name';

/**
 * The consent page (ARCHITECTURE.md, Tokens and sign-in) and its CSRF token. The page shows the
 * client name, each scope in plain words, the redirect host, a warning for unverified clients
 * and loopback redirects, and Approve and Deny.
 *
 * The token is an HMAC over the signed-in user and the exact authorization request, with a
 * time: stateless, and useless for any other user or request (RFC 9700 §4.7 asks for CSRF
 * protection of the consent decision). The page also refuses to be framed (§4.16).
 */

export const CONSENT_TTL_S = 15 * 60;

function mac(secret: string, userId: string, request: string, issuedAt: number): string {
  return createHmac('sha256', secret).update(`consent\n${userId}\n${issuedAt}\n${request}`).digest('base64url');
}

export function consentToken(secret: string, userId: string, request: string, now = Date.now()): string {
  const issuedAt = Math.floor(now / 1000);
  return `${issuedAt}.${mac(secret, userId, request, issuedAt)}`;
}

export function checkConsentToken(secret: string, userId: string, request: string, token: string | undefined, now = Date.now()): boolean {
  const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token ?? '');
  if (!m) return false;
  const issuedAt = Number(m[1]);
  const age = Math.floor(now / 1000) - issuedAt;
  if (age < 0 || age > CONSENT_TTL_S) return false;
  return sameText(mac(secret, userId, request, issuedAt), m[2]!);
}

/** Headers of every page on the authorization endpoint: not cached, not framed, not indexed. */
export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not no-referrer: under it, browsers send `Origin: null` with the form, and the origin
  // check of the decision would refuse every approval.
  'Referrer-Policy': 'same-origin',
  'X-Robots-Tag': 'noindex, nofollow',
};

export function consentPage(options: { request: AuthorizationRequest; rawRequest: string; user: SignedInUser; csrf: string }): string {
  const { request, user } = options;
  const { client } = request;
  // Isolated (<bdi>, or FSI…PDI in the title) so that its direction cannot reorder the text
  // around it; a name stored before the rule of client-name.ts shows its controls as U+FFFD.
  const name = displayClientName(client.name);
  const target = redirectTarget(request.redirectUri);
  const warnings: string[] = [];
  if (!client.verified) {
    warnings.push(
      client.kind === 'metadata-document'
        ? `This application describes itself at ${escapeHtml(redirectTarget(client.clientId))}; Monetize has not verified who runs it.`
        : 'This application registered itself; Monetize has not verified who runs it. Approve only if you trust it.',
    );
  }
  if (isLoopbackRedirect(request.redirectUri)) {
    warnings.push('It will receive your approval on this computer (a loopback address): make sure you started it yourself.');
  }
  const scopes = request.scopes.map((s) => `<li><strong>${escapeHtml(SCOPE_DESCRIPTIONS[s])}</strong> <code>${escapeHtml(s)}</code></li>`).join('');
  const body = `
<h1><bdi class="client">${escapeHtml(name)}</bdi> wants to read your Monetize account</h1>
<p>Signed in as <strong>${escapeHtml(user.email)}</strong>. <a href="/signin?switch=1&amp;callbackUrl=${encodeURIComponent(`/oauth/authorize?${options.rawRequest}`)}">Not you?</a></p>
<h2>It asks to read</h2>
<ul class="scopes">${scopes}</ul>
<p>Read only: it cannot change anything. Access lasts up to one hour.</p>
<p>After you decide, you will be sent to <strong class="host">${escapeHtml(target)}</strong>.</p>
${warnings.map((w) => `<p class="warning" role="note">${w}</p>`).join('\n')}
<form method="post" action="/oauth/authorize">
  <input type="hidden" name="request" value="${escapeHtml(options.rawRequest)}">
  <input type="hidden" name="csrf_token" value="${escapeHtml(options.csrf)}">
  <button type="submit" name="decision" value="approve" class="primary">Approve</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`;
  return htmlPage({ title: `Authorize ${isolate(name)}`, body });
}

export function errorPage(title: string, message: string): string {
  return htmlPage({
    title,
    body: `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p>Nothing was shared. Go back to the application and start again, or contact its developer.</p><p><a href="/">Monetize home</a></p>`,
  });
}
