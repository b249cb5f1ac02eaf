import { randomBytes, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { env } from '../../platform/env';
import { OAuthError } from '../../platform/http/errors';
import { absoluteUrl } from '../../platform/http/responses';
import { SANDBOX_TOKEN } from './bearer';
import { issuer, OAUTH_PATHS } from './resources';
import { SCOPES, scopeString, type Scope } from './scopes';
import { TOKEN_ALG, type OAuthSecrets } from '../secrets';
import { isCompactJws } from './tokens';

/**
 * Anonymous agent registration, as content/docs/agents.md documents it.
 * `POST /agent/identity` hands out a service-signed identity assertion; the JWT-bearer grant
 * (RFC 7523) at /oauth/token exchanges it for the sandbox token, as often as wanted until it
 * expires. Stateless: nothing is stored, and a registration is never linked to a user, so it
 * cannot be claimed. Real account data always needs the browser consent of the authorization
 * code flow.
 */

/**
 * The `typ` of an identity assertion. It differs from the access token's `at+jwt` (RFC 9068), and
 * each verifier demands its own (RFC 8725 §3.11), so neither can be presented as the other.
 */
export const IDENTITY_ASSERTION_TYP = 'agent-identity+jwt';

/** An identity assertion lives 24 hours (content/docs/rate-limits.md, the limits table). */
export const IDENTITY_ASSERTION_TTL_S = 24 * 3600;

/**
 * What a registration reaches before any claim: the sandbox token, which grants every scope
 * over fixed demo data (content/docs/sandbox.md). Since nothing can be claimed, this never grows.
 */
export const PRE_CLAIM_SCOPES: readonly Scope[] = SCOPES;

export const REGISTRATION_ID_PATTERN = /^agr_[A-Za-z0-9_-]{22}$/;

/** `AGENT_REGISTRATION=off` removes the endpoint, the grant and its metadata entry. Read per request. */
export function agentRegistrationEnabled(): boolean {
  return env().AGENT_REGISTRATION === 'on';
}

/** The audience of an assertion: the token endpoint that accepts it (RFC 7523 §3, item 3). */
export function assertionAudience(): string {
  return absoluteUrl(OAUTH_PATHS.token);
}

/**
 * The registration type of a `POST /agent/identity` body. Only `anonymous` is offered; the two
 * other types of the public interface answer their own 400 codes (content/docs/errors.md);
 * anything else is malformed.
 */
export function registrationType(body: unknown): 'anonymous' {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The body must be a JSON object: {"type": "anonymous"}.');
  }
  const type = (body as Record<string, unknown>).type;
  if (type === 'anonymous') return type;
  if (type === 'service_auth') {
    throw new OAuthError('service_auth_not_enabled', 'Registration type service_auth is not offered: register with {"type": "anonymous"}, or use OAuth.');
  }
  if (type === 'identity_assertion') {
    throw new OAuthError(
      'issuer_not_enabled',
      'Registration type identity_assertion is not offered: no external issuer is trusted. Register with {"type": "anonymous"}, or use OAuth.',
    );
  }
  if (type === undefined) throw new OAuthError('invalid_request', 'type is missing: send {"type": "anonymous"}.');
  throw new OAuthError('invalid_request', 'type must be "anonymous" (the only registration type offered).');
}

export interface Registration {
  registrationId: string;
  assertion: string;
  expiresAt: Date;
}

/** A new anonymous registration and its assertion, signed with the access-token key. */
export async function issueIdentityAssertion(secrets: Pick<OAuthSecrets, 'signingKey' | 'publicJwk'>, now = Date.now()): Promise<Registration> {
  const registrationId = `agr_${randomBytes(16).toString('base64url')}`;
  const iat = Math.floor(now / 1000);
  const exp = iat + IDENTITY_ASSERTION_TTL_S;
  const assertion = await new SignJWT({ registration_type: 'anonymous', scope: scopeString(PRE_CLAIM_SCOPES) })
    .setProtectedHeader({ alg: TOKEN_ALG, typ: IDENTITY_ASSERTION_TYP, kid: secrets.publicJwk.kid })
    // RFC 7523 §3: iss and sub are required; here both come from the service, sub is the registration.
    .setIssuer(issuer())
    .setSubject(registrationId)
    .setAudience(assertionAudience())
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(secrets.signingKey);
  return { registrationId, assertion, expiresAt: new Date(exp * 1000) };
}

/** The 201 body of `POST /agent/identity`. */
export function registrationBody(r: Registration) {
  return {
    registration_id: r.registrationId,
    registration_type: 'anonymous' as const,
    identity_assertion: r.assertion,
    assertion_expires: r.expiresAt.toISOString(),
    pre_claim_scopes: [...PRE_CLAIM_SCOPES],
  };
}

export type AssertionCheck =
  { ok: true; registrationId: string; expiresAt: Date } | { ok: false; reason: 'malformed' | 'expired' | 'invalid'; description: string };

/**
 * RFC 7523 §3: checks signature (our key, ES256 only), `typ`, `iss` (us), `aud` (our token
 * endpoint), `exp`, and the registration claims. No state: an assertion verifies as often as it
 * is presented until it expires, as content/docs/agents.md promises ("Reuse").
 */
export async function verifyIdentityAssertion(assertion: string, secrets: Pick<OAuthSecrets, 'verifyKey'>, now = Date.now()): Promise<AssertionCheck> {
  if (!isCompactJws(assertion)) {
    return { ok: false, reason: 'malformed', description: 'The assertion is not a JWT: send the identity_assertion from /agent/identity.' };
  }
  try {
    const { payload } = await jwtVerify(assertion, secrets.verifyKey, {
      algorithms: [TOKEN_ALG],
      typ: IDENTITY_ASSERTION_TYP,
      issuer: issuer(),
      audience: assertionAudience(),
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      // iat at most 24 h ago, and not in the future: no assertion outlives its stated lifetime.
      maxTokenAge: IDENTITY_ASSERTION_TTL_S,
      currentDate: new Date(now),
    });
    if (payload.registration_type !== 'anonymous' || !REGISTRATION_ID_PATTERN.test(payload.sub!)) {
      return { ok: false, reason: 'invalid', description: 'The assertion is not an anonymous agent registration of this service.' };
    }
    if (payload.exp! - payload.iat! > IDENTITY_ASSERTION_TTL_S) {
      return { ok: false, reason: 'invalid', description: 'The assertion claims a lifetime over 24 hours.' };
    }
    return { ok: true, registrationId: payload.sub!, expiresAt: new Date(payload.exp! * 1000) };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) {
      return { ok: false, reason: 'expired', description: 'The identity assertion has expired: register again at /agent/identity.' };
    }
    return { ok: false, reason: 'invalid', description: 'The identity assertion is not valid here: register again at /agent/identity.' };
  }
}

/**
 * The token response of the JWT-bearer grant (content/docs/agents.md, step 2): the sandbox
 * token, every scope, marked as sandbox. No `expires_in`: the sandbox token does not expire
 * (RFC 6749 §5.1 makes `expires_in` optional).
 */
export function sandboxTokenBody() {
  return { access_token: SANDBOX_TOKEN, token_type: 'Bearer' as const, scope: scopeString(PRE_CLAIM_SCOPES), sandbox: true as const };
}
