import { z } from 'zod';
import { env } from '../../platform/env';
import type { ResponseDoc } from '../../platform/http/declaration';
import type { Credential, OperationDeclaration } from '../../schemas/registry';
import { ERROR_CODES } from '../../platform/http/errors';
import { BODY_TYPES, MAX_BODY_BYTES } from '../../platform/http/input';
import { API_VERSION } from '../../platform/http/kernel';
import { DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, SCOPES } from '../../identity/oauth/scopes';
import { restOperations, type Operation } from '../../schemas/registry';
import { apiErrorBody } from '../../schemas/common';

/**
 * The OpenAPI 3.1 document of /api/v1 and the SDK surface, built from the route registry: the same
 * zod schemas the kernel validates with, the credential each operation declares, and the errors
 * the kernel itself answers (401/403 of a credential, 503 of a key that cannot be checked, 400 of
 * a query or body, 413 and 415 of a body, 429).
 */

type Json = Record<string, unknown>;

const error = (description: string, headers?: Record<string, string>): ResponseDoc => ({ description, schema: apiErrorBody, headers });
const CHALLENGE = { 'WWW-Authenticate': 'A Bearer challenge (RFC 6750) with `resource_metadata` (RFC 9728).' };

/** The scopes added since the original four: granted only to a client that names them. */
const NAMED_ONLY = SCOPES.filter((s) => !(DEFAULT_SCOPES as readonly string[]).includes(s));

/** What the kernel answers for this operation besides what it documents itself. */
function kernelResponses({ declaration }: Operation): Record<number, ResponseDoc> {
  const out: Record<number, ResponseDoc> = {};
  const credential: Credential = declaration.credential;
  if (credential.kind === 'bearer') {
    out[401] = error('No token, or an invalid, expired or foreign one: run discovery and the flow again.', CHALLENGE);
    if (credential.scope) {
      out[403] = error(`The token lacks the \`${credential.scope}\` scope: \`error="insufficient_scope"\`, \`scope="${credential.scope}"\`.`, CHALLENGE);
    }
  }
  if (credential.kind === 'optional-bearer') out[401] = error('The presented token is invalid.', CHALLENGE);
  if (credential.kind === 'api-key' || credential.kind === 'optional-api-key') {
    const optional = credential.kind === 'optional-api-key' ? ' (when `x-api-key` is sent)' : '';
    out[401] = error(`No \`x-api-key\` header, or one that holds no key or an unknown key, or a server key (\`invalid_token\`)${optional}.`);
    out[403] = error('The key has been revoked or its app archived, or the request comes from a web origin the app has not allowed (`forbidden`).');
  }
  if (credential.kind === 'app-key') {
    out[401] = error(
      'No key; an `x-api-key` header that holds no publishable key or an unknown one; a bearer that holds no server key or an unknown one (`invalid_token`).',
    );
    out[403] = error(
      'The key has been revoked or its app archived; a publishable key from a web origin the app has not allowed; a server key from a web page (the request has `Origin`) (`forbidden`).',
    );
  }
  if (credential.kind === 'conversion-key') {
    out[401] = error('No bearer, or one that holds no conversions key (`ck_live_…`) or an unknown one (`invalid_token`).');
    out[403] = error('The key has been revoked (the conversion was kept as invalid), or the request comes from a web page (`Origin`) (`forbidden`).');
  }
  if (declaration.query) out[400] = error('An invalid or missing parameter.');
  if (declaration.body) {
    out[400] = error('A malformed or invalid body.');
    out[413] = error(`The body is larger than ${declaration.maxBodyBytes ?? MAX_BODY_BYTES} bytes (\`payload_too_large\`).`);
    out[415] = error(`The body is not sent as ${mediaTypes(declaration).join(' or ')} (\`unsupported_media_type\`).`);
  }
  out[429] = error('Rate limit exceeded: wait `Retry-After` seconds.', { 'Retry-After': 'Seconds to wait.' });
  out[503] = error('The database cannot be reached or did not answer in time (`unavailable`): retry after `Retry-After` seconds.', {
    'Retry-After': 'Seconds to wait.',
  });
  return out;
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

function response(doc: ResponseDoc): Json {
  const headers: Json = Object.fromEntries(Object.keys(COMMON_HEADERS).map((h) => [h, { $ref: `#/components/headers/${h}` }]));
  for (const [name, description] of Object.entries(doc.headers ?? {})) {
    headers[name] = { description, schema: { type: name === 'Retry-After' ? 'integer' : 'string' } };
  }
  const out: Json = { description: doc.description, headers };
  if (doc.schema) {
    const schema = doc.schema === apiErrorBody ? { $ref: '#/components/schemas/Error' } : jsonSchema(doc.schema, 'output');
    out.content = { [doc.contentType ?? 'application/json']: { schema } };
  } else if (doc.contentType) {
    // A body that is not JSON (an image): its media type alone.
    out.content = { [doc.contentType]: {} };
  }
  return out;
}

function parameters({ declaration }: Operation): Json[] {
  const params: Json[] = [];
  for (const [name, field] of Object.entries(declaration.query?.shape ?? {}) as [string, z.ZodType][]) {
    const schema = jsonSchema(field, 'input');
    const meta = z.globalRegistry.get(field) as { default?: unknown; description?: string } | undefined;
    if (meta?.default !== undefined && schema.default === undefined) schema.default = meta.default;
    const description = (schema.description as string | undefined) ?? meta?.description ?? field.description;
    delete schema.description;
    params.push({ name, in: 'query', required: !field.safeParse(undefined).success, description, schema });
  }
  for (const h of declaration.doc?.requestHeaders ?? []) {
    params.push({ name: h.name, in: 'header', required: false, description: h.description, schema: jsonSchema(h.schema, 'input') });
  }
  return params;
}

function mediaTypes(declaration: OperationDeclaration): readonly string[] {
  return BODY_TYPES[declaration.bodyType ?? 'json'];
}

function security(credential: Credential): Json[] {
  if (credential.kind === 'none') return [];
  if (credential.kind === 'api-key') return [{ sdkKey: [] }];
  if (credential.kind === 'app-key') return [{ sdkKey: [] }, { serverKey: [] }];
  // Without a key, the body's decision tokens authenticate (a beacon cannot send headers).
  if (credential.kind === 'optional-api-key') return [{ sdkKey: [] }, {}];
  if (credential.kind === 'conversion-key') return [{ conversionKey: [] }];
  const bearer = [{ oauth2: credential.kind === 'bearer' && credential.scope ? [credential.scope] : [] }, { sandbox: [] }];
  return credential.kind === 'bearer' ? bearer : [{}, ...bearer];
}

function operation(op: Operation): Json {
  const { declaration, route } = op;
  const doc = declaration.doc;
  if (!doc) throw new Error(`${op.method} ${op.path} has no OpenAPI description in the registry`);
  const responses: Json = {};
  for (const [status, r] of Object.entries({ ...kernelResponses(op), ...doc.responses })) responses[status] = response(r);
  const out: Json = {
    operationId: doc.operationId,
    summary: doc.summary,
    tags: doc.tags,
    parameters: parameters(op),
    responses,
    security: security(declaration.credential),
  };
  if (doc.description) out.description = doc.description;
  if (declaration.body) {
    const schema = jsonSchema(declaration.body, 'input');
    out.requestBody = { required: true, content: Object.fromEntries(mediaTypes(declaration).map((type) => [type, { schema }])) };
  }
  if (route.deprecated) out.deprecated = true;
  return out;
}

export function buildOpenApiDocument(ops: Operation[] = restOperations()): Json {
  const base = env().PUBLIC_BASE_URL;
  const paths: Record<string, Json> = {};
  for (const op of ops) {
    paths[op.path] ??= {};
    paths[op.path]![op.method.toLowerCase()] = operation(op);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Monetize API',
      version: API_VERSION,
      description:
        'Public reads (search, pricing, pages), read-only account data with the user’s consent (OAuth 2.0 with PKCE), batch, and the SDK surface, authenticated by an app’s publishable key. Errors use the envelope `{"error": {"status", "code", "message"}}`.',
    },
    servers: [{ url: base }],
    tags: [
      { name: 'Public', description: 'No credential needed.' },
      { name: 'Account', description: 'A bearer token with the listed scope, or the sandbox token.' },
      { name: 'Batch', description: 'Several GET requests in one call.' },
      { name: 'SDK', description: 'What a publisher’s app calls at run time, with the app’s API key in `x-api-key`.' },
      { name: 'Advertisers', description: 'What an advertiser’s server and pages send: conversions, with a conversions key or the public conversion tag.' },
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
          description: `Authorization code with PKCE (S256). No refresh tokens; access tokens last up to 3600 s. Every scope is read-only. An authorization request without \`scope\` asks for ${DEFAULT_SCOPES.map((s) => `\`${s}\``).join(', ')} only: ask for ${NAMED_ONLY.map((s) => `\`${s}\``).join(' or ')} by name.`,
          flows: {
            authorizationCode: {
              authorizationUrl: `${base}/oauth/authorize`,
              tokenUrl: `${base}/oauth/token`,
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
        sandbox: { type: 'http', scheme: 'bearer', description: 'The public sandbox token `svc_sandbox`: every scope, fixed demo data.' },
        sdkKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description: 'An app’s publishable SDK key (`pk_live_…` or `pk_test_…`), for /functions/v1/* only.',
        },
        serverKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An app’s secret server key (`sk_live_…` or `sk_test_…`), from the app’s server only (a request with `Origin` is refused): `POST /functions/v1/ads` and `GET /functions/v1/validate-key`.',
        },
        conversionKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An advertiser’s secret conversions key (`ck_live_…`), made in the advertiser console, from the advertiser’s server only (a request with `Origin` is refused): `POST /functions/v1/conversions`.',
        },
      },
    },
  };
}

let built: Json | undefined;
/** The document of this deployment; it depends only on the code and PUBLIC_BASE_URL. */
export function openApiDocument(): Json {
  built ??= buildOpenApiDocument();
  return built;
}
