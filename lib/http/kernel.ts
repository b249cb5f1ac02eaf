import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { log, describeError } from '../log';
import { clientIp } from './client-ip';
import { ApiError, OAuthError } from './errors';
import { parseQuery, readBody } from './input';
import { rateLimiter, rateLimitHeaders, type RateLimitResult } from './rate-limit';

/**
 * The route kernel: every route handler under app/ is made by `defineRoute`, which does the
 * method check, input validation, the error envelope, request id, API-Version, Cache-Control,
 * CORS and rate limiting in one place (DESIGN.md, Architecture; issue 2).
 */

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
type DeclarableMethod = Exclude<HttpMethod, 'HEAD' | 'OPTIONS'>;

export const API_VERSION = '1';

/** Marks every function the kernel made, so a test can prove each route goes through it. */
export const KERNEL = Symbol.for('monetize.route-kernel');

/** Which error shape a route speaks: the API envelope, or RFC 6749 for OAuth endpoints. */
export type ErrorStyle = 'api' | 'oauth';

export interface Deprecation {
  /** When the route was deprecated (RFC 9745 `Deprecation`). */
  since: Date;
  /** When it goes away (RFC 8594 `Sunset`), at least 90 days after `since`. */
  sunset: Date;
  /** Migration notes (`Link: <…>; rel="deprecation"`). */
  link: string;
}

export interface RequestContext<Q, B> {
  request: Request;
  url: URL;
  query: Q;
  body: B;
  params: Record<string, string | string[] | undefined>;
  requestId: string;
  clientIp: string;
  /** What the method's `authorize` step answered (the caller's principal), or undefined. */
  auth: unknown;
  /**
   * Takes `units` more from the caller's rate-limit budget (a batch pays per sub-request).
   * Throws the 429 when they do not fit.
   */
  charge(units: number): Promise<void>;
}

export interface MethodSpec<QS extends z.ZodType | undefined, BS extends z.ZodType | undefined> {
  query?: QS;
  body?: BS;
  /**
   * Runs before the query and body are validated, so a caller without a valid credential learns
   * nothing about the parameters (401 before 400). Its answer is `ctx.auth`.
   */
  authorize?: (request: Request) => Promise<unknown>;
  /** How the body is encoded; `json` by default. */
  bodyType?: 'json' | 'form';
  /** Cache-Control of a successful answer; `no-store` by default and whenever a credential was sent. */
  cache?: string;
  handler: (
    ctx: RequestContext<QS extends z.ZodType ? z.output<QS> : undefined, BS extends z.ZodType ? z.output<BS> : undefined>,
  ) => Promise<Response> | Response;
}

export interface RouteSpec {
  /** A name for logs and the OpenAPI document. */
  name: string;
  errors?: ErrorStyle;
  /** Counts requests against the client's budget (the surfaces the spec lists). */
  rateLimit?: boolean;
  /** `public`: any origin may read (no cookies are involved). `none`: same-origin only. */
  cors?: 'public' | 'none';
  /** Sends `API-Version` (REST routes). */
  apiVersion?: boolean;
  deprecated?: Deprecation;
  methods: Partial<Record<DeclarableMethod, MethodSpec<z.ZodType | undefined, z.ZodType | undefined>>>;
}

type NextContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = ((request: Request, context: NextContext) => Promise<Response>) & { [KERNEL]: true };

/** Helps inference: `method({ query: schema, handler: ({ query }) => … })`. */
export function method<QS extends z.ZodType | undefined = undefined, BS extends z.ZodType | undefined = undefined>(
  spec: MethodSpec<QS, BS>,
): MethodSpec<z.ZodType | undefined, z.ZodType | undefined> {
  return spec as unknown as MethodSpec<z.ZodType | undefined, z.ZodType | undefined>;
}

const EXPOSED_HEADERS = [
  'API-Version',
  'X-Request-Id',
  'RateLimit',
  'RateLimit-Policy',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'WWW-Authenticate',
  'Deprecation',
  'Sunset',
  'Link',
  'Idempotency-Key',
  'Idempotent-Replayed',
  'Service-Sandbox',
].join(', ');

/**
 * Requests a batch dispatches after charging for them up front (DESIGN.md: a batch costs one
 * unit per sub-request): the kernel does not charge them again.
 */
const prepaid = new WeakSet<Request>();

export function markPrepaid(request: Request): Request {
  prepaid.add(request);
  return request;
}

/**
 * A GET request for in-process dispatch: what route handlers read of a request (its URL and
 * headers), without the cost of constructing a fetch Request (~8 µs each, 20 per batch).
 */
export function internalGet(url: string, headers: Headers): Request {
  return markPrepaid({ url, method: 'GET', headers, body: null } as unknown as Request);
}

/**
 * The JSON text of responses made by `json` and `jsonText`, so an in-process caller (batch) can
 * take the body without reading it back from a stream and parsing it again.
 */
const jsonTexts = new WeakMap<Response, string>();

export function jsonTextOf(response: Response): string | undefined {
  return jsonTexts.get(response);
}

export function json(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  return jsonText(JSON.stringify(body), init);
}

/**
 * A JSON answer from its text (also for answers serialised ahead of time). The Response carries
 * no body stream of its own: the kernel builds the one sent from the text, and a batch takes the
 * text as it is, so no stream is made, read back and parsed only to be thrown away.
 */
export function jsonText(text: string, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set('Content-Type', 'application/json');
  const response = new Response(null, { status: init.status, headers });
  jsonTexts.set(response, text);
  return response;
}

function errorResponse(err: unknown, style: ErrorStyle, requestId: string): Response {
  if (style === 'oauth') {
    const e =
      err instanceof OAuthError
        ? err
        : err instanceof ApiError
          ? new OAuthError(err.code === 'rate_limited' ? 'rate_limited' : 'invalid_request', err.message, err.status, err.headers)
          : null;
    if (e) return json(e.body(), { status: e.status, headers: e.headers });
    logUnexpected(err, requestId);
    return json(new OAuthError('server_error', 'The server could not complete the request.', 500).body(), { status: 500 });
  }
  const e =
    err instanceof ApiError
      ? err
      : err instanceof OAuthError
        ? new ApiError(err.status === 429 ? 'rate_limited' : 'invalid_request', err.description, err.headers)
        : null;
  if (e) return json(e.body(), { status: e.status, headers: e.headers });
  logUnexpected(err, requestId);
  // 5xx bodies say nothing internal; the reason is in the server log under the request id.
  return json(new ApiError('internal_error', `The server could not complete the request (request id ${requestId}).`).body(), {
    status: 500,
  });
}

function logUnexpected(err: unknown, requestId: string): void {
  log.error('unhandled error in route', { request_id: requestId, ...describeError(err) });
}

function allowed(spec: RouteSpec): string[] {
  const declared = Object.keys(spec.methods) as DeclarableMethod[];
  const list: string[] = [...declared];
  if (declared.includes('GET')) list.push('HEAD');
  list.push('OPTIONS');
  return list;
}

function httpDate(d: Date): string {
  return d.toUTCString();
}

export function deprecationHeaders(d: Deprecation): Record<string, string> {
  return {
    // RFC 9745: a structured-field date, `@` followed by Unix seconds.
    Deprecation: `@${Math.floor(d.since.getTime() / 1000)}`,
    Sunset: httpDate(d.sunset),
    Link: `<${d.link}>; rel="deprecation"; type="text/html"`,
  };
}

export function defineRoute(spec: RouteSpec): Record<HttpMethod, RouteHandler> {
  const style = spec.errors ?? 'api';
  const allow = allowed(spec).join(', ');

  const handle = async (method: HttpMethod, request: Request, context: NextContext | undefined): Promise<Response> => {
    const requestId = `req_${randomUUID().replaceAll('-', '')}`;
    const ip = clientIp(request.headers);
    const limiter = spec.rateLimit ? rateLimiter() : undefined;
    let limit: RateLimitResult | undefined;

    const charge = async (units: number) => {
      if (!limiter || units <= 0) return;
      limit = await limiter.consume(ip, units);
      if (!limit.allowed) {
        throw new ApiError('rate_limited', 'Too many requests: wait for the number of seconds in Retry-After, then retry.');
      }
    };

    let response: Response;
    let cache = 'no-store';
    try {
      if (method === 'OPTIONS') {
        response = new Response(null, { status: 204, headers: { Allow: allow } });
      } else {
        // Preflights are the browser's, not the client's: only real requests are counted.
        if (!prepaid.has(request)) await charge(1);
        const declared = spec.methods[(method === 'HEAD' ? 'GET' : method) as DeclarableMethod];
        if (!declared) {
          throw new ApiError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, { Allow: allow });
        }
        const auth = declared.authorize ? await declared.authorize(request) : undefined;
        const url = new URL(request.url);
        const query = declared.query ? parseQuery(url.searchParams, declared.query) : undefined;
        const body = declared.body ? await readBody(request, declared.body, declared.bodyType ?? 'json') : undefined;
        const params = context ? await context.params : {};
        response = await declared.handler({ request, url, query, body, params, requestId, clientIp: ip, charge, auth } as never);
        if (response.status < 400 && declared.cache && !request.headers.has('authorization')) cache = declared.cache;
      }
    } catch (err) {
      response = errorResponse(err, style, requestId);
    }

    // A batch's sub-request: the batch takes only the status and the JSON text, and answers
    // with its own headers, so the per-response decoration below would be thrown away.
    if (prepaid.has(request)) return response;

    const headers = new Headers(response.headers);
    headers.set('X-Request-Id', requestId);
    if (spec.apiVersion) headers.set('API-Version', API_VERSION);
    if (!headers.has('Cache-Control')) headers.set('Cache-Control', cache);
    if (limit && limiter) for (const [k, v] of Object.entries(rateLimitHeaders(limit, limiter.config))) headers.set(k, v);
    if (spec.deprecated) for (const [k, v] of Object.entries(deprecationHeaders(spec.deprecated))) headers.set(k, v);
    if (spec.cors === 'public') {
      headers.set('Access-Control-Allow-Origin', '*');
      headers.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      if (method === 'OPTIONS') {
        headers.set('Access-Control-Allow-Methods', allow);
        headers.set('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key, X-Api-Key, MCP-Protocol-Version, Mcp-Session-Id, A2A-Version, A2A-Extensions');
        headers.set('Access-Control-Max-Age', '600');
      }
    }
    const text = jsonTexts.get(response);
    const body = method === 'HEAD' ? null : (text ?? response.body);
    const answer = new Response(body, { status: response.status, statusText: response.statusText, headers });
    if (text !== undefined && method !== 'HEAD') jsonTexts.set(answer, text);
    return answer;
  };

  const make = (method: HttpMethod): RouteHandler =>
    Object.assign((request: Request, context: NextContext) => handle(method, request, context), { [KERNEL]: true as const });

  return Object.fromEntries(HTTP_METHODS.map((m) => [m, make(m)])) as Record<HttpMethod, RouteHandler>;
}

/** True when `fn` was made by the kernel (the route-enumeration test uses it). */
export function isKernelHandler(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as Partial<RouteHandler>)[KERNEL] === true;
}
