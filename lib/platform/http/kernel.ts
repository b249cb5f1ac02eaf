import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { isDatabaseError } from '../db/errors';
import { describeError, log } from '../log';
import { services as processServices, type Services } from '../services';
import { clientIp, senderOf } from './client-ip';
import { checkCredential, type PrincipalOf } from './credentials';
import { HTTP_METHODS, type DeclarableMethod, type Deprecation, type HttpMethod, type OperationDeclaration, type RouteDeclaration } from './declaration';
import { ApiError, OAuthError, OriginRefused, RETRY_AFTER_S } from './errors';
import { parseQuery, readBody } from './input';
import { writeKeyRateLimitHeaders, writeRateLimitHeaders, type RateLimiter, type RateLimitResult } from './rate-limit';

/**
 * The route kernel. Every route file under app/ exports the handlers `defineRoute` makes from
 * the route's declaration (lib/registry.ts) and its code. For each request, in this order:
 * rate limit, method (405), credential (401/403 before any 400), query, body, path parameters,
 * the handler; then one set of headers on every answer, errors included: request id, Cache-Control,
 * API-Version, rate limit, CORS, deprecation. One error path: whatever is thrown becomes the
 * route's error shape, and anything that is not an ApiError or OAuthError is a 500 whose cause
 * goes to the log under the request id.
 */

export { HTTP_METHODS, type HttpMethod };
export const API_VERSION = '1';

/** A JSON answer: its text, status and any headers of its own (`Content-Type` is the kernel's). */
export interface JsonReply {
  readonly kind: 'json';
  readonly status: number;
  readonly text: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What a handler answers: a JSON reply, or a Response of its own (HTML, redirects, streams). */
export type Answer = JsonReply | Response;

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): JsonReply {
  return jsonText(JSON.stringify(body), init);
}

/** A JSON answer from its text (for answers serialised ahead of time). */
export function jsonText(text: string, init: { status?: number; headers?: Record<string, string> } = {}): JsonReply {
  return { kind: 'json', status: init.status ?? 200, text, headers: init.headers };
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler is given. */
export interface Context<O extends OperationDeclaration> {
  request: Request;
  url: URL;
  requestId: string;
  clientIp: string;
  /** Who is calling, as the operation's credential step found. */
  principal: PrincipalOf<O['credential']>;
  query: Output<O['query']>;
  body: Output<O['body']>;
  params: Record<string, string | string[] | undefined>;
  /** The database, limiters, clock and secrets this request runs with. */
  services: Services;
  /** Takes `units` more from the caller's rate-limit budget (a batch pays per sub-request); throws the 429. */
  charge(units: number): Promise<void>;
}

export type Handler<O extends OperationDeclaration> = (ctx: Context<O>) => Promise<Answer> | Answer;

export type Handlers<R extends RouteDeclaration> = {
  [M in keyof R['methods'] & DeclarableMethod]: Handler<NonNullable<R['methods'][M]>>;
};

export interface RouteOptions {
  /** Top-level fields added beside `error` in this route's API error bodies (the index's 401 lists the endpoints). */
  errorExtra?: (error: ApiError) => Record<string, unknown> | undefined;
  /**
   * The route of the paths under a prefix that no other route has (`<prefix>/[...unknown]`,
   * lib/http/not-found.ts): every method is a 404, in the envelope, with the kernel's headers.
   */
  unknownPath?: boolean;
}

/** What Next passes a route handler: `params` only for routes with dynamic segments. */
type NextContext = { params?: Promise<Record<string, string | string[] | undefined>> };

/** Marks every function the kernel made with the route it belongs to, so a test can check each route file. */
export const KERNEL = Symbol.for('monetize.route-kernel');
export type RouteHandler = ((request: Request, context?: NextContext) => Promise<Response>) & { [KERNEL]: Route };

export type Route<R extends RouteDeclaration = RouteDeclaration> = Record<HttpMethod, RouteHandler> & {
  readonly declaration: R;
  /**
   * Runs the route's GET in process (a batch's sub-request): credential, query and handler, no
   * rate-limit unit and no header decoration. Errors come back as the route's error answers.
   */
  dispatch(sub: SubRequest, services: Services): Promise<Answer>;
  /** The same route's handlers, running with `services` instead of the process's. */
  with(services: Services): Route<R>;
};

/** A GET run in process: its URL, its headers (shared by the sub-requests of one batch) and the caller's address. */
export interface SubRequest {
  url: string;
  headers: Headers;
  clientIp: string;
}

/**
 * Request ids: 16 random hex digits drawn once per process, then a counter, so ids are unique
 * across instances without drawing randomness per request. They identify a request in the logs
 * and grant nothing, so being predictable within a process is harmless.
 */
const REQUEST_ID_PREFIX = `req_${randomBytes(8).toString('hex')}`;
let requestCount = 0;

export function newRequestId(): string {
  requestCount = (requestCount + 1) % Number.MAX_SAFE_INTEGER;
  return REQUEST_ID_PREFIX + requestCount.toString(16).padStart(16, '0');
}

const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Api-Key, MCP-Protocol-Version, Mcp-Session-Id, A2A-Version, A2A-Extensions';

/**
 * One request's state: what the handler's context holds, plus what the headers need. A class,
 * as is the handler's context below: their lazy fields are getters on the prototype, where an
 * object literal would define fresh accessors on each of the 21 objects a batch makes (a
 * microsecond each in `npm run bench`'s batch).
 */
class Exchange {
  readonly requestId = newRequestId();
  /** The last answer of the rate limiter, for the headers. */
  limit?: RateLimitResult;
  /** The last answer of the SDK key's limiter. */
  keyLimit?: RateLimitResult;
  /** The request's Origin was refused by the app it called (an `sdk` CORS route). */
  originRefused = false;
  cacheControl = 'no-store';

  constructor(
    readonly url: string,
    readonly headers: Headers,
    readonly clientIp: string,
    readonly services: Services,
    readonly limiter: RateLimiter | undefined,
    private made?: Request,
  ) {}

  /**
   * The Request. A batch's sub-request makes its own only when the handler asks for it: the
   * kernel's steps read the URL and headers, and most handlers nothing more (a Request costs
   * about 5 µs and its share of garbage, twenty times per batch).
   */
  get request(): Request {
    return (this.made ??= new Request(this.url, { headers: this.headers }));
  }
}

function exchange(request: Request, services: Services, limiter: RateLimiter | undefined): Exchange {
  const { url, headers } = request;
  return new Exchange(url, headers, clientIp(headers), services, limiter, request);
}

function subExchange(sub: SubRequest, services: Services): Exchange {
  return new Exchange(sub.url, sub.headers, sub.clientIp, services, undefined);
}

type AnyContext = Context<OperationDeclaration>;

/** What a handler is given, for one exchange. */
class HandlerContext implements AnyContext {
  private parsedUrl?: URL;

  constructor(
    private readonly x: Exchange,
    readonly principal: AnyContext['principal'],
    readonly query: AnyContext['query'],
    readonly body: AnyContext['body'],
    readonly params: AnyContext['params'],
    readonly charge: AnyContext['charge'],
  ) {}

  get request(): Request {
    return this.x.request;
  }

  /** Parsed for the few handlers that read it. */
  get url(): URL {
    return (this.parsedUrl ??= new URL(this.x.url));
  }

  get requestId(): string {
    return this.x.requestId;
  }

  get clientIp(): string {
    return this.x.clientIp;
  }

  get services(): Services {
    return this.x.services;
  }
}

export function defineRoute<R extends RouteDeclaration>(declaration: R, handlers: Handlers<R>, options: RouteOptions = {}): Route<R> {
  const declared = Object.keys(declaration.methods) as DeclarableMethod[];
  const headAllowed = declared.includes('GET') && !declaration.getRecords;
  const allow = [...declared, ...(headAllowed ? ['HEAD'] : []), 'OPTIONS'].join(', ');

  async function take(x: Exchange, units: number): Promise<void> {
    if (!x.limiter || units <= 0) return;
    x.limit = await x.limiter.consume(senderOf(x.clientIp), units);
    if (!x.limit.allowed) throw new ApiError('rate_limited', 'Too many requests: wait for the number of seconds in Retry-After, then retry.');
  }

  /** Method, credential, inputs, handler: what a request and a batch's sub-request share. */
  async function run(x: Exchange, method: HttpMethod, params: NextContext['params']): Promise<Answer> {
    if (options.unknownPath) {
      throw new ApiError(
        'not_found',
        `Nothing is at ${new URL(x.url).pathname.slice(0, 200)}. The endpoints are in the docs, /docs, and GET /api/v1 lists the REST ones.`,
      );
    }
    const name = (method === 'HEAD' ? 'GET' : method) as DeclarableMethod;
    const operation = method === 'HEAD' && !headAllowed ? undefined : declaration.methods[name];
    const handler = (handlers as Record<DeclarableMethod, Handler<OperationDeclaration> | undefined>)[name];
    if (!operation || !handler) throw new ApiError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, { Allow: allow });
    const principal = await checkCredential(operation.credential, x, x.services);
    // An SDK key has a budget of its own, on top of the address's (content/docs/rate-limits.md).
    if (principal?.kind === 'app' && x.limiter) {
      x.keyLimit = await x.services.keyRateLimiter.consume(`key:${principal.keyId}`);
      if (!x.keyLimit.allowed)
        throw new ApiError('rate_limited', "This API key's requests are over its budget: wait for the number of seconds in Retry-After, then retry.");
    }
    const query = operation.query ? parseQuery(queryStringOf(x.url), operation.query) : undefined;
    const body = operation.body ? await readBody(x.request, operation.body, operation.bodyType ?? 'json', operation.maxBodyBytes) : undefined;
    const context = new HandlerContext(x, principal, query, body, params ? await params : {}, (units) => take(x, units));
    const answer = await handler(context);
    // A credentialed answer (a token, or an SDK key) is never stored by a shared cache.
    if (answer.status < 400 && operation.cache && !x.headers.has('authorization') && !x.headers.has('x-api-key')) x.cacheControl = operation.cache;
    return answer;
  }

  function errorAnswer(thrown: unknown, x: Exchange): JsonReply {
    const { requestId } = x;
    if (thrown instanceof OriginRefused) x.originRefused = true;
    const err = isDatabaseError(thrown) ? databaseUnavailable(thrown, requestId) : thrown;
    if (declaration.errors === 'oauth') {
      const e =
        err instanceof OAuthError
          ? err
          : err instanceof ApiError
            ? new OAuthError(
                err.code === 'rate_limited' ? 'rate_limited' : err.code === 'unavailable' ? 'temporarily_unavailable' : 'invalid_request',
                err.message,
                err.status,
                err.headers,
              )
            : undefined;
      if (e) return json(e.body(), { status: e.status, headers: e.headers });
      logUnexpected(err, requestId);
      return json(new OAuthError('server_error', 'The server could not complete the request.', 500).body(), { status: 500 });
    }
    const e =
      err instanceof ApiError
        ? err
        : err instanceof OAuthError
          ? new ApiError(err.status === 429 ? 'rate_limited' : err.status === 503 ? 'unavailable' : 'invalid_request', err.description, err.headers)
          : undefined;
    if (e) return json({ ...options.errorExtra?.(e), ...e.body() }, { status: e.status, headers: e.headers });
    logUnexpected(err, requestId);
    // 5xx bodies say nothing internal; the cause is in the log under the request id.
    return json(new ApiError('internal_error', `The server could not complete the request (request id ${requestId}).`).body(), { status: 500 });
  }

  /** The kernel's own headers of every answer, errors included. Names are lowercase here. */
  function kernelHeaders(x: Exchange, method: HttpMethod): Record<string, string> {
    const h: Record<string, string> = { 'x-request-id': x.requestId };
    if (declaration.apiVersion) h['api-version'] = API_VERSION;
    if (x.limit && x.limiter) {
      const limitHeaders: Record<string, string> = {};
      writeRateLimitHeaders(limitHeaders, x.limit, x.limiter.config, x.limit.at ?? x.services.now());
      if (x.keyLimit) writeKeyRateLimitHeaders(limitHeaders, x.keyLimit, x.services.keyRateLimiter.config, x.keyLimit.at ?? x.services.now());
      for (const name in limitHeaders) h[name.toLowerCase()] = limitHeaders[name]!;
    }
    if (declaration.cors === 'sdk') {
      // Each app says which web origins may use its keys: an allowed origin (or a request that
      // sent none) may read the answer; a refused one may not read even the refusal.
      if (!x.originRefused) h['access-control-allow-origin'] = x.headers.get('origin') ?? '*';
      h['vary'] = 'Origin';
    }
    if (declaration.cors !== 'none') {
      if (declaration.cors === 'public') h['access-control-allow-origin'] = '*';
      // Every header is readable by any origin: for requests without credentials `*` means
      // exactly that (Fetch standard, CORS protocol), and no cookies reach these routes.
      h['access-control-expose-headers'] = '*';
      if (method === 'OPTIONS') {
        h['access-control-allow-methods'] = allow;
        h['access-control-allow-headers'] = ALLOWED_REQUEST_HEADERS;
        h['access-control-max-age'] = '600';
      }
    }
    if (declaration.deprecated) for (const [name, value] of deprecationHeaders(declaration.deprecated)) h[name] = value;
    return h;
  }

  /** The answer with the kernel's headers over its own, except that a handler's Cache-Control stands. */
  function send(x: Exchange, method: HttpMethod, answer: Answer): Response {
    const own = kernelHeaders(x, method);
    if (answer instanceof Response) {
      // Copied as Headers, which keep repeated headers (several Set-Cookie) apart.
      const headers = new Headers(answer.headers);
      if (!headers.has('cache-control')) headers.set('cache-control', x.cacheControl);
      for (const name in own) headers.set(name, own[name]!);
      return new Response(method === 'HEAD' ? null : answer.body, { status: answer.status, statusText: answer.statusText, headers });
    }
    // A JSON reply's headers are one record, names in lowercase so that the kernel's replace the
    // handler's whatever case it wrote them in: a Response takes a record in one pass.
    const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': x.cacheControl };
    for (const name in answer.headers) headers[name.toLowerCase()] = answer.headers[name]!;
    Object.assign(headers, own);
    return new Response(method === 'HEAD' ? null : answer.text, { status: answer.status, headers });
  }

  async function handle(services: Services, method: HttpMethod, request: Request, context: NextContext | undefined): Promise<Response> {
    const x = exchange(request, services, declaration.rateLimit ? services.rateLimiter : undefined);
    let answer: Answer;
    try {
      if (method === 'OPTIONS') {
        // Preflights are the browser's, not the client's: they are not counted.
        answer = new Response(null, { status: 204, headers: { allow } });
      } else {
        await take(x, 1);
        answer = await run(x, method, context?.params);
      }
    } catch (err) {
      answer = errorAnswer(err, x);
    }
    return send(x, method, answer);
  }

  async function dispatch(sub: SubRequest, services: Services): Promise<Answer> {
    const x = subExchange(sub, services);
    try {
      return await run(x, 'GET', undefined);
    } catch (err) {
      return errorAnswer(err, x);
    }
  }

  /** The handlers Next calls, with the process's services unless a test gives others. */
  function bind(services: Services | undefined): Route<R> {
    const route = { declaration, dispatch, with: (s: Services) => bind(s) } as Route<R>;
    for (const method of HTTP_METHODS) {
      const handler = (request: Request, context?: NextContext) => handle(services ?? processServices(), method, request, context);
      route[method] = Object.assign(handler, { [KERNEL]: route as Route });
    }
    return route;
  }
  return bind(undefined);
}

/** The query string of a URL, without `?` and fragment. */
function queryStringOf(url: string): string {
  const start = url.indexOf('?');
  if (start === -1) return '';
  const end = url.indexOf('#', start);
  return url.slice(start + 1, end === -1 ? undefined : end);
}

/**
 * A failure of the database, or of the connection to it, or a statement past its deadline
 * (lib/db/errors.ts) that no handler answered itself: "retry later" in the route's own error
 * shape, a 503 with `Retry-After`, never a 500 (nothing is wrong with the request or our code).
 */
function databaseUnavailable(err: unknown, requestId: string): ApiError {
  log.error('database unavailable', { request_id: requestId, ...describeError(err) });
  return new ApiError('unavailable', 'The service cannot reach its database right now; retry after the seconds in Retry-After.', {
    'Retry-After': RETRY_AFTER_S,
  });
}

function logUnexpected(err: unknown, requestId: string): void {
  log.error('unhandled error in route', { request_id: requestId, ...describeError(err) });
}

function deprecationHeaders(d: Deprecation): [string, string][] {
  return [
    // RFC 9745 §2.1: a structured-field date, `@` followed by Unix seconds.
    ['deprecation', `@${Math.floor(d.since.getTime() / 1000)}`],
    // RFC 8594 §3: an HTTP date.
    ['sunset', d.sunset.toUTCString()],
    ['link', `<${d.link}>; rel="deprecation"; type="text/html"`],
  ];
}

/** The route a kernel-made handler belongs to, or undefined for any other function. */
export function routeOf(fn: unknown): Route | undefined {
  return typeof fn === 'function' ? (fn as Partial<RouteHandler>)[KERNEL] : undefined;
}

/** The declaration a kernel-made handler runs, or undefined for any other function. */
export function declarationOf(fn: unknown): RouteDeclaration | undefined {
  return routeOf(fn)?.declaration;
}
