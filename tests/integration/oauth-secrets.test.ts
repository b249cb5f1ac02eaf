import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exportPKCS8, generateKeyPair, jwtVerify, SignJWT, importJWK } from 'jose';
import type { Engine } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { OAuthError } from '@/lib/platform/http/errors';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import type { Services } from '@/lib/services';
import { openPgliteCopy } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices } from '../helpers/services';

const saved = { ...process.env };
let db: Engine;
/** The services under test; new ones are a restart: nothing in memory, the same database. */
let services: Services;
const restart = () => (services = makeServices({ database: db }));
function setEnv(vars: Record<string, string | undefined>) {
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  resetEnv();
  restart();
}

describe('OAuth secrets', () => {
  beforeAll(async () => {
    db = await openPgliteCopy();
    restart();
  });
  afterAll(async () => {
    await db.close();
  });
  afterEach(() => {
    process.env = { ...saved };
    resetEnv();
    restart();
  });

  it('in production, without a signing key or a session secret, OAuth answers 503 temporarily_unavailable', async () => {
    for (const vars of [
      { OAUTH_SIGNING_KEY: undefined, NEXTAUTH_SECRET: undefined },
      { OAUTH_SIGNING_KEY: undefined, NEXTAUTH_SECRET: 'x'.repeat(32) },
    ]) {
      setEnv({ NODE_ENV: 'production', ...vars });
      expect(await services.oauthSecrets()).toBeNull();
      const err = await requireOAuthSecrets(services).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OAuthError);
      expect((err as OAuthError).status).toBe(503);
      expect((err as OAuthError).body()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    }
  });

  it('in production, without them, every /oauth/* endpoint and the JWKS answer 503 temporarily_unavailable', async () => {
    setEnv({ NODE_ENV: 'production', OAUTH_SIGNING_KEY: undefined, NEXTAUTH_SECRET: undefined });
    const ctx = { params: Promise.resolve({}) };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const calls: [string, () => Promise<Response>][] = [
      ['GET /oauth/authorize', async () => handlersOf('/oauth/authorize', services).GET(new Request('http://localhost/oauth/authorize?client_id=x'), ctx)],
      [
        'POST /oauth/authorize',
        async () =>
          handlersOf('/oauth/authorize', services).POST(
            new Request('http://localhost/oauth/authorize', { method: 'POST', headers: form, body: 'request=a&decision=approve' }),
            ctx,
          ),
      ],
      [
        'POST /oauth/token',
        async () =>
          handlersOf('/oauth/token', services).POST(
            new Request('http://localhost/oauth/token', { method: 'POST', headers: form, body: 'grant_type=authorization_code' }),
            ctx,
          ),
      ],
      [
        'POST /oauth/register',
        async () =>
          handlersOf('/oauth/register', services).POST(
            new Request('http://localhost/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
            ctx,
          ),
      ],
      [
        'GET /.well-known/jwks.json',
        async () => handlersOf('/.well-known/jwks.json', services).GET(new Request('http://localhost/.well-known/jwks.json'), ctx),
      ],
    ];
    for (const [name, call] of calls) {
      const res = await call();
      expect(res.status, name).toBe(503);
      expect(res.headers.get('cache-control'), name).toBe('no-store');
      expect(await res.json(), name).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
    }
  });

  it('in production, a configured PEM key signs tokens that its published JWK verifies', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    setEnv({ NODE_ENV: 'production', OAUTH_SIGNING_KEY: await exportPKCS8(privateKey), NEXTAUTH_SECRET: 's'.repeat(40) });
    const secrets = await requireOAuthSecrets(services);
    expect(secrets.publicJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
    expect(secrets.publicJwk).not.toHaveProperty('d');
    const token = await new SignJWT({ sub: 'u' }).setProtectedHeader({ alg: 'ES256', kid: secrets.publicJwk.kid }).sign(secrets.signingKey);
    const { payload } = await jwtVerify(token, await importJWK(secrets.publicJwk, 'ES256'));
    expect(payload.sub).toBe('u');
  });

  it('in development, generates both once, keeps them in the database, and reuses them after a restart', async () => {
    setEnv({ NODE_ENV: 'development', OAUTH_SIGNING_KEY: undefined, NEXTAUTH_SECRET: undefined });
    const first = await requireOAuthSecrets(services);
    restart(); // a restart: nothing in memory
    const second = await requireOAuthSecrets(services);
    expect(second.publicJwk.kid).toBe(first.publicJwk.kid);
    expect(second.sessionSecret).toBe(first.sessionSecret);
    expect(first.sessionSecret.length).toBeGreaterThanOrEqual(32);
    // The OAuth ones (the seed keeps the demo page's key, the SDK's token key and the data encryption key there too, and
    // migration 20261213000600_data_samples the key that draws the samples' daily pool).
    const rows = await db.query<{ name: string }>(
      "select name from public.service_secrets where name not in ('demo_page_key', 'demo_server_key', 'sdk_token_key', 'data_encryption_key', 'data_sample_key') order by name",
    );
    expect(rows.map((r) => r.name)).toEqual(['oauth_signing_key', 'session_secret']);
  });
});
