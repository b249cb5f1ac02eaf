/**
 * The closed table of API error codes, each with its one status, shared by the runtime, the
 * OpenAPI document and content/docs/errors.md (a test holds the page to this table). Add a code
 * here, never ad hoc in a handler.
 */
export const ERROR_CODES = {
  invalid_request: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  rate_limited: 429,
  internal_error: 500,
  account_unavailable: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Seconds a client is asked to wait (`Retry-After`) before retrying a 503: the database unavailable. */
export const RETRY_AFTER_S = '5';

export interface ApiErrorBody {
  error: { status: number; code: ErrorCode; message: string };
}

/** An error a handler throws to answer with the API error envelope. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
    /** Extra top-level fields beside `error` (the 401 of `GET /api/v1` lists the public endpoints). */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code];
  }

  body(): ApiErrorBody & Record<string, unknown> {
    return { ...this.extra, error: { status: this.status, code: this.code, message: this.message } };
  }

  /** An OAuth error answered by a route of the API envelope: its status's code where one fits. */
  static fromOAuthError(err: OAuthError): ApiError {
    return new ApiError(err.status === 429 ? 'rate_limited' : err.status === 503 ? 'unavailable' : 'invalid_request', err.description, err.headers);
  }
}

/**
 * A 403 for a request from a web origin the route's owner does not allow (an SDK app's allowed
 * origins): the page may read the refusal's body, so the SDK can say why, and none of the
 * answer's other headers (lib/platform/http/route-headers.ts).
 */
export class OriginRefused extends ApiError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/**
 * RFC 6749 §5.2 error codes, plus those of RFC 7591 §3.2.2 (registration), RFC 8707 §2
 * (`invalid_target`) and agent registration's own two. OAuth endpoints answer
 * `{error, error_description}`.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
  'server_error',
  'temporarily_unavailable',
  'invalid_redirect_uri',
  'invalid_client_metadata',
  'invalid_target',
  'service_auth_not_enabled',
  'issuer_not_enabled',
  'rate_limited',
  'method_not_allowed',
  'not_found',
] as const;

export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.description };
  }

  /** An API error answered by an OAuth route, in RFC 6749's shape. */
  static fromApiError(err: ApiError): OAuthError {
    const code = err.code === 'rate_limited' ? 'rate_limited' : err.code === 'unavailable' ? 'temporarily_unavailable' : 'invalid_request';
    return new OAuthError(code, err.message, err.status, err.headers);
  }
}
