import type { z } from 'zod';
import { isDatabaseError } from '../db/errors';
import { describeError, log } from '../log';
import { json, type Answer, type JsonReply } from './answers';
import { senderOf } from './client-ip';
import { HTTP_METHODS, type Credential, type DeclarableMethod, type HttpMethod, type OperationDeclaration, type RouteDeclaration } from './declaration';
import { ApiError, OAuthError, OriginRefused, RETRY_AFTER_S } from './errors';
import { Exchange, HandlerContext, type SubRequest } from './exchange';
import { parseQuery, readBody } from './input';
import type { RateLimiter } from './rate-limit';
import { API_VERSION, send } from './route-headers';

/**
 * The route kernel. Every route file under app/ exports the handlers `defineRoute` makes from
 * the route's declaration and its code. For each request, in this order: rate limit, method
 * (405), credential (401/403 before any 400), query, body, path parameters, the handler; then one
 * set of headers on every answer, errors included (lib/platform/http/route-headers.ts). One error path:
 * whatever is thrown becomes the route's error shape, and anything that is not an ApiError or
 * OAuthError is a 500 whose cause goes to the log under the request id.
 *
 * The kernel knows no domain: the composition root (lib/routes/kernel.ts) makes one with
 * `createKernel`, giving it the process's services and the check of each kind of credential.
 */

export { HTTP_METHODS, API_VERSION, json, type Answer, type HttpMethod, type JsonReply, type SubRequest };
export { jsonText } from './answers';

/** What the kernel itself needs of the services: the address budget and the clock. */
export interface KernelServices {
  readonly rateLimiter: RateLimiter;
  now(): number;
}

/**
 * What each kind of credential gives a handler, by `kind`: the composition root fills it in
 * (declaration merging, lib/routes/credentials.ts), so a handler's `principal` has its type.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Principals {}
export type PrincipalOf<C> = C extends { kind: infer K } ? (K extends keyof Principals ? Principals[K] : undefined) : undefined;

/** The credential step's answer: who calls, and a budget of the credential's own (an SDK key's: its publisher's) to take a unit from. */
export interface CheckedCredential {
  principal: unknown;
  budget?: { limiter: RateLimiter; key: string; refusal: string };
}

export interface KernelConfig<S> {
  /** The process's services, made on first use. */
  services(): S;
  /** Checks the operation's credential; throws its 401, 403 or 503. */
  checkCredential(credential: Credential, request: { headers: Headers }, services: S): Promise<CheckedCredential>;
  /** The request headers a browser may send across origins (a preflight's `Access-Control-Allow-Headers`). */
  corsRequestHeaders: string;
  /**
   * Whether a request with this credential is counted by the credential's own budget instead of
   * its address's: a server that asks for many people from one address (an app's server key).
   * Such a request only needs its address's budget not to be spent when it comes in; it draws a
   * unit of it only when its credential is refused, so a stream of bad keys is held back as ever.
   */
  countsByCredential?(credential: Credential, request: { headers: Headers }): boolean;
}

type Output<T> = T extends z.ZodType ? z.output<T> : undefined;

/** What a handler is given. */
export interface Context<O extends OperationDeclaration, S> {
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
  services: S;
  /** Takes `units` more from the caller's rate-limit budget (a batch pays per sub-request); throws the 429. */
  charge(units: number): Promise<void>;
}

export type Handler<O extends OperationDeclaration, S> = (ctx: Context<O, S>) => Promise<Answer> | Answer;

export type Handlers<R extends RouteDeclaration, S> = {
  [M in keyof R['methods'] & DeclarableMethod]: Handler<NonNullable<R['methods'][M]>, S>;
};

export interface RouteOptions {
  /** Top-level fields added beside `error` in this route's API error bodies (the index's 401 lists the endpoints). */
  errorExtra?: (error: ApiError) => Record<string, unknown> | undefined;
  /** The route of the paths under a prefix that no other route has: every method is a 404, in the envelope, with the kernel's headers. */
  unknownPath?: boolean;
}

/** What Next passes a route handler: `params` only for routes with dynamic segments. */
type NextContext = { params?: Promise<Record<string, string | string[] | undefined>> };

/** Marks every function the kernel made with the route it belongs to, so a test can check each route file. */
export const KERNEL = Symbol.for('monetize.route-kernel');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteHandler = ((request: Request, context?: NextContext) => Promise<Response>) & { [KERNEL]: Route<RouteDeclaration, any> };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Route<R extends RouteDeclaration = RouteDeclaration, S = any> = Record<HttpMethod, RouteHandler> & {
  readonly declaration: R;
  /** Runs the route's GET in process (a batch's sub-request): credential, query and handler, no rate-limit unit and no header decoration. */
  dispatch(sub: SubRequest, services: S): Promise<Answer>;
  /** The same route's handlers, running with `services` instead of the process's. */
  with(services: S): Route<R, S>;
};

/** The refusal of a request whose address's budget is spent. */
const ADDRESS_OVER_BUDGET = 'Too many requests: wait for the number of seconds in Retry-After, then retry.';

export function createKernel<S extends KernelServices>(config: KernelConfig<S>) {
  return function defineRoute<R extends RouteDeclaration>(declaration: R, handlers: Handlers<R, S>, options: RouteOptions = {}): Route<R, S> {
    const declared = Object.keys(declaration.methods) as DeclarableMethod[];
    const headAllowed = declared.includes('GET') && !declaration.getRecords;
    const allow = [...declared, ...(headAllowed ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    const preflight = { allow, requestHeaders: config.corsRequestHeaders };

    async function take(x: Exchange<S>, units: number): Promise<void> {
      if (!x.limiter || units <= 0) return;
      x.limit = await x.limiter.consume(senderOf(x.clientIp), units);
      if (!x.limit.allowed) throw new ApiError('rate_limited', ADDRESS_OVER_BUDGET);
    }

    /** Method, credential, inputs, handler: what a request and a batch's sub-request share. `deferred`: the address's unit waits for the credential's check. */
    async function run(x: Exchange<S>, method: HttpMethod, params: NextContext['params'], deferred = false): Promise<Answer> {
      if (options.unknownPath) {
        throw new ApiError(
          'not_found',
          `Nothing is at ${new URL(x.url).pathname.slice(0, 200)}. The endpoints are in the docs, /docs, and GET /api/v1 lists the REST ones.`,
        );
      }
      const name = (method === 'HEAD' ? 'GET' : method) as DeclarableMethod;
      const operation = method === 'HEAD' && !headAllowed ? undefined : declaration.methods[name];
      const handler = (handlers as Record<DeclarableMethod, Handler<OperationDeclaration, S> | undefined>)[name];
      if (!operation || !handler) throw new ApiError('method_not_allowed', `${method} is not allowed here; use ${allow}.`, { Allow: allow });
      let checkedCredential: CheckedCredential;
      try {
        checkedCredential = await config.checkCredential(operation.credential, x, x.services);
      } catch (err) {
        // A refused credential pays its address's unit after all (its refusal, not a 429, is the answer).
        if (deferred && x.limiter) x.limit = await x.limiter.consume(senderOf(x.clientIp), 1);
        throw err;
      }
      const { principal, budget } = checkedCredential;
      if (deferred && !budget) await take(x, 1);
      if (budget && x.limiter) {
        x.budget = { limiter: budget.limiter, result: await budget.limiter.consume(budget.key) };
        if (!x.budget.result.allowed) throw new ApiError('rate_limited', budget.refusal);
      }
      const query = operation.query ? parseQuery(x.queryString, operation.query) : undefined;
      const body = operation.body ? await readBody(x.request, operation.body, operation.bodyType ?? 'json', operation.maxBodyBytes) : undefined;
      const context = new HandlerContext(x, principal, query, body, params ? await params : {}, (units) => take(x, units));
      const answer = await handler(context as unknown as Context<OperationDeclaration, S>);
      // A credentialed answer (a token, or an SDK key) is never stored by a shared cache.
      if (answer.status < 400 && operation.cache && !x.headers.has('authorization') && !x.headers.has('x-api-key')) x.cacheControl = operation.cache;
      return answer;
    }

    function errorAnswer(thrown: unknown, x: Exchange<S>): JsonReply {
      const { requestId } = x;
      if (thrown instanceof OriginRefused) x.originRefused = true;
      const err = isDatabaseError(thrown) ? databaseUnavailable(thrown, requestId) : thrown;
      if (declaration.errors === 'oauth') {
        const e = err instanceof OAuthError ? err : err instanceof ApiError ? OAuthError.fromApiError(err) : undefined;
        if (e) return json(e.body(), { status: e.status, headers: e.headers });
        logUnexpected(err, requestId);
        return json(new OAuthError('server_error', 'The server could not complete the request.', 500).body(), { status: 500 });
      }
      const e = err instanceof ApiError ? err : err instanceof OAuthError ? ApiError.fromOAuthError(err) : undefined;
      if (e) return json({ ...options.errorExtra?.(e), ...e.body() }, { status: e.status, headers: e.headers });
      logUnexpected(err, requestId);
      // 5xx bodies say nothing internal; the cause is in the log under the request id.
      return json(new ApiError('internal_error', `The server could not complete the request (request id ${requestId}).`).body(), { status: 500 });
    }

    async function handle(services: S, method: HttpMethod, request: Request, context: NextContext | undefined): Promise<Response> {
      const x = Exchange.of(request, services, declaration.rateLimit ? services.rateLimiter : undefined);
      let answer: Answer;
      try {
        if (method === 'OPTIONS') {
          // Preflights are the browser's, not the client's: they are not counted, but they say
          // the budget as every answer of the surface does (a look at it costs no unit).
          if (x.limiter) x.limit = await x.limiter.consume(senderOf(x.clientIp), 0);
          answer = new Response(null, { status: 204, headers: { allow } });
        } else {
          const operation = declaration.methods[(method === 'HEAD' ? 'GET' : method) as DeclarableMethod];
          const deferred = Boolean(x.limiter && operation && config.countsByCredential?.(operation.credential, x));
          if (deferred) {
            // A look costs nothing; a budget with nothing left refuses as a unit would have.
            const look = await x.limiter!.consume(senderOf(x.clientIp), 0);
            x.limit = look.remaining < 1 ? { ...look, allowed: false } : look;
            if (!x.limit.allowed) throw new ApiError('rate_limited', ADDRESS_OVER_BUDGET);
          } else {
            await take(x, 1);
          }
          answer = await run(x, method, context?.params, deferred);
        }
      } catch (err) {
        answer = errorAnswer(err, x);
      }
      return send(declaration, x, method, preflight, answer);
    }

    async function dispatch(sub: SubRequest, services: S): Promise<Answer> {
      const x = Exchange.sub(sub, services);
      try {
        return await run(x, 'GET', undefined);
      } catch (err) {
        return errorAnswer(err, x);
      }
    }

    /** The handlers Next calls, with the process's services unless a test gives others. */
    function bind(services: S | undefined): Route<R, S> {
      const route = { declaration, dispatch, with: (s: S) => bind(s) } as Route<R, S>;
      for (const method of HTTP_METHODS) {
        const handler = (request: Request, context?: NextContext) => handle(services ?? config.services(), method, request, context);
        route[method] = Object.assign(handler, { [KERNEL]: route as Route });
      }
      return route;
    }
    return bind(undefined);
  };
}

/**
 * A failure of the database, or of the connection to it, or a statement past its deadline
 * (lib/platform/db/errors.ts) that no handler answered itself: "retry later" in the route's own error
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

/** The route a kernel-made handler belongs to, or undefined for any other function. */
export function routeOf(fn: unknown): Route | undefined {
  return typeof fn === 'function' ? (fn as Partial<RouteHandler>)[KERNEL] : undefined;
}

/** The declaration a kernel-made handler runs, or undefined for any other function. */
export function declarationOf(fn: unknown): RouteDeclaration | undefined {
  return routeOf(fn)?.declaration;
}
