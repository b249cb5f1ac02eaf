import { z } from 'zod';
import { ApiError } from '../http/errors';
import { json, method, type RouteSpec } from '../http/kernel';
import { absoluteUrl } from '../http/responses';
import { authenticate, type Principal } from '../oauth/bearer';
import { operationsOf } from '../openapi/operations';
import { SCOPES } from '../schemas/account';
import { API_VERSION } from '../http/kernel';

/** GET /api/v1: what the API offers, and (with a token) what the token is. */

export const PUBLIC_ENDPOINTS = [
  { method: 'GET', path: '/api/v1', description: 'This index.' },
  { method: 'GET', path: '/api/v1/search', description: 'Search the docs and product pages (q, limit, cursor).' },
  { method: 'GET', path: '/api/v1/pricing', description: 'Current pricing (audience).' },
  { method: 'GET', path: '/api/v1/pages', description: 'The public pages and their markdown twins (limit, cursor).' },
  { method: 'GET', path: '/api/v1/openapi.json', description: 'The OpenAPI 3.1 description of this API.' },
  { method: 'POST', path: '/api/v1/batch', description: 'Up to 20 GET requests in one call; the Authorization header applies to each.' },
] as const;

export const ACCOUNT_ENDPOINTS = [
  { method: 'GET', path: '/api/v1/me', scope: 'profile:read' },
  { method: 'GET', path: '/api/v1/me/apps', scope: 'apps:read' },
  { method: 'GET', path: '/api/v1/me/earnings', scope: 'earnings:read' },
  { method: 'GET', path: '/api/v1/me/api-keys', scope: 'api_keys:read' },
] as const satisfies readonly { method: string; path: string; scope: (typeof SCOPES)[number] }[];

const endpoint = z.object({ method: z.string(), path: z.string(), description: z.string() });

export const indexBody = z.object({
  name: z.string(),
  version: z.string(),
  openapi: z.string().url(),
  auth: z.string().url().describe('The authorization server metadata (RFC 8414).'),
  public_endpoints: z.array(endpoint),
  account_endpoints: z.array(z.object({ method: z.string(), path: z.string(), scope: z.string() })),
  token: z.object({ scopes: z.array(z.string()), expires_at: z.number().int() }).optional().describe('Describes the presented token.'),
  error: z.object({ status: z.number().int(), code: z.string(), message: z.string() }).optional().describe('Present on a 401.'),
});

export function indexDocument() {
  return {
    name: 'Monetize API',
    version: API_VERSION,
    openapi: absoluteUrl('/api/v1/openapi.json'),
    auth: absoluteUrl('/.well-known/oauth-authorization-server'),
    public_endpoints: PUBLIC_ENDPOINTS.map((e) => ({ ...e })),
    account_endpoints: ACCOUNT_ENDPOINTS.map((e) => ({ ...e })),
  };
}

export const indexRoute: RouteSpec = {
  name: 'index',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    GET: method({
      cache: 'public, max-age=300',
      handler: async ({ request }) => {
        let principal: Principal | null;
        try {
          principal = await authenticate(request, 'api', { required: false });
        } catch (err) {
          // The 401 of the spec still lists what works without a token.
          if (err instanceof ApiError && err.status === 401) throw new ApiError(err.code, err.message, err.headers, indexDocument());
          throw err;
        }
        if (!principal) return json(indexBody.parse(indexDocument()));
        // The sandbox token does not expire; an hour ahead keeps clients that renew by it working.
        const expiresAt = principal.kind === 'user' ? principal.expiresAt.getTime() : Date.now() + 3600_000;
        const body = indexBody.parse({ ...indexDocument(), token: { scopes: principal.scopes, expires_at: Math.floor(expiresAt / 1000) } });
        if (principal.kind === 'sandbox') return json({ ...body, sandbox: true }, { headers: { 'Service-Sandbox': 'true' } });
        return json(body);
      },
    }),
  },
};

export const indexOperations = operationsOf('/api/v1', indexRoute, {
  GET: {
    operationId: 'getIndex',
    summary: 'What the API offers, and what the presented token is',
    tags: ['Public'],
    security: 'optional-bearer',
    responses: {
      200: { description: 'The index; `token` describes the presented token.', schema: indexBody },
      401: {
        description: 'The presented token is invalid. The body is an Error and still lists the public endpoints.',
        schema: indexBody.required({ error: true }),
        headers: { 'WWW-Authenticate': 'A Bearer challenge with `resource_metadata`.' },
      },
    },
  },
});
