import { ApiError } from '../http/errors';
import { method, type RequestContext, type RouteSpec } from '../http/kernel';
import { authenticate, type Principal } from '../oauth/bearer';
import { bearerChallenge } from '../oauth/challenge';
import { SCOPES } from '../oauth/scopes';
import { accountServer, missingScopes } from './account-tools';
import { docsServer } from './docs-tools';
import { readMcpRequest, requestsIn, type McpExchange } from './http';

/**
 * POST /mcp (account tools, bearer token for the MCP resource) and POST /docs/mcp (public).
 * Stateless Streamable HTTP: GET and DELETE, which open a stream or end a session, answer 405.
 */

/** A JSON-RPC batch costs what its requests would cost sent one by one (as /api/v1/batch does). */
async function chargeBatch(ctx: RequestContext<unknown, unknown>, exchange: McpExchange): Promise<void> {
  if (Array.isArray(exchange.body)) await ctx.charge(requestsIn(exchange.body).length - 1);
}

export const mcpRoute: RouteSpec = {
  name: 'mcp',
  rateLimit: true,
  cors: 'public',
  methods: {
    POST: method({
      authorize: (request) => authenticate(request, 'mcp'),
      handler: async (ctx) => {
        const principal = ctx.auth as Principal;
        const exchange = await readMcpRequest(ctx.request);
        await chargeBatch(ctx, exchange);
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
        return exchange.answer(accountServer(principal));
      },
    }),
  },
};

export const docsMcpRoute: RouteSpec = {
  name: 'docs-mcp',
  rateLimit: true,
  cors: 'public',
  methods: {
    POST: method({
      handler: async (ctx) => {
        const exchange = await readMcpRequest(ctx.request);
        await chargeBatch(ctx, exchange);
        return exchange.answer(docsServer());
      },
    }),
  },
};
