import { z } from 'zod';
import { OAuthError } from '../platform/http/errors';
import { readBody } from '../platform/http/input';
import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { NO_STORE_HEADERS } from '../platform/http/responses';
import { requireOAuthSecrets } from '../identity/secrets';
import { ROUTES } from '../schemas/registry';
import { agentRegistrationEnabled, issueIdentityAssertion, registrationBody, registrationType } from '../identity/oauth/agent-identity';

/**
 * POST /agent/identity: anonymous agent registration. OAuth error style (`{error,
 * error_description}`): its codes `service_auth_not_enabled` and `issuer_not_enabled` are
 * OAuth-style codes, and its answer is a credential for the token endpoint.
 */
export const agentIdentityRoute = defineRoute(ROUTES['/agent/identity'], {
  POST: async ({ request, url, services }) => {
    // Off: a 404 like an unknown path, before the body is read, whatever the body.
    if (!agentRegistrationEnabled()) throw new OAuthError('not_found', `Nothing is served at ${url.pathname}.`, 404);
    registrationType(await readBody(request, z.unknown(), 'json'));
    const registration = await issueIdentityAssertion(await requireOAuthSecrets(services), services.now());
    return json(registrationBody(registration), { status: 201, headers: NO_STORE_HEADERS });
  },
});
