import { randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';
import { TOKEN_ALG, type OAuthSecrets } from '../secrets';
import { issuer } from './resources';

/**
 * Access tokens: JWTs in the RFC 9068 shape, signed ES256 (ARCHITECTURE.md, Tokens and sign-in).
 * Verification needs only the public key: no database round trip per request.
 */

export const ACCESS_TOKEN_TTL_S = 3600;
/** RFC 9068 §2.1: the `typ` header of a JWT access token. */
export const ACCESS_TOKEN_TYP = 'at+jwt';

export interface AccessTokenClaims {
  sub: string;
  client_id: string;
  scope: string;
  /** One resource URI, or both. */
  aud: string[];
}

export async function issueAccessToken(
  claims: AccessTokenClaims,
  secrets: Pick<OAuthSecrets, 'signingKey' | 'publicJwk'>,
  now = Date.now(),
): Promise<{ token: string; expiresIn: number }> {
  const iat = Math.floor(now / 1000);
  const token = await new SignJWT({ client_id: claims.client_id, scope: claims.scope })
    .setProtectedHeader({ alg: TOKEN_ALG, typ: ACCESS_TOKEN_TYP, kid: secrets.publicJwk.kid })
    .setIssuer(issuer())
    .setSubject(claims.sub)
    .setAudience(claims.aud.length === 1 ? claims.aud[0]! : claims.aud)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_S)
    .setJti(randomUUID())
    .sign(secrets.signingKey);
  return { token, expiresIn: ACCESS_TOKEN_TTL_S };
}

export interface VerifiedToken {
  sub: string;
  clientId: string;
  scopes: string[];
  expiresAt: Date;
  payload: JWTPayload;
}

export type TokenFailure = 'malformed' | 'expired' | 'invalid';

/**
 * Seconds another instance's clock may run ahead of ours: a token it issued a moment ago has an
 * `iat` that is, by our clock, in the future (and both round to the second).
 */
export const CLOCK_TOLERANCE_S = 5;

/** Compact JWS serialisation (RFC 7515 §7.1): three base64url parts joined by dots. */
export function isCompactJws(value: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value);
}

/**
 * Verifies signature, `typ`, `iss`, `aud` (the one resource asking), `exp` and the age: `iat` is
 * required, may be at most ACCESS_TOKEN_TTL_S old (the longest lifetime we issue) and not in the
 * future, and `exp` may be at most that long after it. So a token with a far-future `exp`, signed
 * with our key by mistake or by a future bug, is refused, and none outlives the hour. A token of
 * another deployment fails on the signature or the issuer; one for the other resource on the
 * audience.
 */
export async function verifyAccessToken(
  token: string,
  audience: string,
  secrets: Pick<OAuthSecrets, 'verifyKey'>,
): Promise<{ ok: true; token: VerifiedToken } | { ok: false; reason: TokenFailure; description: string }> {
  if (!isCompactJws(token)) {
    return { ok: false, reason: 'malformed', description: 'The access token is not a JWT.' };
  }
  try {
    const { payload } = await jwtVerify(token, secrets.verifyKey, {
      algorithms: [TOKEN_ALG],
      typ: ACCESS_TOKEN_TYP,
      issuer: issuer(),
      audience,
      requiredClaims: ['sub', 'exp', 'iat', 'jti'],
      maxTokenAge: ACCESS_TOKEN_TTL_S,
      clockTolerance: CLOCK_TOLERANCE_S,
    });
    if (typeof payload.scope !== 'string' || typeof payload.client_id !== 'string') {
      return { ok: false, reason: 'invalid', description: 'The access token lacks its scope or client.' };
    }
    // As for identity assertions: no token we issue claims a longer life than ACCESS_TOKEN_TTL_S.
    if (payload.exp! - payload.iat! > ACCESS_TOKEN_TTL_S) {
      return { ok: false, reason: 'invalid', description: 'The access token claims a lifetime over one hour.' };
    }
    return {
      ok: true,
      token: {
        sub: payload.sub!,
        clientId: payload.client_id,
        scopes: payload.scope.split(' ').filter(Boolean),
        expiresAt: new Date(payload.exp! * 1000),
        payload,
      },
    };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired', description: 'The access token has expired.' };
    if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') {
      return { ok: false, reason: 'invalid', description: 'The access token was not issued for this resource.' };
    }
    return { ok: false, reason: 'invalid', description: 'The access token is not valid here.' };
  }
}
