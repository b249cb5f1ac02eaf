import { randomBytes } from 'node:crypto';
import { clientIp } from './client-ip';
import type { RateLimiter, RateLimitResult } from './rate-limit';

/**
 * One request's state as the kernel (lib/platform/http/kernel.ts) carries it: what the handler's context
 * holds, plus what the headers need. A class, as is the handler's context: their lazy fields are
 * getters on the prototype, where an object literal would define fresh accessors on each of the
 * 21 objects a batch makes (a microsecond each in `npm run bench`'s batch).
 */

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

export class Exchange<S> {
  readonly requestId = newRequestId();
  /** The last answer of the rate limiter, for the headers. */
  limit?: RateLimitResult;
  /** The credential's own budget (an SDK key's: its publisher's) and its last answer. */
  budget?: { limiter: RateLimiter; result: RateLimitResult };
  /** The request's Origin was refused by the app it called (an `sdk` CORS route). */
  originRefused = false;
  cacheControl = 'no-store';

  constructor(
    readonly url: string,
    readonly headers: Headers,
    readonly clientIp: string,
    readonly services: S,
    readonly limiter: RateLimiter | undefined,
    private made?: Request,
  ) {}

  static of<S>(request: Request, services: S, limiter: RateLimiter | undefined): Exchange<S> {
    return new Exchange(request.url, request.headers, clientIp(request.headers), services, limiter, request);
  }

  static sub<S>(sub: SubRequest, services: S): Exchange<S> {
    return new Exchange(sub.url, sub.headers, sub.clientIp, services, undefined);
  }

  /**
   * The Request. A batch's sub-request makes its own only when the handler asks for it: the
   * kernel's steps read the URL and headers, and most handlers nothing more (a Request costs
   * about 5 µs and its share of garbage, twenty times per batch).
   */
  get request(): Request {
    return (this.made ??= new Request(this.url, { headers: this.headers }));
  }

  /** The query string, without `?` and fragment. */
  get queryString(): string {
    const start = this.url.indexOf('?');
    if (start === -1) return '';
    const end = this.url.indexOf('#', start);
    return this.url.slice(start + 1, end === -1 ? undefined : end);
  }
}

/** What a handler is given, for one exchange (Context in lib/platform/http/kernel.ts). */
export class HandlerContext<S, P, Q, B> {
  private parsedUrl?: URL;

  constructor(
    private readonly x: Exchange<S>,
    readonly principal: P,
    readonly query: Q,
    readonly body: B,
    readonly params: Record<string, string | string[] | undefined>,
    readonly charge: (units: number) => Promise<void>,
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

  get services(): S {
    return this.x.services;
  }
}
