import type { z } from 'zod';

/**
 * What a route declaration says: everything about a route except the code that answers it.
 * The registry (lib/schemas/registry.ts) holds one declaration per route file under app/; the kernel
 * (lib/platform/http/kernel.ts) runs a declaration with its handlers; the OpenAPI document, the
 * `/api/v1` index, the batch allowlist, the MCP tools' scopes and the markdown-twin rewrite
 * read the declarations, so none of them can drift from the routes.
 */

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
/** The methods a route declares; HEAD follows GET, and OPTIONS is the kernel's. */
export type DeclarableMethod = Exclude<HttpMethod, 'HEAD' | 'OPTIONS'>;

/**
 * Who may call an operation: a kind the composition root's credential step knows
 * (lib/routes/credentials.ts), checked by the kernel before the query and body are read.
 */
export interface Credential {
  readonly kind: string;
}

export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  /** Response headers beyond the ones every REST answer carries, by name. */
  headers?: Record<string, string>;
  contentType?: string;
}

/** What the OpenAPI document says of an operation beyond what the declaration already does. */
export interface OperationDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  requestHeaders?: { name: string; schema: z.ZodType; description: string }[];
  /**
   * The success answers and the errors particular to the operation. The kernel's own errors
   * (401/403 of the credential, 400 of a query or body, 413 and 415 of a body, 429) are added
   * by the document builder from the rest of the declaration.
   */
  responses: Record<number, ResponseDoc>;
}

export interface OperationDeclaration<C extends Credential = Credential> {
  credential: C;
  /** The query parameters, validated before the handler runs; unknown ones are ignored. */
  query?: z.ZodObject;
  body?: z.ZodType;
  /** How the body is encoded; `json` by default. */
  bodyType?: 'json' | 'form' | 'beacon';
  /** The largest body accepted, when not the default (lib/platform/http/input.ts, MAX_BODY_BYTES). */
  maxBodyBytes?: number;
  /** Cache-Control of a successful answer; `no-store` by default and whenever a credential was sent. */
  cache?: string;
  /** Documented in the OpenAPI document (every `/api/v1` operation is). */
  doc?: OperationDoc;
  /** May be a sub-request of `POST /api/v1/batch`. */
  batch?: true;
  /** The MCP account tool (of `/mcp`) that runs the same read. */
  mcpTool?: string;
}

export interface Deprecation {
  /** When the route was deprecated (RFC 9745 `Deprecation`). */
  since: Date;
  /** When it goes away (RFC 8594 `Sunset`), at least 90 days after `since`. */
  sunset: Date;
  /** Migration notes (`Link: <…>; rel="deprecation"`). */
  link: string;
}

export interface RouteDeclaration<C extends Credential = Credential> {
  /** The route file's path under app/, e.g. `/api/v1/me/apps` or `/markdown/[[...slug]]`. */
  path: string;
  /** Which error shape the route speaks: the API envelope, or RFC 6749 for OAuth endpoints. */
  errors: 'api' | 'oauth';
  /** Counts requests against the client's budget. */
  rateLimit: boolean;
  /**
   * `public`: any origin may read (no cookies are involved). `sdk`: the origins the calling app
   * allows (lib/identity/keys/directory.ts); an origin it refused is not allowed to read the refusal either.
   * `none`: same-origin only.
   */
  cors: 'public' | 'sdk' | 'none';
  /**
   * Its GET records something (an ad request, a click), so HEAD, which would run it too, is not
   * allowed: a link checker's `HEAD` must not count.
   */
  getRecords?: boolean;
  /** Sends `API-Version` (REST routes). */
  apiVersion: boolean;
  deprecated?: Deprecation;
  methods: Partial<Record<DeclarableMethod, OperationDeclaration<C>>>;
}
