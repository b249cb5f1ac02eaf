import { json, API_VERSION } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { absoluteUrl } from '../platform/http/responses';
import { restOperations, ROUTES, type Operation } from '../schemas/registry';
import { indexBody } from '../schemas/api';

/** GET /api/v1: what the API offers, and (with a token) what the token is. */

/** An operation as the index lists it: its summary, and its query parameters. */
function described({ method, path, declaration }: Operation): { method: string; path: string; description: string } {
  const parameters = Object.keys(declaration.query?.shape ?? {});
  const summary = declaration.doc?.summary ?? path;
  return { method, path, description: parameters.length > 0 ? `${summary} (${parameters.join(', ')}).` : `${summary}.` };
}

/** The REST operations anyone may call, each with its summary and its query parameters. */
export function publicEndpoints(): { method: string; path: string; description: string }[] {
  return restOperations()
    .filter((op) => op.declaration.credential.kind !== 'bearer' && !isSdk(op.path))
    .map(described);
}

/** The SDK surface: what a publisher's app calls, with its key in `x-api-key` or an ad's token. */
export function sdkEndpoints(): { method: string; path: string; description: string }[] {
  return restOperations()
    .filter((op) => isSdk(op.path))
    .map(described);
}

function isSdk(path: string): boolean {
  return path.startsWith('/functions/v1/');
}

/** The REST operations that need an access token, each with the scope it needs. */
export function accountEndpoints(): { method: string; path: string; scope: string }[] {
  return restOperations().flatMap(({ method, path, declaration: { credential } }) =>
    credential.kind === 'bearer' && credential.scope ? [{ method, path, scope: credential.scope }] : [],
  );
}

export function indexDocument() {
  return {
    name: 'Monetize API',
    version: API_VERSION,
    openapi: absoluteUrl('/api/v1/openapi.json'),
    auth: absoluteUrl('/.well-known/oauth-authorization-server'),
    public_endpoints: publicEndpoints(),
    account_endpoints: accountEndpoints(),
    sdk_endpoints: sdkEndpoints(),
  };
}

export const indexRoute = defineRoute(
  ROUTES['/api/v1'],
  {
    GET: ({ principal, services }) => {
      if (!principal) return json(indexBody.parse(indexDocument()));
      // The sandbox token does not expire; an hour ahead keeps clients that renew by it working.
      const expiresAt = principal.kind === 'user' ? principal.expiresAt.getTime() : services.now() + 3600_000;
      const body = { ...indexDocument(), token: { scopes: principal.scopes, expires_at: Math.floor(expiresAt / 1000) } };
      if (principal.kind === 'sandbox') return json(indexBody.parse({ ...body, sandbox: true }), { headers: { 'Service-Sandbox': 'true' } });
      return json(indexBody.parse(body));
    },
  },
  // The 401 of an invalid token still lists what works without one.
  { errorExtra: (error) => (error.status === 401 ? indexDocument() : undefined) },
);
