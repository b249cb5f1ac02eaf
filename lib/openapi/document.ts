import { z } from 'zod';
import { indexOperations } from '../api/index';
import { pagesOperations } from '../content/routes';
import { env } from '../env';
import { ERROR_CODES } from '../http/errors';
import { API_VERSION } from '../http/kernel';
import { pricingOperations } from '../pricing/route';
import { SCOPE_DESCRIPTIONS } from '../oauth/scopes';
import { apiKeysRoute, appsRoute, earningsRoute, profileRoute } from '../account/routes';
import { batchRoute } from '../batch/route';
import type { RouteSpec } from '../http/kernel';
import { SCOPES, appsBody, apiKeysBody, earningsBody, profileBody } from '../schemas/account';
import { batchBody, idempotencyKeyHeader } from '../schemas/batch';
import { apiErrorBody } from '../schemas/common';
import { searchOperations } from '../search/route';
import { operationsOf, type ApiOperation, type ResponseDoc } from './operations';
import { openApiOperations } from './route';

/**
 * The OpenAPI 3.1 document of /api/v1, generated from the zod schemas the handlers validate
 * with (DESIGN.md, REST conventions). Built once per process.
 */

type Json = Record<string, unknown>;


const accountError = (description: string): ResponseDoc => ({ description, schema: apiErrorBody });
const challenged = (description: string): ResponseDoc => ({
  ...accountError(description),
  headers: { 'WWW-Authenticate': 'A Bearer challenge (RFC 6750) with `resource_metadata` (RFC 9728).' },
});

/**
 * Account operations share their errors: 401, 403, 502 (spec, Account operations). The query
 * schema is the one the route validates with (operationsOf reads it from the route).
 */
function accountOperation(
  path: string,
  route: RouteSpec,
  operationId: string,
  summary: string,
  scope: (typeof SCOPES)[number],
  body: z.ZodType,
): ApiOperation {
  const query = route.methods.GET?.query;
  const responses: Record<number, ResponseDoc> = {
      200: { description: 'The data of the user who approved the token (sandbox data for `svc_sandbox`).', schema: body },
      401: challenged('No token, or an invalid, expired or foreign one: run discovery and the flow again.'),
      403: challenged(`The token lacks the \`${scope}\` scope: \`error="insufficient_scope"\`, \`scope="${scope}"\`.`),
      502: accountError('The account data could not be loaded (`account_unavailable`): authorize again.'),
  };
  if (query) responses[400] = accountError('An invalid filter parameter.');
  return operationsOf(path, route, { GET: { operationId, summary, tags: ['Account'], security: 'bearer', scope, responses } })[0]!;
}

export const ACCOUNT_OPERATIONS: ApiOperation[] = [
  accountOperation('/api/v1/me', profileRoute, 'getProfile', "The user's profile", 'profile:read', profileBody),
  accountOperation('/api/v1/me/apps', appsRoute, 'listApps', "The user's apps and ad placements", 'apps:read', appsBody),
  accountOperation('/api/v1/me/earnings', earningsRoute, 'getEarnings', "The user's earnings and recent payouts", 'earnings:read', earningsBody),
  accountOperation('/api/v1/me/api-keys', apiKeysRoute, 'listApiKeys', "The user's API keys, masked", 'api_keys:read', apiKeysBody),
];

export const [BATCH_OPERATION] = operationsOf('/api/v1/batch', batchRoute, {
  POST: {
    operationId: 'batch',
    summary: 'Run up to 20 GET requests in one call',
    description:
      'Sub-requests run in parallel through the same handlers, with the caller’s Authorization header; answers come back in request order. Each sub-request costs one unit of rate limit.',
    tags: ['Batch'],
    security: 'optional-bearer',
    requestHeaders: [{ name: 'Idempotency-Key', schema: idempotencyKeyHeader, description: 'A retry with the same key and body returns the original result.' }],
    responses: {
      200: { description: 'The sub-responses in request order.', schema: batchBody, headers: { 'Idempotency-Key': 'The key, echoed.' } },
      400: { description: 'A malformed batch, or a reused Idempotency-Key with another body.', schema: apiErrorBody },
      409: { description: 'A request with the same Idempotency-Key is still running.', schema: apiErrorBody },
    },
  },
}) as [ApiOperation];

export function allOperations(): ApiOperation[] {
  return [...indexOperations, ...searchOperations, ...pricingOperations, ...pagesOperations, ...openApiOperations, ...ACCOUNT_OPERATIONS, BATCH_OPERATION];
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  return out;
}

const COMMON_HEADERS: Record<string, Json> = {
  'API-Version': { description: 'The API version that answered.', schema: { type: 'string', example: API_VERSION } },
  RateLimit: { description: 'Remaining quota and seconds to reset: `"default";r=<left>;t=<s>`.', schema: { type: 'string' } },
  'RateLimit-Policy': { description: 'The policy in force: `"default";q=<quota>;w=<window>`.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per window.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window resets (Unix seconds).', schema: { type: 'integer' } },
};

function headerRefs(): Json {
  return Object.fromEntries(Object.keys(COMMON_HEADERS).map((h) => [h, { $ref: `#/components/headers/${h}` }]));
}

function response(doc: ResponseDoc): Json {
  const headers: Json = headerRefs();
  for (const [name, description] of Object.entries(doc.headers ?? {})) headers[name] = { description, schema: { type: 'string' } };
  const out: Json = { description: doc.description, headers };
  if (doc.schema) {
    out.content = {
      [doc.contentType ?? 'application/json']: {
        schema: doc.schema === apiErrorBody ? { $ref: '#/components/schemas/Error' } : jsonSchema(doc.schema, 'output'),
      },
    };
  }
  return out;
}

function parameters(op: ApiOperation): Json[] {
  const params: Json[] = [];
  for (const [name, field] of Object.entries(op.query?.shape ?? {}) as [string, z.ZodType][]) {
    const schema = jsonSchema(field, 'input');
    const meta = z.globalRegistry.get(field) as { default?: unknown; description?: string } | undefined;
    if (meta?.default !== undefined && schema.default === undefined) schema.default = meta.default;
    const description = (schema.description as string | undefined) ?? meta?.description ?? field.description;
    delete schema.description;
    params.push({ name, in: 'query', required: !field.safeParse(undefined).success, description, schema });
  }
  for (const h of op.requestHeaders ?? []) {
    params.push({ name: h.name, in: 'header', required: false, description: h.description, schema: jsonSchema(h.schema, 'input') });
  }
  return params;
}

function security(op: ApiOperation): Json[] | undefined {
  const scopes = op.scope ? [op.scope] : [];
  const bearer = [{ oauth2: scopes }, { sandbox: [] }];
  if (op.security === 'none') return [];
  if (op.security === 'bearer') return bearer;
  return [{}, ...bearer];
}

function operation(op: ApiOperation): Json {
  const responses: Json = {};
  for (const [status, doc] of Object.entries(op.responses)) responses[status] = response(doc);
  responses['429'] = {
    ...response({ description: 'Rate limit exceeded: wait `Retry-After` seconds.', schema: apiErrorBody }),
  };
  (responses['429'] as { headers: Json }).headers['Retry-After'] = { description: 'Seconds to wait.', schema: { type: 'integer' } };
  const out: Json = {
    operationId: op.operationId,
    summary: op.summary,
    tags: op.tags,
    parameters: parameters(op),
    responses,
  };
  if (op.description) out.description = op.description;
  const sec = security(op);
  if (sec) out.security = sec;
  if (op.body) out.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(op.body, 'input') } } };
  if (op.deprecated) out.deprecated = true;
  return out;
}

export function buildOpenApiDocument(operations: ApiOperation[] = allOperations()): Json {
  const base = env().PUBLIC_BASE_URL;
  const paths: Record<string, Json> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path]![op.method] = operation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Monetize API',
      version: API_VERSION,
      description:
        'Public reads (search, pricing, pages), read-only account data with the user’s consent (OAuth 2.0 with PKCE), and batch. Errors use the envelope `{"error": {"status", "code", "message"}}`.',
    },
    servers: [{ url: base }],
    tags: [
      { name: 'Public', description: 'No credential needed.' },
      { name: 'Account', description: 'A bearer token with the listed scope, or the sandbox token.' },
      { name: 'Batch', description: 'Several GET requests in one call.' },
    ],
    paths,
    components: {
      schemas: {
        Error: {
          ...jsonSchema(apiErrorBody, 'output'),
          description: `The error envelope. \`code\` is one of: ${Object.keys(ERROR_CODES).join(', ')}.`,
        },
      },
      headers: COMMON_HEADERS,
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Authorization code with PKCE (S256). No refresh tokens; access tokens last up to 3600 s.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/oauth/authorize`,
              tokenUrl: `${base}/oauth/token`,
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
        sandbox: { type: 'http', scheme: 'bearer', description: 'The public sandbox token `svc_sandbox`: every scope, fixed demo data.' },
        sdkKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A publishable SDK key, for /functions/v1/* only.' },
      },
    },
  };
}

let cached: Json | undefined;
export function openApiDocument(): Json {
  cached ??= buildOpenApiDocument();
  return cached;
}
