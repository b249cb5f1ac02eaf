import { sessionUser } from '../identity/auth/session';
import { env } from '../platform/env';
import { addressHash } from '../platform/http/client-ip';
import { OAuthError } from '../platform/http/errors';
import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { absoluteUrl, NO_STORE_HEADERS } from '../platform/http/responses';
import { idempotencyKey, idempotentResponse } from './idempotency';
import { ROUTES } from '../schemas/registry';
import { MAX_AUTHORIZATION_REQUEST } from '../schemas/oauth';
import { authorizationResponseUrl, checkAuthorizationRequest, type AuthorizeCheck } from '../identity/oauth/authorize';
import { lookupClient } from '../identity/oauth/client-lookup';
import { MAX_PENDING_CLIENTS_PER_ADDRESS, registerClient, validateRegistration } from '../identity/oauth/clients';
import { issueCode } from '../identity/oauth/codes';
import { checkConsentToken, consentPage, consentToken, errorPage, PAGE_HEADERS } from '../identity/oauth/consent';
import { authorizationServerMetadata, protectedResourceMetadata, supportedGrantTypes } from '../identity/oauth/metadata';
import { requireOAuthSecrets } from '../identity/secrets';
import { answerTokenRequest } from '../identity/oauth/grants';
import { recordApproval } from '../identity/oauth/approvals';

/** The authorization server's routes: authorize (consent), token, registration, discovery. */

function html(status: number, body: string): Response {
  return new Response(body, { status, headers: PAGE_HEADERS });
}

function redirect(location: string, status = 302): Response {
  return new Response(null, { status, headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });
}

function notValid(check: Exclude<AuthorizeCheck, { kind: 'valid' }>, status: number): Response {
  return check.kind === 'redirect' ? redirect(check.location, status) : html(check.status ?? 400, errorPage(check.title, check.message));
}

function sameOrigin(request: Request): boolean {
  // Browsers send Origin on form POSTs; a foreign one is a cross-site submission.
  const origin = request.headers.get('origin');
  return origin === null || origin === new URL(env().PUBLIC_BASE_URL).origin;
}

/**
 * GET /oauth/authorize shows the consent page (after sign-in); POST /oauth/authorize is the
 * publisher's decision. Both check the whole request again: the form carries it verbatim.
 */
export const authorizeRoute = defineRoute(ROUTES['/oauth/authorize'], {
  GET: async ({ request, url, clientIp, services }) => {
    const secrets = await requireOAuthSecrets(services);
    const db = await services.database();
    // The request as received, without a leading `?`: what the consent form carries back.
    const raw = url.search.replace(/^\?/, '');
    if (raw.length > MAX_AUTHORIZATION_REQUEST) return html(400, errorPage('Invalid request', 'The authorization request is too long.'));
    const check = await checkAuthorizationRequest(url.searchParams, (id) => lookupClient(id, db, services.metadataFetches, clientIp));
    if (check.kind !== 'valid') return notValid(check, 302);
    const user = await sessionUser(request, secrets, db);
    if (!user) return redirect(absoluteUrl(`/signin?callbackUrl=${encodeURIComponent(`/oauth/authorize?${raw}`)}`));
    const csrf = consentToken(secrets.sessionSecret, user.id, raw);
    return html(200, consentPage({ request: check.request, rawRequest: raw, user, csrf }));
  },
  POST: async ({ request, body, clientIp, services }) => {
    const secrets = await requireOAuthSecrets(services);
    const db = await services.database();
    const user = await sessionUser(request, secrets, db);
    if (!user) return html(403, errorPage('Signed out', 'You are no longer signed in, so nothing was approved.'));
    if (!sameOrigin(request) || !checkConsentToken(secrets.sessionSecret, user.id, body.request, body.csrf_token)) {
      return html(403, errorPage('Consent not accepted', 'This approval did not come from a consent page we showed you, or the page was open too long.'));
    }
    const check = await checkAuthorizationRequest(new URLSearchParams(body.request), (id) => lookupClient(id, db, services.metadataFetches, clientIp));
    // 303: the browser follows with a GET, never re-posting the form to the client.
    if (check.kind !== 'valid') return notValid(check, 303);
    const { request: req } = check;
    if (body.decision === 'deny') {
      return redirect(
        authorizationResponseUrl(req.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: req.state }),
        303,
      );
    }
    const binding = {
      clientId: req.client.clientId,
      userId: user.id,
      redirectUri: req.redirectUri,
      codeChallenge: req.codeChallenge,
      scopes: req.scopes,
      resources: req.resources,
    };
    const code = await issueCode(binding, db);
    // What the console lists under connected apps, and lets the publisher withdraw.
    await recordApproval(db, user.id, req.client, req.scopes);
    return redirect(authorizationResponseUrl(req.redirectUri, { code, state: req.state }), 303);
  },
});

/** POST /oauth/token (RFC 6749 §3.2). */
export const tokenRoute = defineRoute(ROUTES['/oauth/token'], {
  POST: ({ request, body, clientIp, services }) => answerTokenRequest(body, request.headers.get('authorization'), services, clientIp),
});

/**
 * POST /oauth/register: dynamic client registration (RFC 7591 §3). With `Idempotency-Key`, a
 * retry with the same body returns the same client (and secret); another body is refused.
 */
export const registerRoute = defineRoute(ROUTES['/oauth/register'], {
  POST: async ({ request, body, clientIp, services }) => {
    await requireOAuthSecrets(services);
    const db = await services.database();
    const key = idempotencyKey(request);
    const input = validateRegistration(body);
    // What one address may leave pending is bounded (lib/identity/oauth/clients.ts), not how often it registers.
    const from = addressHash(await services.sdkSecret(), clientIp);
    const register = async () => {
      const registration = await registerClient(input, from, db);
      if (registration.ok) return registration.client;
      const wait = String(registration.retryAfterS);
      throw new OAuthError(
        'rate_limited',
        `This address has ${MAX_PENDING_CLIENTS_PER_ADDRESS} registered clients nobody approved in the last day: approve or reuse one, or wait ${wait} seconds (Retry-After).`,
        429,
        { 'Retry-After': wait },
      );
    };
    if (key === null) return json(await register(), { status: 201, headers: NO_STORE_HEADERS });
    return idempotentResponse({
      engine: db,
      now: services.now,
      scope: 'oauth_register',
      principal: clientIp,
      key,
      fingerprint: JSON.stringify(input),
      run: async () => ({ status: 201, body: JSON.stringify(await register()) }),
      what: 'registration',
      headers: NO_STORE_HEADERS,
    });
  },
});

/** GET /.well-known/oauth-authorization-server (RFC 8414 §3). */
export const authorizationServerMetadataRoute = defineRoute(ROUTES['/.well-known/oauth-authorization-server'], {
  GET: () => json(authorizationServerMetadata({ grantTypes: supportedGrantTypes() })),
});

/** GET /.well-known/oauth-protected-resource/{api/v1,mcp} (RFC 9728 §3). */
export const apiResourceMetadataRoute = defineRoute(ROUTES['/.well-known/oauth-protected-resource/api/v1'], {
  GET: () => json(protectedResourceMetadata('api')),
});
export const mcpResourceMetadataRoute = defineRoute(ROUTES['/.well-known/oauth-protected-resource/mcp'], {
  GET: () => json(protectedResourceMetadata('mcp')),
});

/** GET /.well-known/jwks.json: the public key that verifies our access tokens (RFC 7517). */
export const jwksRoute = defineRoute(ROUTES['/.well-known/jwks.json'], {
  GET: async ({ services }) => json({ keys: [(await requireOAuthSecrets(services)).publicJwk] }),
});
