import { env } from '../platform/env';
import { ApiError } from '../platform/http/errors';
import { callerOf, hostOrOriginRefusal, hostOriginPolicy } from '../platform/http/host-origin';
import { defineRoute } from './kernel';
import { bearerChallenge } from '../identity/oauth/challenge';
import { ROUTES } from '../schemas/registry';
import { SCOPES } from '../schemas/account';
import { accountServer, missingScopes } from '../agents/mcp/account-tools';
import { docsServer } from '../agents/mcp/docs-tools';
import { readMcpRequest, requestsIn, type McpExchange } from '../agents/mcp/http';

/**
 * POST /mcp (account tools, bearer token for the MCP resource) and POST /docs/mcp (public).
 * Stateless Streamable HTTP: GET and DELETE, which open a stream or end a session, answer 405.
 */

/**
 * DNS-rebinding protection (lib/platform/http/host-origin.ts): a request for another host, or from a web
 * page on an origin this deployment does not allow, is a 403 before any message is read. At
 * /mcp it runs after the token check, so a request without a valid token is still the 401 that
 * starts authorization.
 */
function checkHostAndOrigin(request: Request): void {
  const refusal = hostOrOriginRefusal(hostOriginPolicy(env()), callerOf(request));
  if (refusal) throw new ApiError('forbidden', refusal);
}

/** A JSON-RPC batch costs what its requests would cost sent one by one (as /api/v1/batch does). */
async function chargeBatch(charge: (units: number) => Promise<void>, exchange: McpExchange): Promise<void> {
  if (Array.isArray(exchange.body)) await charge(requestsIn(exchange.body).length - 1);
}

export const mcpRoute = defineRoute(ROUTES['/mcp'], {
  POST: async ({ request, principal, charge, services }) => {
    checkHostAndOrigin(request);
    const exchange = await readMcpRequest(request);
    await chargeBatch(charge, exchange);
    const missing = missingScopes(principal, exchange.body);
    if (missing.length > 0) {
      // MCP step-up authorization: name what is missing, and keep what the token already has,
      // so that authorizing again with this list loses nothing.
      const scope = SCOPES.filter((s) => principal.scopes.includes(s) || missing.includes(s)).join(' ');
      throw new ApiError('insufficient_scope', `This tool call needs the ${missing.join(' and ')} scope: authorize again asking for it.`, {
        'WWW-Authenticate': bearerChallenge({
          resource: 'mcp',
          error: 'insufficient_scope',
          scope,
          description: `The ${missing.join(', ')} scope is required`,
        }),
      });
    }
    return exchange.answer(accountServer(principal, services.database, services.now, services.cursorKey));
  },
});

export const docsMcpRoute = defineRoute(ROUTES['/docs/mcp'], {
  POST: async ({ request, charge, services }) => {
    checkHostAndOrigin(request);
    const exchange = await readMcpRequest(request);
    await chargeBatch(charge, exchange);
    return exchange.answer(docsServer(services.pricing));
  },
});
