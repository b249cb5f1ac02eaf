import { encode } from 'next-auth/jwt';
import { sessionCookieName } from '@/lib/identity/auth/options';
import { s256 } from '@/lib/identity/oauth/pkce';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import { handlersOf } from './routes';
import { testServices } from './services';

/**
 * Drives the OAuth endpoints through their route handlers, the way a browser and a client would:
 * register, open the consent page with a signed-in session, decide, exchange the code.
 */

export const BASE = 'http://localhost:3000';
const authorize = handlersOf('/oauth/authorize');
const register = handlersOf('/oauth/register');
const token = handlersOf('/oauth/token');
const ctx = { params: Promise.resolve({}) };
let peer = 0;
/** Each request from its own address, so no test spends another's rate-limit budget. */
const forwarded = () => ({ 'x-forwarded-for': `198.51.100.${(peer++ % 250) + 1}` });

export const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const CHALLENGE = s256(VERIFIER);

export async function registerClient(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await register.POST(
    new Request(`${BASE}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...forwarded(), ...headers },
      body: JSON.stringify(body),
    }),
    ctx,
  );
  return { res, body: (await res.json()) as Record<string, unknown> & { client_id: string; client_secret?: string } };
}

export async function publicClient(redirectUris = ['http://127.0.0.1:8765/callback'], name = 'Test Tool') {
  const { body } = await registerClient({ client_name: name, redirect_uris: redirectUris, token_endpoint_auth_method: 'none' });
  return body.client_id;
}

export async function sessionCookie(userId: string): Promise<string> {
  const { sessionSecret } = await requireOAuthSecrets(testServices());
  return `${sessionCookieName()}=${await encode({ token: { sub: userId }, secret: sessionSecret })}`;
}

export function authorizeParams(clientId: string, extra: Record<string, string | null> = {}): URLSearchParams {
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:8765/callback',
    state: 'st-123',
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    ...extra,
  };
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null) out.append(k, v);
  return out;
}

export async function openAuthorize(query: string, cookie?: string) {
  return authorize.GET(new Request(`${BASE}/oauth/authorize?${query}`, { headers: cookie ? { cookie } : {} }), ctx);
}

/** The hidden fields of the consent form. */
export function consentForm(html: string): { request: string; csrf: string } {
  const field = (name: string) => {
    const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
    if (!m) throw new Error(`no ${name} field on the page`);
    return m[1]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  };
  return { request: field('request'), csrf: field('csrf_token') };
}

export async function decide(form: Record<string, string>, cookie: string, headers: Record<string, string> = {}) {
  return authorize.POST(
    new Request(`${BASE}/oauth/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin: BASE, ...headers },
      body: new URLSearchParams(form).toString(),
    }),
    ctx,
  );
}

/** Runs authorize → consent → approve; answers the URL the browser is sent to. */
export async function approve(clientId: string, userId: string, extra: Record<string, string | null> = {}): Promise<URL> {
  const cookie = await sessionCookie(userId);
  const page = await openAuthorize(authorizeParams(clientId, extra).toString(), cookie);
  if (page.status !== 200) throw new Error(`consent page answered ${page.status}: ${page.headers.get('location') ?? ''}`);
  const { request, csrf } = consentForm(await page.text());
  const res = await decide({ request, csrf_token: csrf, decision: 'approve' }, cookie);
  if (res.status !== 303) throw new Error(`approval answered ${res.status}`);
  return new URL(res.headers.get('location')!);
}

export async function exchange(form: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await token.POST(
    new Request(`${BASE}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...forwarded(), ...headers },
      body: new URLSearchParams(form).toString(),
    }),
    ctx,
  );
  return { res, body: (await res.json()) as Record<string, unknown> };
}

export function codeGrant(clientId: string, code: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1:8765/callback',
    client_id: clientId,
    code_verifier: VERIFIER,
    ...extra,
  };
}
