import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, importPKCS8, calculateJwkThumbprint, type CryptoKey, type JWK } from 'jose';
import type { Database } from '../platform/db/roles';
import { serviceSecret } from '../platform/db/service-secrets';
import { env } from '../platform/env';
import { OAuthError } from '../platform/http/errors';

/**
 * The secrets OAuth needs: the ES256 key that signs access tokens and the session secret of
 * sign-in (ARCHITECTURE.md, Tokens and sign-in). Production takes both from configuration and,
 * lacking either, OAuth answers 503 `temporarily_unavailable`. Development generates them on
 * first start and keeps them in `service_secrets`, so tokens survive a restart.
 */

export const TOKEN_ALG = 'ES256';

export interface OAuthSecrets {
  signingKey: CryptoKey;
  /** The public key that verifies our tokens. */
  verifyKey: CryptoKey;
  /** The public half, as published in the JWKS. */
  publicJwk: JWK & { kid: string; alg: string; use: string };
  sessionSecret: string;
}

async function fromPem(pem: string): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  const privateKey = await importPKCS8(pem, TOKEN_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { privateKey, publicJwk: publicPart(jwk) };
}

async function fromJwk(json: string): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  const jwk = JSON.parse(json) as JWK;
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d) throw new Error('the signing key must be a private EC P-256 key');
  const privateKey = (await importJWK(jwk, TOKEN_ALG)) as CryptoKey;
  return { privateKey, publicJwk: publicPart(jwk) };
}

function publicPart(jwk: JWK): JWK {
  const { kty, crv, x, y } = jwk;
  return { kty, crv, x, y };
}

async function parseSigningKey(value: string) {
  return value.trim().startsWith('{') ? fromJwk(value) : fromPem(value);
}

async function finish(key: { privateKey: CryptoKey; publicJwk: JWK }, sessionSecret: string): Promise<OAuthSecrets> {
  const kid = await calculateJwkThumbprint(key.publicJwk);
  const verifyKey = (await importJWK(key.publicJwk, TOKEN_ALG)) as CryptoKey;
  return { signingKey: key.privateKey, verifyKey, publicJwk: { ...key.publicJwk, kid, alg: TOKEN_ALG, use: 'sig' }, sessionSecret };
}

/** The secrets, or null when OAuth is not configured (production only). */
export async function loadOAuthSecrets(database: () => Promise<Database>): Promise<OAuthSecrets | null> {
  const e = env();
  if (e.NODE_ENV === 'production') {
    if (!e.OAUTH_SIGNING_KEY || !e.NEXTAUTH_SECRET) return null;
    return finish(await parseSigningKey(e.OAUTH_SIGNING_KEY), e.NEXTAUTH_SECRET);
  }
  const signing =
    e.OAUTH_SIGNING_KEY ??
    (await serviceSecret(
      'oauth_signing_key',
      async () => {
        const { privateKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
        return JSON.stringify(await exportJWK(privateKey));
      },
      await database(),
    ));
  const session = e.NEXTAUTH_SECRET ?? (await serviceSecret('session_secret', async () => randomBytes(32).toString('base64url'), await database()));
  return finish(await parseSigningKey(signing), session);
}

/** For /oauth/* handlers: the secrets, or 503 `temporarily_unavailable` when the deployment lacks them. */
export async function requireOAuthSecrets(services: { oauthSecrets(): Promise<OAuthSecrets | null> }): Promise<OAuthSecrets> {
  const secrets = await services.oauthSecrets();
  if (!secrets) {
    throw new OAuthError(
      'temporarily_unavailable',
      'OAuth is not configured on this deployment (a signing key and a session secret are needed). Retry later.',
      503,
    );
  }
  return secrets;
}
