import { Lru } from '../../platform/cache/lru';
import { ApiError } from '../../platform/http/errors';
import { bearerChallenge } from './challenge';
import { resourceUri, type ResourceName } from './resources';
import { SCOPES, type Scope } from './scopes';
import { requireOAuthSecrets, type OAuthSecrets } from '../secrets';
import { verifyAccessToken } from './tokens';

/**
 * Bearer verification for every protected surface (REST account routes, batch, MCP): three small
 * steps, as in the MCP SDK: read the credential, verify it for this resource, check the scope.
 * Failures are 401 or 403 with a `WWW-Authenticate` challenge naming the resource metadata
 * (RFC 6750 §3, RFC 9728 §5.1), as content/docs/errors.md lists them.
 */

/** The fixed public token of the sandbox (content/docs/sandbox.md): every scope, demo data only. */
export const SANDBOX_TOKEN = 'svc_sandbox';

export type Principal = { kind: 'user'; userId: string; clientId: string; scopes: string[]; expiresAt: Date } | { kind: 'sandbox'; scopes: Scope[] };

function unauthorized(resource: ResourceName, message: string, error?: 'invalid_token', description?: string): ApiError {
  return new ApiError('invalid_token', message, { 'WWW-Authenticate': bearerChallenge({ resource, error, description }) });
}

/** The credential of the request: absent, or the token of a well-formed `Bearer` header. */
export function bearerToken(request: { headers: Headers }): { present: false } | { present: true; token: string | null } {
  const header = request.headers.get('authorization');
  if (header === null) return { present: false };
  // RFC 6750 §2.1: `Bearer` (case-insensitive scheme) then the token68 credential.
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(header);
  return { present: true, token: m ? m[1]! : null };
}

/**
 * Who is calling, for `resource`; throws 401 `invalid_token` with a challenge. `required: false`
 * lets a caller without a credential through (the index and batch), but a bad credential is
 * still refused.
 */
/** What verifying a token needs: the signing key's public half, and the time. */
export interface TokenCheck {
  oauthSecrets(): Promise<OAuthSecrets | null>;
  now(): number;
  /** Tokens this instance verified (`Services.caches`). */
  readonly caches: { readonly tokens: VerifiedTokens };
}

/**
 * Access tokens already verified, by resource and token, with what they say. A token is a signed,
 * immutable statement, so verifying the same one again (an ES256 signature check, about a tenth
 * of an account read) can only repeat the answer; its expiry is still checked on every use.
 * Only valid tokens are kept, at most 1,000. Kept because it pays: `npm run bench` measures
 * real-token reads over 10% slower without it.
 */
export type VerifiedTokens = Lru<string, Extract<Principal, { kind: 'user' }>>;

export function verifiedTokens(): VerifiedTokens {
  return new Lru('tokens', 1000);
}

export async function authenticate(request: { headers: Headers }, resource: ResourceName, check: TokenCheck): Promise<Principal>;
export async function authenticate(
  request: { headers: Headers },
  resource: ResourceName,
  check: TokenCheck,
  options: { required: false },
): Promise<Principal | null>;
export async function authenticate(
  request: { headers: Headers },
  resource: ResourceName,
  check: TokenCheck,
  options?: { required: false },
): Promise<Principal | null> {
  const credential = bearerToken(request);
  if (!credential.present) {
    if (options?.required === false) return null;
    // RFC 6750 §3.1: no error code when the request had no authentication information.
    throw unauthorized(resource, 'An access token is required: start at the resource metadata named in WWW-Authenticate.');
  }
  if (credential.token === null) {
    throw unauthorized(resource, 'The Authorization header must be `Bearer <access token>`.', 'invalid_token', 'The credential is malformed');
  }
  if (credential.token === SANDBOX_TOKEN) return { kind: 'sandbox', scopes: [...SCOPES] };
  const key = `${resource} ${credential.token}`;
  const known = check.caches.tokens.get(key);
  // A token verified before needs no second signature check until it expires.
  if (known && known.expiresAt.getTime() > check.now()) return known;
  const secrets = await requireOAuthSecrets(check).catch(() => {
    throw new ApiError('unavailable', 'Access tokens cannot be checked on this deployment right now; retry later.');
  });
  const result = await verifyAccessToken(credential.token, resourceUri(resource), secrets);
  if (!result.ok) {
    throw unauthorized(resource, `${result.description} Run the authorization flow again.`, 'invalid_token', result.description.replace(/\.$/, ''));
  }
  const t = result.token;
  const principal: Principal = { kind: 'user', userId: t.sub, clientId: t.clientId, scopes: t.scopes, expiresAt: t.expiresAt };
  check.caches.tokens.set(key, principal);
  return principal;
}

/** 403 `insufficient_scope` naming the scope to ask for (RFC 6750 §3.1; MCP step-up). */
export function requireScope(principal: Principal, scope: Scope, resource: ResourceName): void {
  if (principal.scopes.includes(scope)) return;
  throw new ApiError('insufficient_scope', `This needs the ${scope} scope: authorize again asking for it.`, {
    'WWW-Authenticate': bearerChallenge({ resource, error: 'insufficient_scope', scope, description: `The ${scope} scope is required` }),
  });
}
