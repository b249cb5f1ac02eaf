import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { decodeJwt, generateKeyPair, SignJWT } from 'jose';
import { IDENTITY_ASSERTION_TYP, issueIdentityAssertion } from '@/lib/identity/oauth/agent-identity';
import { resetEnv } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { requireOAuthSecrets } from '@/lib/identity/secrets';
import { testEngines, suiteDatabase } from '../helpers/db';
import { BASE, exchange, publicClient } from '../helpers/oauth';
import { handlersOf } from '../helpers/routes';
import { makeServices, testServices, setTestServices } from '../helpers/services';
import { accessToken } from '../helpers/tokens';

/**
 * Anonymous agent registration through the route handlers: POST /agent/identity, the JWT-bearer
 * grant at /oauth/token (RFC 7523), the sandbox token it yields, and the AGENT_REGISTRATION off
 * switch.
 */

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ALL_SCOPES = 'profile:read apps:read earnings:read api_keys:read campaigns:read licenses:read';
const asMeta = handlersOf('/.well-known/oauth-authorization-server');
const identity = handlersOf('/agent/identity');
const me = handlersOf('/api/v1/me');
const ctx = { params: Promise.resolve({}) };
let peer = 0;
const forwarded = () => ({ 'x-forwarded-for': `203.0.113.${(peer++ % 250) + 1}` });

async function register(body: unknown = { type: 'anonymous' }, init: { raw?: string; contentType?: string } = {}) {
  const res = await identity.POST(
    new Request(`${BASE}/agent/identity`, {
      method: 'POST',
      headers: { 'content-type': init.contentType ?? 'application/json', ...forwarded() },
      body: init.raw ?? JSON.stringify(body),
    }),
    ctx,
  );
  return { res, body: (await res.json()) as Record<string, unknown> };
}

async function assertionFromService(): Promise<string> {
  const { res, body } = await register();
  expect(res.status).toBe(201);
  return body.identity_assertion as string;
}

const grant = (assertion: string, extra: Record<string, string> = {}) => exchange({ grant_type: JWT_BEARER, assertion, ...extra });

async function callMe(token: string) {
  const res = await me.GET(new Request(`${BASE}/api/v1/me`, { headers: { authorization: `Bearer ${token}`, ...forwarded() } }), ctx);
  return { res, body: (await res.json()) as Record<string, unknown> };
}

async function metadataGrants(): Promise<string[]> {
  const res = await asMeta.GET(new Request(`${BASE}/.well-known/oauth-authorization-server`), ctx);
  return ((await res.json()) as { grant_types_supported: string[] }).grant_types_supported;
}

/** An assertion signed with the service's own key, with one thing changed. */
async function serviceSigned(change: { aud?: string; iss?: string; typ?: string }): Promise<string> {
  const secrets = await requireOAuthSecrets(testServices());
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ registration_type: 'anonymous', scope: ALL_SCOPES })
    .setProtectedHeader({ alg: 'ES256', typ: change.typ ?? IDENTITY_ASSERTION_TYP, kid: secrets.publicJwk.kid })
    .setIssuer(change.iss ?? BASE)
    .setSubject('agr_AAAAAAAAAAAAAAAAAAAAAA')
    .setAudience(change.aud ?? `${BASE}/oauth/token`)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .setJti('j')
    .sign(secrets.signingKey);
}

function setRegistration(value: 'on' | 'off' | undefined) {
  vi.stubEnv('AGENT_REGISTRATION', value);
  resetEnv();
}

for (const engine of testEngines()) {
  describe(`anonymous agent registration on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);
    // The default (unset: on), whatever the shell has set; tests that need another value set it.
    beforeEach(() => setRegistration(undefined));
    afterEach(() => {
      vi.unstubAllEnvs();
      resetEnv();
      setTestServices(suite.services);
    });

    describe('POST /agent/identity', () => {
      it('registers anonymously: 201, the documented fields, a 24-hour service-signed assertion, no-store', async () => {
        const before = Date.now();
        const { res, body } = await register();
        expect(res.status).toBe(201);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('content-type')).toBe('application/json');
        expect(res.headers.get('access-control-allow-origin')).toBe('*');
        expect(res.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
        expect(body).toEqual({
          registration_id: expect.stringMatching(/^agr_[A-Za-z0-9_-]{22}$/),
          registration_type: 'anonymous',
          identity_assertion: expect.any(String),
          assertion_expires: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          pre_claim_scopes: ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read', 'campaigns:read', 'licenses:read'],
        });
        const claims = decodeJwt(body.identity_assertion as string);
        expect(claims).toMatchObject({ iss: BASE, sub: body.registration_id, aud: `${BASE}/oauth/token`, registration_type: 'anonymous' });
        expect(claims.exp! - claims.iat!).toBe(86_400);
        const expires = Date.parse(body.assertion_expires as string);
        expect(expires).toBe(claims.exp! * 1000);
        expect(expires - before).toBeGreaterThan(86_400_000 - 5_000);
        expect(expires - before).toBeLessThanOrEqual(86_400_000 + 1_000);
      });

      it.each([
        ['service_auth', 'service_auth_not_enabled'],
        ['identity_assertion', 'issuer_not_enabled'],
      ])('refuses type %s with 400 %s', async (type, code) => {
        const { res, body } = await register({ type });
        expect(res.status).toBe(400);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(body).toEqual({ error: code, error_description: expect.any(String) });
      });

      it.each([
        ['an empty object', '{}'],
        ['an unknown type', '{"type":"x"}'],
        ['a body that is not JSON', 'type=anonymous'],
        ['an empty body', ''],
        ['a JSON array', '[{"type":"anonymous"}]'],
      ])('refuses %s with 400 invalid_request', async (_what, raw) => {
        const { res, body } = await register(undefined, { raw });
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      });

      it('refuses a body that is not sent as JSON with 415 invalid_request', async () => {
        const { res, body } = await register(undefined, { raw: '{"type":"anonymous"}', contentType: 'text/plain' });
        expect(res.status).toBe(415);
        expect(body.error).toBe('invalid_request');
      });

      it('answers GET with 405 and Allow', async () => {
        const res = await identity.GET(new Request(`${BASE}/agent/identity`, { headers: forwarded() }), ctx);
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST, OPTIONS');
        expect(await res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      });

      it('is rate limited: 429 with Retry-After', async () => {
        const everyone = new (class extends MemoryRateLimiter {
          override consume(_key: string, cost?: number) {
            return super.consume('everyone', cost);
          }
        })({ max: 1, windowSeconds: 60 });
        setTestServices(makeServices({ database: suite.db, rateLimiter: everyone }));
        expect((await register()).res.status).toBe(201);
        const { res, body } = await register();
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(body.error).toBe('rate_limited');
      });

      it('answers 503 temporarily_unavailable in production without a signing key', async () => {
        vi.stubEnv('NODE_ENV', 'production');
        vi.stubEnv('OAUTH_SIGNING_KEY', undefined);
        vi.stubEnv('NEXTAUTH_SECRET', undefined);
        resetEnv();
        setTestServices(makeServices({ database: suite.db })); // nothing loaded yet: the secrets are read under these settings
        const { res, body } = await register();
        expect(res.status).toBe(503);
        expect(body.error).toBe('temporarily_unavailable');
      });
    });

    describe('the JWT-bearer grant at /oauth/token (RFC 7523)', () => {
      it('exchanges the assertion for the sandbox token, which works at /api/v1/me', async () => {
        const { res, body } = await grant(await assertionFromService());
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('service-sandbox')).toBe('true');
        expect(body).toEqual({ access_token: 'svc_sandbox', token_type: 'Bearer', scope: ALL_SCOPES, sandbox: true });

        const profile = await callMe(body.access_token as string);
        expect(profile.res.status).toBe(200);
        expect(profile.res.headers.get('service-sandbox')).toBe('true');
        expect(profile.body.sandbox).toBe(true);
      });

      it('exchanges one assertion as often as wanted until it expires', async () => {
        const assertion = await assertionFromService();
        for (let i = 0; i < 3; i++) {
          const { res, body } = await grant(assertion);
          expect(res.status).toBe(200);
          expect(body.access_token).toBe('svc_sandbox');
        }
      });

      it('refuses an expired assertion with invalid_grant', async () => {
        const secrets = await requireOAuthSecrets(testServices());
        const { assertion } = await issueIdentityAssertion(secrets, Date.now() - 25 * 3600_000);
        const { res, body } = await grant(assertion);
        expect(res.status).toBe(400);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/expired/) });
      });

      it.each([
        [
          'tampered',
          async () => {
            const [h, p, s] = (await assertionFromService()).split('.') as [string, string, string];
            const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
            return `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'agr_BBBBBBBBBBBBBBBBBBBBBB' })).toString('base64url')}.${s}`;
          },
        ],
        [
          'signed by another key',
          async () => {
            const { privateKey } = await generateKeyPair('ES256');
            const secrets = await requireOAuthSecrets(testServices());
            return (await issueIdentityAssertion({ signingKey: privateKey, publicJwk: secrets.publicJwk })).assertion;
          },
        ],
        ['for another audience', () => serviceSigned({ aud: `${BASE}/api/v1` })],
        ['from another issuer', () => serviceSigned({ iss: 'https://another-deployment.example' })],
        ['of the access-token typ', () => serviceSigned({ typ: 'at+jwt' })],
        ['an access token', () => accessToken(suite.users.demo)],
        ['the sandbox token itself', async () => 'svc_sandbox'],
        ['not a JWT', async () => 'not-a-jwt'],
      ])('refuses an assertion that is %s with invalid_grant', async (_what, make) => {
        const { res, body } = await grant(await make());
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: 'invalid_grant', error_description: expect.any(String) });
      });

      it('refuses a missing assertion with invalid_request', async () => {
        const { res, body } = await exchange({ grant_type: JWT_BEARER });
        expect(res.status).toBe(400);
        expect(body.error).toBe('invalid_request');
      });

      it('refuses an unknown scope with invalid_scope, and answers a known one with the full sandbox scope', async () => {
        const assertion = await assertionFromService();
        expect((await grant(assertion, { scope: 'profile:read admin' })).body.error).toBe('invalid_scope');
        const { res, body } = await grant(assertion, { scope: 'profile:read' });
        expect(res.status).toBe(200);
        expect(body.scope).toBe(ALL_SCOPES);
      });

      it('refuses an unknown resource with invalid_target', async () => {
        const { body } = await grant(await assertionFromService(), { resource: 'https://elsewhere.example/api' });
        expect(body.error).toBe('invalid_target');
      });

      it('needs no client, but checks client credentials that are sent', async () => {
        const assertion = await assertionFromService();
        const clientId = await publicClient();
        expect((await grant(assertion, { client_id: clientId })).res.status).toBe(200);
        const unknown = await grant(assertion, { client_id: 'mcl_AAAAAAAAAAAAAAAAAAAAAA' });
        expect(unknown.res.status).toBe(401);
        expect(unknown.body.error).toBe('invalid_client');
        const wrongSecret = await grant(assertion, { client_id: clientId, client_secret: 'guess' });
        expect(wrongSecret.res.status).toBe(401);
        expect(wrongSecret.body.error).toBe('invalid_client');
      });
    });

    describe('assertions are not access tokens', () => {
      it('answers an assertion sent as a bearer token to /api/v1/me with 401 invalid_token', async () => {
        const { res, body } = await callMe(await assertionFromService());
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
        expect(body).toEqual({ error: { status: 401, code: 'invalid_token', message: expect.any(String) } });
      });
    });

    describe('discovery', () => {
      it('lists the JWT-bearer grant in the authorization server metadata while registration is on (the default)', async () => {
        expect(await metadataGrants()).toEqual(['authorization_code', JWT_BEARER]);
        setRegistration('on');
        expect(await metadataGrants()).toEqual(['authorization_code', JWT_BEARER]);
      });
    });

    describe('AGENT_REGISTRATION=off', () => {
      it('answers /agent/identity with 404, whatever the body', async () => {
        setRegistration('off');
        for (const body of [{ type: 'anonymous' }, { type: 'service_auth' }, {}]) {
          const { res, body: answer } = await register(body);
          expect(res.status).toBe(404);
          expect(res.headers.get('cache-control')).toBe('no-store');
          expect(answer).toEqual({ error: 'not_found', error_description: 'Nothing is served at /agent/identity.' });
        }
        expect((await register(undefined, { raw: 'not json' })).res.status).toBe(404);
      });

      it('refuses the grant as unsupported_grant_type, even for an assertion issued while it was on', async () => {
        const assertion = await assertionFromService();
        setRegistration('off');
        const { res, body } = await grant(assertion);
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: 'unsupported_grant_type', error_description: expect.any(String) });
      });

      it('removes the grant from the authorization server metadata', async () => {
        setRegistration('off');
        expect(await metadataGrants()).toEqual(['authorization_code']);
      });

      it('takes effect per request: turning it on again restores all three', async () => {
        setRegistration('off');
        expect((await register()).res.status).toBe(404);
        setRegistration('on');
        const assertion = await assertionFromService();
        expect((await grant(assertion)).res.status).toBe(200);
        expect(await metadataGrants()).toContain(JWT_BEARER);
      });
    });
  });
}
