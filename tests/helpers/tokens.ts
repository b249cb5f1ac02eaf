import { generateKeyPair, SignJWT } from 'jose';
import { SCOPES } from '@/lib/identity/oauth/scopes';
import { issuer, resourceUri, type ResourceName } from '@/lib/identity/oauth/resources';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import { testServices } from './services';
import { issueAccessToken } from '@/lib/identity/oauth/tokens';

/** Access tokens for tests, good and bad, signed the way /oauth/token signs them (or not). */

export async function accessToken(
  userId: string,
  options: { scopes?: readonly string[]; resources?: ResourceName[]; clientId?: string; now?: number } = {},
): Promise<string> {
  const secrets = await requireOAuthSecrets(testServices());
  const { token } = await issueAccessToken(
    {
      sub: userId,
      client_id: options.clientId ?? 'mcl_testclient0000000000',
      scope: (options.scopes ?? SCOPES).join(' '),
      aud: (options.resources ?? ['api', 'mcp']).map(resourceUri),
    },
    secrets,
    options.now,
  );
  return token;
}

/** The same claims, signed by a key that is not ours (another deployment). */
export async function foreignSignedToken(userId: string): Promise<string> {
  const { privateKey } = await generateKeyPair('ES256');
  const secrets = await requireOAuthSecrets(testServices());
  const { token } = await issueAccessToken(
    { sub: userId, client_id: 'mcl_testclient0000000000', scope: SCOPES.join(' '), aud: [resourceUri('api'), resourceUri('mcp')] },
    { signingKey: privateKey, publicJwk: secrets.publicJwk },
  );
  return token;
}

/** Our key, another issuer. */
export async function otherIssuerToken(userId: string): Promise<string> {
  const secrets = await requireOAuthSecrets(testServices());
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'mcl_testclient0000000000', scope: SCOPES.join(' ') })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: secrets.publicJwk.kid })
    .setIssuer('https://another-deployment.example')
    .setSubject(userId)
    .setAudience([resourceUri('api'), resourceUri('mcp')])
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .setJti('x')
    .sign(secrets.signingKey);
}

export async function expiredToken(userId: string): Promise<string> {
  return accessToken(userId, { now: Date.now() - 2 * 3600_000 });
}

/**
 * Signed by our key, with our claims, but issued 2 hours ago with an `exp` still an hour ahead:
 * older than any token we issue, whatever its `exp` says.
 */
export async function staleToken(userId: string): Promise<string> {
  const secrets = await requireOAuthSecrets(testServices());
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'mcl_testclient0000000000', scope: SCOPES.join(' ') })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: secrets.publicJwk.kid })
    .setIssuer(issuer())
    .setSubject(userId)
    .setAudience([resourceUri('api'), resourceUri('mcp')])
    .setIssuedAt(now - 2 * 3600)
    .setExpirationTime(now + 3600)
    .setJti('stale')
    .sign(secrets.signingKey);
}

/** Our claims, unsigned: `alg: none` (RFC 7519 §6), which no verifier may accept. */
export async function unsignedToken(userId: string): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const claims = {
    iss: issuer(),
    sub: userId,
    aud: [resourceUri('api'), resourceUri('mcp')],
    client_id: 'mcl_testclient0000000000',
    scope: SCOPES.join(' '),
    iat: now,
    exp: now + 600,
    jti: 'none',
  };
  return `${part({ alg: 'none', typ: 'at+jwt' })}.${part(claims)}.`;
}

/**
 * Our claims signed with HS256, keyed with our public key (the JWKS anyone can read): the
 * algorithm-confusion attack on a verifier that lets the token choose its algorithm.
 */
export async function confusedToken(userId: string): Promise<string> {
  const secrets = await requireOAuthSecrets(testServices());
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ client_id: 'mcl_testclient0000000000', scope: SCOPES.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: secrets.publicJwk.kid })
    .setIssuer(issuer())
    .setSubject(userId)
    .setAudience([resourceUri('api'), resourceUri('mcp')])
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(new TextEncoder().encode(JSON.stringify(secrets.publicJwk)));
}
