import { generateKeyPair, SignJWT } from 'jose';
import { SCOPES } from '@/lib/oauth/scopes';
import { resourceUri, type ResourceName } from '@/lib/oauth/resources';
import { requireOAuthSecrets } from '@/lib/oauth/secrets';
import { testServices } from './services';
import { issueAccessToken } from '@/lib/oauth/tokens';

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
