import { randomBytes } from 'node:crypto';
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

/** CORS of a `public` route's answers: any origin may read them, rate-limit headers included. */
const PUBLIC_CORS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS,
};

/** CORS of a `public` route's preflight answer. */
function publicPreflightCors(allow: string): Record<string, string> {
  return {
    ...PUBLIC_CORS,
    'Access-Control-Allow-Methods': allow,
    'Access-Control-Allow-Headers':
      'Authorization, Content-Type, Idempotency-Key, X-Api-Key, MCP-Protocol-Version, Mcp-Session-Id, A2A-Version, A2A-Extensions',
    'Access-Control-Max-Age': '600',
  };
}

/**
 * Request ids: 16 random hex digits drawn once per process, then a 16-digit counter, so ids are
 * unique across instances and cost no randomness per request (a random UUID each time was a
 * measurable part of the kernel's own cost in `npm run bench`). They identify a request in the
 * logs; they grant nothing, so being predictable within a process is harmless.
 */
const REQUEST_ID_PREFIX = `req_${randomBytes(8).toString('hex')}`;
let requestCount = 0;

export function newRequestId(): string {
  requestCount = (requestCount + 1) % Number.MAX_SAFE_INTEGER;
  return REQUEST_ID_PREFIX + requestCount.toString(16).padStart(16, '0');
}

/** The query parameters of a request URL, without parsing the whole URL. */
function searchParamsOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  if (start === -1) return new URLSearchParams();
  const end = url.indexOf('#', start);
  return new URLSearchParams(url.slice(start + 1, end === -1 ? undefined : end));
}

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
 * What `json` and `jsonText` answer: a Response with no body of its own that carries the JSON
 * text. The kernel builds the Response it sends from the text, and a batch takes the text as it
 * is, so no stream is made, read back and parsed only to be thrown away. (A subclass, not a
 * WeakMap beside it: two WeakMap entries per request made every young-generation GC measurably
 * slower under load.)
 */
class JsonAnswer extends Response {
  constructor(
    readonly jsonBody: string,
    init: ResponseInit,
  ) {
    super(null, init);
  }
}

/** True when `headers` holds none (a handler may still have set some after making its answer). */
function isEmpty(headers: Headers): boolean {
  for (const _ of headers) return false;
  return true;
}

/** The JSON text of a response made by `json` or `jsonText` (in-process callers: batch). */
export function jsonTextOf(response: Response): string | undefined {
  return response instanceof JsonAnswer ? response.jsonBody : undefined;
}

export function json(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  return jsonText(JSON.stringify(body), init);
}

/**
 * A JSON answer from its text (also for answers serialised ahead of time). Without
 * `init.headers` the Response has no headers either: building a Headers object here only for the
 * kernel to copy it again cost a few microseconds on every request (`npm run bench`). The kernel
 * sends it as `application/json`.
 */
export function jsonText(text: string, init: { status?: number; headers?: HeadersInit } = {}): Response {
  if (init.headers === undefined) return new JsonAnswer(text, { status: init.status });
  const headers = new Headers(init.headers);
  headers.set('Content-Type', 'application/json');
  return new JsonAnswer(text, { status: init.status, headers });
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
    const requestId = newRequestId();
    const ip = clientIp(request.headers);
    const limiter = spec.rateLimit ? rateLimiter() : undefined;
    let limit: RateLimitResult | undefined;

    // Takes units from the budget. Returns a promise only when the limiter does (Upstash): the
    // in-memory limiter answers at once, and an await per request is measurable under load.
    const take = (units: number): void | Promise<void> => {
      if (!limiter || units <= 0) return;
      const result = limiter.consume(ip, units);
      if (result instanceof Promise) return result.then(settle);
      settle(result);
    };
    const settle = (result: RateLimitResult): void => {
      limit = result;
      if (!result.allowed) {
        throw new ApiError('rate_limited', 'Too many requests: wait for the number of seconds in Retry-After, then retry.');
      }
    };
    const charge = async (units: number): Promise<void> => take(units);

    let response: Response;
    let cache = 'no-store';
    try {
      if (method === 'OPTIONS') {
        response = new Response(null, { status: 204, headers: { Allow: allow } });
      } else {
        // Preflights are the browser's, not the client's: only real requests are counted.
        if (!prepaid.has(request)) {
          const pending = take(1);
          if (pending) await pending;
        }
        const declared = spec.methods[(method === 'HEAD' ? 'GET' : method) as DeclarableMethod];
        if (!declared) {
          throw new ApiError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, { Allow: allow });
        }
        const auth = declared.authorize ? await declared.authorize(request) : undefined;
        const query = declared.query ? parseQuery(searchParamsOf(request.url), declared.query) : undefined;
        const body = declared.body ? await readBody(request, declared.body, declared.bodyType ?? 'json') : undefined;
        // Next gives `params` only to routes with dynamic segments; awaiting nothing costs a tick.
        const params = context?.params ? await context.params : {};
        let url: URL | undefined;
        const ctx: RequestContext<unknown, unknown> = {
          request,
          // Parsed only for the few handlers that read it.
          get url() {
            return (url ??= new URL(request.url));
          },
          query,
          body,
          params,
          requestId,
          clientIp: ip,
          charge,
          auth,
        };
        const produced = declared.handler(ctx as never);
        // A handler that answers at once (a cached answer) costs no microtask.
        response = produced instanceof Promise ? await produced : produced;
        if (response.status < 400 && declared.cache && !request.headers.has('authorization')) cache = declared.cache;
      }
    } catch (err) {
      response = errorResponse(err, style, requestId);
    }

    // A batch's sub-request: the batch takes only the status and the JSON text, and answers
    // with its own headers, so the per-response decoration below would be thrown away.
    if (prepaid.has(request)) return response;

    // The kernel's headers, as one record: a Response takes a record in a single pass, where
    // copying into a Headers object and setting each header again walks them twice.
    const own: Record<string, string> = { 'X-Request-Id': requestId };
    if (spec.apiVersion) own['API-Version'] = API_VERSION;
    if (limit && limiter) Object.assign(own, rateLimitHeaders(limit, limiter.config));
    if (spec.deprecated) Object.assign(own, deprecationHeaders(spec.deprecated));
    if (spec.cors === 'public') Object.assign(own, method === 'OPTIONS' ? publicPreflightCors(allow) : PUBLIC_CORS);

    const answer = response instanceof JsonAnswer ? response : undefined;
    let headers: Record<string, string> | Headers;
    if (answer && isEmpty(answer.headers)) {
      // The common case: a JSON answer with no headers of its own.
      headers = { 'Content-Type': 'application/json', 'Cache-Control': cache, ...own };
    } else {
      headers = new Headers(response.headers);
      if (answer && !headers.has('Content-Type')) headers.set('Content-Type', 'application/json');
      if (!headers.has('Cache-Control')) headers.set('Cache-Control', cache);
      for (const name in own) headers.set(name, own[name]!);
    }
    const body = method === 'HEAD' ? null : (answer ? answer.jsonBody : response.body);
    return new Response(body, { status: response.status, statusText: response.statusText, headers });
  };

  const make = (method: HttpMethod): RouteHandler =>
    Object.assign((request: Request, context: NextContext) => handle(method, request, context), { [KERNEL]: true as const });

  return Object.fromEntries(HTTP_METHODS.map((m) => [m, make(m)])) as Record<HttpMethod, RouteHandler>;
}

/** True when `fn` was made by the kernel (the route-enumeration test uses it). */
export function isKernelHandler(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as Partial<RouteHandler>)[KERNEL] === true;
}
