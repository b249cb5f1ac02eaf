import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  accountSource,
  getDailyEarnings,
  getEarnings,
  getProfile,
  listApiKeys,
  listApps,
  listCampaigns,
  listLicenses,
  type OpenDatabase,
} from '../../account/operations';
import { todayUtc } from '../../account/views';
import { ApiError } from '../../platform/http/errors';
import { describeError, log } from '../../platform/log';
import type { Principal } from '../../identity/oauth/bearer';
import { protectedOperations } from '../../schemas/registry';
import { SCOPES, type Scope } from '../../schemas/account';
import {
  apiKeysBody,
  apiKeysQuery,
  appsBody,
  appsQuery,
  campaignsBody,
  campaignsQuery,
  dailyBody,
  dailyQuery,
  earningsBody,
  licensesBody,
  licensesQuery,
  profileBody,
} from '../../schemas/account';
import { requestsIn } from './http';
import { READ_ONLY, structured, toolError } from './tools';

/**
 * The account tools of `/mcp`. Each is the REST operation that names it in the registry (its
 * `mcpTool`), with that operation's scope: the same account module answers both, the inputs
 * are the REST query parameters (as JSON values) and the output is the REST body, as
 * `structuredContent` under its schema.
 */

export const SERVER_INFO = { name: 'monetize', title: 'Monetize', version: '1.0.0' } as const;

/** `payout_limit` as a JSON integer (the REST parameter is a query-string integer). */
const payoutLimit = z.number().int().min(0).max(50).default(10).describe('How many of the most recent payouts to return, 0 to 50.');
/** `limit` of the campaigns as a JSON integer (the REST parameter is a query-string integer). */
const campaignsLimit = z.number().int().min(1).max(100).default(50).describe('Campaigns per page of results, 1 to 100.');
/** `limit` of the licenses as a JSON integer (the REST parameter is a query-string integer). */
const licensesLimit = z.number().int().min(1).max(100).default(50).describe('Licenses per page of results, 1 to 100.');

/** A server made without the service's cursor key pages nothing (tests that call no paged tool). */
const noCursorKey = () => Promise.reject(new Error('this account server was made without a cursor key'));

/** Each tool's scope and REST operation, read from the registry. */
export const ACCOUNT_TOOLS: Readonly<Record<string, { scope: Scope; rest: string }>> = Object.fromEntries(
  protectedOperations().flatMap(({ method, path, credential, declaration }) =>
    declaration.mcpTool && credential.scope ? [[declaration.mcpTool, { scope: credential.scope, rest: `${method} ${path}` }]] : [],
  ),
);

/** A tool name from a request; own keys only, never an inherited `toString`. */
function isAccountTool(name: unknown): name is string {
  return typeof name === 'string' && Object.hasOwn(ACCOUNT_TOOLS, name);
}

/**
 * The scopes a token lacks for the tool calls in a request (MCP's step-up authorization): the
 * route answers 403 `insufficient_scope` before any tool runs. Calls of unknown tools are left
 * to the server, which answers them as JSON-RPC errors.
 */
export function missingScopes(principal: Principal, body: unknown): Scope[] {
  const needed = new Set<Scope>();
  for (const request of requestsIn(body)) {
    if (request.method !== 'tools/call') continue;
    const name = request.params?.name;
    if (isAccountTool(name)) needed.add(ACCOUNT_TOOLS[name]!.scope);
  }
  return SCOPES.filter((s) => needed.has(s) && !principal.scopes.includes(s));
}

/**
 * A tool's failure as the tool's result (MCP: errors of the call itself, not of the protocol).
 * An ApiError is an answer the caller can act on; anything else is a bug, logged with its cause
 * (the caller sees only the generic message), so that one reached through MCP leaves a trace.
 */
function failed(err: unknown): CallToolResult {
  if (err instanceof ApiError) return toolError(`${err.code}: ${err.message}`);
  log.error('unhandled error in account tool', describeError(err));
  return toolError('The account could not be read; try again, or authorize again if it persists.');
}

/**
 * The account server for one request, bound to its caller, the database it reads and the cursor
 * key that signs and checks the cursors of paged tools (the REST API's, so a cursor works on both).
 */
export function accountServer(
  principal: Principal,
  database: OpenDatabase,
  now: () => number = Date.now,
  cursorKey: () => Promise<Buffer> = noCursorKey,
): McpServer {
  const server = new McpServer(SERVER_INFO, {
    instructions:
      'Read-only tools over the signed-in user’s Monetize account: as a publisher, as an advertiser, and as a data buyer. Each tool needs the OAuth scope named in its description; the sandbox token `svc_sandbox` answers with fixed demo data.',
  });

  const source = accountSource(principal, database, now);
  const run = (name: string, read: () => Promise<object>) => async (): Promise<CallToolResult> => {
    // The route refused missing scopes already; checked again here so no path reaches the data without one.
    const scope = ACCOUNT_TOOLS[name]?.scope;
    if (!scope) throw new Error(`No REST operation in the registry names the MCP tool ${name}`);
    if (!principal.scopes.includes(scope)) return failed(new ApiError('insufficient_scope', `This needs ${scope}.`));
    try {
      return structured(await read());
    } catch (err) {
      return failed(err);
    }
  };

  server.registerTool(
    'whoami',
    {
      title: 'Who am I',
      description: 'The signed-in publisher’s profile: id, name, company, role, email. Scope profile:read; same as GET /api/v1/me.',
      outputSchema: profileBody,
      annotations: READ_ONLY,
    },
    run('whoami', () => getProfile(source)),
  );
  server.registerTool(
    'list_my_apps',
    {
      title: 'List my apps',
      description: 'The publisher’s apps and their ad placements with impressions, clicks and revenue. Scope apps:read; same as GET /api/v1/me/apps.',
      inputSchema: { placement_status: appsQuery.shape.placement_status },
      outputSchema: appsBody,
      annotations: READ_ONLY,
    },
    async (args) => run('list_my_apps', () => listApps(source, args.placement_status))(),
  );
  server.registerTool(
    'get_my_earnings',
    {
      title: 'Get my earnings',
      description: 'Earnings totals and the most recent payouts. Scope earnings:read; same as GET /api/v1/me/earnings.',
      inputSchema: { payout_limit: payoutLimit },
      outputSchema: earningsBody,
      annotations: READ_ONLY,
    },
    async (args) => run('get_my_earnings', () => getEarnings(source, args.payout_limit))(),
  );
  server.registerTool(
    'get_my_daily_earnings',
    {
      title: 'Get my daily earnings',
      description:
        'Revenue, impressions and clicks per day over the last 7, 30 or 90 days, for the account or one app or placement. Scope earnings:read; same as GET /api/v1/me/earnings/daily.',
      inputSchema: { days: dailyQuery.shape.days, app_id: dailyQuery.shape.app_id, placement_id: dailyQuery.shape.placement_id },
      outputSchema: dailyBody,
      annotations: READ_ONLY,
    },
    async (args) => run('get_my_daily_earnings', () => getDailyEarnings(source, args, todayUtc(now())))(),
  );
  server.registerTool(
    'list_my_api_keys',
    {
      title: 'List my API keys',
      description: 'The publisher’s SDK API keys, masked: name, environment, status. Scope api_keys:read; same as GET /api/v1/me/api-keys.',
      inputSchema: { environment: apiKeysQuery.shape.environment },
      outputSchema: apiKeysBody,
      annotations: READ_ONLY,
    },
    async (args) => run('list_my_api_keys', () => listApiKeys(source, args.environment))(),
  );
  server.registerTool(
    'list_my_campaigns',
    {
      title: 'List my ad campaigns',
      description:
        'The user’s ad campaigns as an advertiser: status (and why paused or rejected), dates, budgets, impressions, clicks, CTR, spend and eCPM, conversions, their value, cost per conversion and return on spend, the creatives with their review status, and the advertiser balance; paged by limit and cursor. Scope campaigns:read; same as GET /api/v1/me/campaigns.',
      inputSchema: { status: campaignsQuery.shape.status, limit: campaignsLimit, cursor: campaignsQuery.shape.cursor },
      outputSchema: campaignsBody,
      annotations: READ_ONLY,
    },
    async (args) => run('list_my_campaigns', () => listCampaigns(source, args, cursorKey))(),
  );
  server.registerTool(
    'list_my_licenses',
    {
      title: 'List my data licenses',
      description:
        'The user’s data licenses as a data buyer, newest first: listing, exclusive or not, status (and why rejected), the filter bought, records, bytes, units, price, terms version, dates, and how many deletion notices naming each are not acknowledged yet; with the buyer’s balance, reserved and available funds; paged by limit and cursor. Scope licenses:read; same as GET /api/v1/me/licenses.',
      inputSchema: { status: licensesQuery.shape.status, limit: licensesLimit, cursor: licensesQuery.shape.cursor },
      outputSchema: licensesBody,
      annotations: READ_ONLY,
    },
    async (args) => run('list_my_licenses', () => listLicenses(source, args, cursorKey))(),
  );
  return server;
}
