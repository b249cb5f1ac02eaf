import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { log, describeError } from '../log';
import { clientIp } from './client-ip';
import { ApiError, OAuthError } from './errors';
import { parseQuery, readBody } from './input';
import { rateLimiter, writeRateLimitHeaders, type RateLimiter, type RateLimitResult } from './rate-limit';

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
  ) => Promise<Answer> | Answer;
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

/** What Next passes a route handler: `params` only for routes with dynamic segments. */
type NextContext = { params?: Promise<Record<string, string | string[] | undefined>> };
/** Answers at once when nothing had to wait (a cached answer), else with a promise. */
export type RouteHandler = ((request: Request, context?: NextContext) => Response | Promise<Response>) & { [KERNEL]: true };

/** Helps inference: `method({ query: schema, handler: ({ query }) => … })`. */
export function method<QS extends z.ZodType | undefined = undefined, BS extends z.ZodType | undefined = undefined>(
  spec: MethodSpec<QS, BS>,
): MethodSpec<z.ZodType | undefined, z.ZodType | undefined> {
  return spec as unknown as MethodSpec<z.ZodType | undefined, z.ZodType | undefined>;
}

/**
 * Every response header is readable by browser code on any origin. `*` means exactly that for a
 * request without credentials (Fetch standard, CORS protocol), and our answers with
 * `Access-Control-Allow-Origin: *` only ever reach such requests (no cookies are used; a bearer
 * token in `Authorization` is not a credential in the Fetch sense). A list instead would be
 * 230 bytes on every answer, and a header added later would be unreadable until listed.
 */
const EXPOSED_HEADERS = '*';

/**
 * What a `public` route's preflight answers adds to the CORS of every answer (any origin may
 * read them, rate-limit headers included). Header names in the kernel's records are lowercase
 * (see writeRateLimitHeaders).
 */
function publicPreflightCors(allow: string): Record<string, string> {
  return {
    'access-control-allow-methods': allow,
    'access-control-allow-headers':
      'Authorization, Content-Type, Idempotency-Key, X-Api-Key, MCP-Protocol-Version, Mcp-Session-Id, A2A-Version, A2A-Extensions',
    'access-control-max-age': '600',
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

/** The query string of a request URL (without `?` and fragment), without parsing the whole URL. */
function queryStringOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const end = url.indexOf('#', start);
  return url.slice(start + 1, end === -1 ? undefined : end);
}

/**
 * A GET request for in-process dispatch (`internalRoute`): what route handlers read of a request
 * (its URL and headers), without the cost of constructing a fetch Request (~8 µs each, 20 per batch).
 */
export function internalGet(url: string, headers: Headers): Request {
  return { url, method: 'GET', headers, body: null } as unknown as Request;
}

/**
 * What `json` and `jsonText` answer: a JSON text with its status and headers, not yet a
 * Response. The kernel builds the one Response it sends from it, and a batch takes the text as
 * it is, so no stream is made, read back and parsed only to be thrown away. (A plain object: a
 * Response made only to be copied into another one cost 7–9 µs per request under load.)
 *
 * A handler answers with one of these or with a Response of its own.
 */
export class JsonAnswer {
  private ownHeaders: Headers | undefined;

  constructor(
    readonly jsonBody: string,
    readonly status: number,
    private readonly init: HeadersInit | undefined,
  ) {}

  /** Its headers (`Content-Type` is the kernel's); made when first read, to be added to. */
  get headers(): Headers {
    return (this.ownHeaders ??= new Headers(this.init));
  }

  /** True when it carries headers of its own. */
  hasHeaders(): boolean {
    if (this.ownHeaders) return !isEmpty(this.ownHeaders);
    return this.init !== undefined;
  }

  /** Its headers, for the kernel to add its own to once the handler is done with it. */
  headersToSend(): Headers {
    return this.ownHeaders ?? new Headers(this.init);
  }
}

/** The kernel's headers over a handler's: the handler's `Cache-Control` stands. */
function withOwn(headers: Headers, own: Record<string, string>): Headers {
  for (const name in own) if (name !== 'cache-control' || !headers.has(name)) headers.set(name, own[name]!);
  return headers;
}

/** What a handler answers. */
export type Answer = Response | JsonAnswer;

/** True when `headers` holds none. */
function isEmpty(headers: Headers): boolean {
  for (const _ of headers) return false;
  return true;
}

export function json(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): JsonAnswer {
  return jsonText(JSON.stringify(body), init);
}

/** A JSON answer from its text (also for answers serialised ahead of time). */
export function jsonText(text: string, init: { status?: number; headers?: HeadersInit } = {}): JsonAnswer {
  return new JsonAnswer(text, init.status ?? 200, init.headers);
}

function errorAnswer(err: unknown, style: ErrorStyle, requestId: string): JsonAnswer {
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

function deprecationHeaders(d: Deprecation): Record<string, string> {
  return {
    // RFC 9745: a structured-field date, `@` followed by Unix seconds.
    deprecation: `@${Math.floor(d.since.getTime() / 1000)}`,
    sunset: httpDate(d.sunset),
    link: `<${d.link}>; rel="deprecation"; type="text/html"`,
  };
}

/**
 * One request's state, and the context its handler sees. A class rather than an object literal
 * with closures: on the hot path the kernel allocates this one object per request.
 */
class Exchange implements RequestContext<unknown, unknown> {
  readonly requestId = newRequestId();
  readonly clientIp: string;
  query: unknown = undefined;
  body: unknown = undefined;
  params: Record<string, string | string[] | undefined> = NO_PARAMS;
  auth: unknown = undefined;
  /** The last answer of the rate limiter, for the headers. */
  limit: RateLimitResult | undefined = undefined;
  cache = 'no-store';
  private parsedUrl: URL | undefined = undefined;
  private boundCharge: ((units: number) => Promise<void>) | undefined = undefined;

  constructor(
    readonly request: Request,
    private readonly limiter: RateLimiter | undefined,
  ) {
    this.clientIp = clientIp(request.headers);
  }

  /** Parsed only for the few handlers that read it. */
  get url(): URL {
    return (this.parsedUrl ??= new URL(this.request.url));
  }

  /**
   * Takes units from the budget. Returns a promise only when the limiter does (Upstash): the
   * in-memory limiter answers at once, and a promise per request is measurable under load.
   */
  take(units: number): void | Promise<void> {
    if (!this.limiter || units <= 0) return;
    const result = this.limiter.consume(this.clientIp, units);
    if (result instanceof Promise) return result.then((r) => this.settle(r));
    this.settle(result);
  }

  private settle(result: RateLimitResult): void {
    this.limit = result;
    if (!result.allowed) {
      throw new ApiError('rate_limited', 'Too many requests: wait for the number of seconds in Retry-After, then retry.');
    }
  }

  /** Bound, since handlers destructure it; made only for the handlers that read it. */
  get charge(): (units: number) => Promise<void> {
    return (this.boundCharge ??= async (units: number) => this.take(units));
  }

  /** The kernel's headers of every answer, lowercase (see writeRateLimitHeaders). */
  kernelHeaders(route: RouteHeaders, method: HttpMethod): Record<string, string> {
    const h: Record<string, string> = { 'cache-control': this.cache, 'x-request-id': this.requestId };
    if (route.apiVersion) h['api-version'] = API_VERSION;
    if (this.limit && this.limiter) writeRateLimitHeaders(h, this.limit, this.limiter.config, this.limit.at ?? Date.now());
    if (route.cors) {
      h['access-control-allow-origin'] = '*';
      h['access-control-expose-headers'] = EXPOSED_HEADERS;
      if (method === 'OPTIONS') Object.assign(h, route.preflight);
    }
    if (route.deprecation) Object.assign(h, route.deprecation);
    return h;
  }
}

const NO_PARAMS: Record<string, string | string[] | undefined> = Object.freeze({});

/** What a route's answers carry besides each request's own values, worked out once per route. */
interface RouteHeaders {
  apiVersion: boolean;
  /** Public CORS, and what its preflight answers add. */
  cors: boolean;
  preflight: Record<string, string>;
  deprecation: Record<string, string> | undefined;
}

type Declared = MethodSpec<z.ZodType | undefined, z.ZodType | undefined>;

export function defineRoute(spec: RouteSpec): Record<HttpMethod, RouteHandler> {
  return buildRoute(spec).handlers;
}

/** A route's GET as `internalRoute` makes it: the handler's own answer, no decoration. */
export type InternalHandler = (request: Request) => Answer | Promise<Answer>;

/**
 * A route's GET for in-process dispatch (the batch endpoint): no rate-limit unit is taken, and
 * the answer is the handler's own (a JsonAnswer's text is its `jsonBody`).
 */
export function internalRoute(spec: RouteSpec): InternalHandler {
  return buildRoute(spec).answerInternally;
}

function buildRoute(spec: RouteSpec): {
  handlers: Record<HttpMethod, RouteHandler>;
  answerInternally: InternalHandler;
} {
  const style = spec.errors ?? 'api';
  const allow = allowed(spec).join(', ');
  const routeHeaders: RouteHeaders = {
    apiVersion: spec.apiVersion === true,
    cors: spec.cors === 'public',
    preflight: publicPreflightCors(allow),
    deprecation: spec.deprecated ? deprecationHeaders(spec.deprecated) : undefined,
  };

  // The request's steps, in order: rate limit, method, authorize (401 before 400), query, body,
  // params, handler. Each step that can wait returns a promise only when it does wait, and the
  // next step runs at once otherwise: a cached answer is produced without a single promise
  // (every promise costs an async-context hook under Next, measurable in `npm run bench`).

  const respond = (x: Exchange, method: HttpMethod, context: NextContext | undefined): Answer | Promise<Answer> => {
    if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow } });
    // Preflights are the browser's, not the client's: only real requests are counted.
    const pending = x.take(1);
    if (pending) return pending.then(() => authorizeThen(x, method, context));
    return authorizeThen(x, method, context);
  };

  const authorizeThen = (x: Exchange, method: HttpMethod, context: NextContext | undefined): Answer | Promise<Answer> => {
    const declared = spec.methods[(method === 'HEAD' ? 'GET' : method) as DeclarableMethod];
    if (!declared) {
      throw new ApiError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, { Allow: allow });
    }
    if (!declared.authorize) return inputsThen(x, declared, context);
    return declared.authorize(x.request).then((auth) => {
      x.auth = auth;
      return inputsThen(x, declared, context);
    });
  };

  const inputsThen = (x: Exchange, declared: Declared, context: NextContext | undefined): Answer | Promise<Answer> => {
    if (declared.query) x.query = parseQuery(queryStringOf(x.request.url), declared.query);
    // Next gives `params` only to routes with dynamic segments.
    if (!declared.body && !context?.params) return call(x, declared);
    return (async () => {
      if (declared.body) x.body = await readBody(x.request, declared.body, declared.bodyType ?? 'json');
      if (context?.params) x.params = await context.params;
      return call(x, declared);
    })();
  };

  const call = (x: Exchange, declared: Declared): Answer | Promise<Answer> => {
    const produced = declared.handler(x as never);
    if (produced instanceof Promise) return produced.then((response) => decided(x, declared, response));
    return decided(x, declared, produced);
  };

  const decided = (x: Exchange, declared: Declared, response: Answer): Answer => {
    if (response.status < 400 && declared.cache && !x.request.headers.has('authorization')) x.cache = declared.cache;
    return response;
  };

  const finish = (x: Exchange, method: HttpMethod, response: Answer): Response => {
    const own = x.kernelHeaders(routeHeaders, method);
    if (response instanceof JsonAnswer) {
      const body = method === 'HEAD' ? null : response.jsonBody;
      if (!response.hasHeaders()) {
        // The common case: a JSON answer with no headers of its own. One record, one pass: a
        // Response takes a record directly, where a Headers object would be walked twice.
        own['content-type'] = 'application/json';
        return new Response(body, { status: response.status, headers: own });
      }
      const headers = response.headersToSend();
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      return new Response(body, { status: response.status, headers: withOwn(headers, own) });
    }
    const body = method === 'HEAD' ? null : response.body;
    return new Response(body, { status: response.status, statusText: response.statusText, headers: withOwn(new Headers(response.headers), own) });
  };

  const handle = (method: HttpMethod, request: Request, context: NextContext | undefined): Response | Promise<Response> => {
    const x = new Exchange(request, spec.rateLimit ? rateLimiter() : undefined);
    let produced: Answer | Promise<Answer>;
    try {
      produced = respond(x, method, context);
    } catch (err) {
      produced = errorAnswer(err, style, x.requestId);
    }
    if (produced instanceof Promise) {
      return produced.then(
        (response) => finish(x, method, response),
        (err: unknown) => finish(x, method, errorAnswer(err, style, x.requestId)),
      );
    }
    return finish(x, method, produced);
  };

  // A batch's sub-request (DESIGN.md: a batch pays one unit per sub-request, up front): not
  // charged again, and answered as the handler answered. The batch takes only the status and
  // the JSON text and sends its own headers, so the per-response decoration would be thrown away.
  const answerInternally: InternalHandler = (request) => {
    const x = new Exchange(request, undefined);
    try {
      const produced = authorizeThen(x, 'GET', undefined);
      if (produced instanceof Promise) return produced.catch((err: unknown) => errorAnswer(err, style, x.requestId));
      return produced;
    } catch (err) {
      return errorAnswer(err, style, x.requestId);
    }
  };

  const make = (method: HttpMethod): RouteHandler =>
    Object.assign((request: Request, context?: NextContext) => handle(method, request, context), { [KERNEL]: true as const });

  const handlers = Object.fromEntries(HTTP_METHODS.map((m) => [m, make(m)])) as Record<HttpMethod, RouteHandler>;
  return { handlers, answerInternally };
}

/** True when `fn` was made by the kernel (the route-enumeration test uses it). */
export function isKernelHandler(fn: unknown): boolean {
  return typeof fn === 'function' && (fn as Partial<RouteHandler>)[KERNEL] === true;
}
