import { z } from 'zod';
import { sessionUser } from '../auth/session';
import { method, type RouteSpec } from '../http/kernel';
import { absoluteUrl } from '../http/responses';
import { env } from '../env';
import { authorizationResponseUrl, checkAuthorizationRequest, type AuthorizeCheck } from './authorize';
import { lookupClient } from './client-lookup';
import { issueCode } from './codes';
import { checkConsentToken, consentPage, consentToken, errorPage, PAGE_HEADERS } from './consent';
import { requireOAuthSecrets } from './secrets';

/**
 * GET /oauth/authorize shows the consent page (after sign-in); POST /oauth/authorize is the
 * publisher's decision. Both re-check the whole request: the form carries it verbatim.
 */

function html(status: number, body: string): Response {
  return new Response(body, { status, headers: PAGE_HEADERS });
}

function redirect(location: string, status = 302): Response {
  return new Response(null, { status, headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } });
}

function notValid(check: Exclude<AuthorizeCheck, { kind: 'valid' }>, status: number): Response {
  return check.kind === 'redirect' ? redirect(check.location, status) : html(400, errorPage(check.title, check.message));
}

const MAX_REQUEST = 8 * 1024;

const decisionForm = z.object({
  request: z.string().max(MAX_REQUEST),
  csrf_token: z.string().max(200).optional(),
  decision: z.enum(['approve', 'deny']),
});

/** The request as received, without a leading `?`: what the consent form carries back. */
function rawQuery(url: URL): string {
  return url.search.replace(/^\?/, '');
}

function sameOrigin(request: Request): boolean {
  // Browsers send Origin on form POSTs; a foreign one is a cross-site submission.
  const origin = request.headers.get('origin');
  return origin === null || origin === new URL(env().PUBLIC_BASE_URL).origin;
}

export const authorizeRoute: RouteSpec = {
  name: 'oauth-authorize',
  errors: 'oauth',
  methods: {
    GET: method({
      handler: async ({ request, url }) => {
        const secrets = await requireOAuthSecrets();
        const raw = rawQuery(url);
        if (raw.length > MAX_REQUEST) return html(400, errorPage('Invalid request', 'The authorization request is too long.'));
        const check = await checkAuthorizationRequest(url.searchParams, (id) => lookupClient(id));
        if (check.kind !== 'valid') return notValid(check, 302);
        const user = await sessionUser(request, secrets);
        if (!user) return redirect(absoluteUrl(`/signin?callbackUrl=${encodeURIComponent(`/oauth/authorize?${raw}`)}`));
        const csrf = consentToken(secrets.sessionSecret, user.id, raw);
        return html(200, consentPage({ request: check.request, rawRequest: raw, user, csrf }));
      },
    }),
    POST: method({
      body: decisionForm,
      bodyType: 'form',
      handler: async ({ request, body }) => {
        const secrets = await requireOAuthSecrets();
        const user = await sessionUser(request, secrets);
        if (!user) return html(403, errorPage('Signed out', 'You are no longer signed in, so nothing was approved.'));
        if (!sameOrigin(request) || !checkConsentToken(secrets.sessionSecret, user.id, body.request, body.csrf_token)) {
          return html(403, errorPage('Consent not accepted', 'This approval did not come from a consent page we showed you, or the page was open too long.'));
        }
        const check = await checkAuthorizationRequest(new URLSearchParams(body.request), (id) => lookupClient(id));
        // 303: the browser follows with a GET, never re-posting the form to the client.
        if (check.kind !== 'valid') return notValid(check, 303);
        const { request: req } = check;
        if (body.decision === 'deny') {
          return redirect(
            authorizationResponseUrl(req.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: req.state }),
            303,
          );
        }
        const code = await issueCode({
          clientId: req.client.clientId,
          userId: user.id,
          redirectUri: req.redirectUri,
          codeChallenge: req.codeChallenge,
          scopes: req.scopes,
          resources: req.resources,
        });
        return redirect(authorizationResponseUrl(req.redirectUri, { code, state: req.state }), 303);
      },
    }),
  },
};
