import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { resetEnv } from '../../platform/env';
import { OAuthError } from '../../platform/http/errors';
import type { OAuthSecrets } from '../secrets';
import { issueAccessToken, verifyAccessToken } from './tokens';
import {
  agentRegistrationEnabled,
  IDENTITY_ASSERTION_TTL_S,
  IDENTITY_ASSERTION_TYP,
  issueIdentityAssertion,
  registrationBody,
  registrationType,
  sandboxTokenBody,
  verifyIdentityAssertion,
} from './agent-identity';

const ISS = 'http://localhost:3000';
const TOKEN_ENDPOINT = 'http://localhost:3000/oauth/token';
const SCOPE = 'profile:read apps:read earnings:read api_keys:read campaigns:read licenses:read';

type Keys = Pick<OAuthSecrets, 'signingKey' | 'verifyKey' | 'publicJwk'>;

async function newKeys(kid: string): Promise<Keys> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { signingKey: privateKey, verifyKey: publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** An assertion signed by hand, to vary what issueIdentityAssertion always gets right. */
function handMade(
  key: CryptoKey,
  o: { typ?: string; iss?: string; aud?: string; sub?: string; iat?: number; exp?: number; claims?: Record<string, unknown>; omit?: string[] } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ registration_type: 'anonymous', scope: SCOPE, ...o.claims }).setProtectedHeader({
    alg: 'ES256',
    typ: o.typ ?? IDENTITY_ASSERTION_TYP,
  });
  const omit = new Set(o.omit);
  jwt.setIssuer(o.iss ?? ISS).setAudience(o.aud ?? TOKEN_ENDPOINT);
  if (!omit.has('sub')) jwt.setSubject(o.sub ?? 'agr_AAAAAAAAAAAAAAAAAAAAAA');
  if (!omit.has('iat')) jwt.setIssuedAt(o.iat ?? now);
  if (!omit.has('exp')) jwt.setExpirationTime(o.exp ?? now + 600);
  if (!omit.has('jti')) jwt.setJti('jti-1');
  return jwt.sign(key);
}

function refusal(body: unknown): OAuthError {
  try {
    registrationType(body);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    return err as OAuthError;
  }
  throw new Error('registrationType accepted the body');
}

let keys: Keys;
let otherKeys: Keys;

beforeAll(async () => {
  // Pin PUBLIC_BASE_URL (issuer and audience) to its default, whatever the shell has set.
  vi.stubEnv('PUBLIC_BASE_URL', undefined);
  resetEnv();
  keys = await newKeys('k1');
  otherKeys = await newKeys('k2');
});
afterAll(() => {
  vi.unstubAllEnvs();
  resetEnv();
});

describe('registrationType: only anonymous is offered', () => {
  it('accepts anonymous, ignoring other fields', () => {
    expect(registrationType({ type: 'anonymous' })).toBe('anonymous');
    expect(registrationType({ type: 'anonymous', name: 'my agent' })).toBe('anonymous');
  });

  it.each([
    ['service_auth', 'service_auth_not_enabled'],
    ['identity_assertion', 'issuer_not_enabled'],
  ])('refuses %s with 400 %s', (type, code) => {
    const e = refusal({ type });
    expect(e.code).toBe(code);
    expect(e.status).toBe(400);
  });

  it.each([
    ['an empty object', {}],
    ['an unknown type', { type: 'x' }],
    ['a type of another case', { type: 'Anonymous' }],
    ['a non-string type', { type: 1 }],
    ['null', null],
    ['an array', [{ type: 'anonymous' }]],
    ['a string', 'anonymous'],
  ])('refuses %s with 400 invalid_request', (_what, body) => {
    const e = refusal(body);
    expect(e.code).toBe('invalid_request');
    expect(e.status).toBe(400);
  });
});

describe('identity assertions', () => {
  it('are ES256 JWTs of their own typ, for our token endpoint, living 24 hours', async () => {
    const now = Date.UTC(2030, 0, 1, 12, 0, 0);
    const r = await issueIdentityAssertion(keys, now);
    expect(r.registrationId).toMatch(/^agr_[A-Za-z0-9_-]{22}$/);
    expect(decodeProtectedHeader(r.assertion)).toEqual({ alg: 'ES256', typ: 'agent-identity+jwt', kid: 'k1' });
    const claims = decodeJwt(r.assertion);
    expect(claims).toEqual({
      iss: ISS,
      sub: r.registrationId,
      aud: TOKEN_ENDPOINT,
      iat: now / 1000,
      exp: now / 1000 + 86_400,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
      registration_type: 'anonymous',
      scope: SCOPE,
    });
    expect(r.expiresAt.toISOString()).toBe('2030-01-02T12:00:00.000Z');
  });

  it('give each registration its own id and jti', async () => {
    const a = await issueIdentityAssertion(keys);
    const b = await issueIdentityAssertion(keys);
    expect(a.registrationId).not.toBe(b.registrationId);
    expect(decodeJwt(a.assertion).jti).not.toBe(decodeJwt(b.assertion).jti);
  });

  it('make the documented 201 body: id, type, assertion, expiry, pre-claim scopes', async () => {
    const r = await issueIdentityAssertion(keys, Date.UTC(2030, 0, 1));
    expect(registrationBody(r)).toEqual({
      registration_id: r.registrationId,
      registration_type: 'anonymous',
      identity_assertion: r.assertion,
      assertion_expires: '2030-01-02T00:00:00.000Z',
      pre_claim_scopes: ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read', 'campaigns:read', 'licenses:read'],
    });
  });

  it('verify as often as presented until they expire (reuse)', async () => {
    const now = Date.now();
    const r = await issueIdentityAssertion(keys, now);
    for (const at of [now, now + 1000, now + (IDENTITY_ASSERTION_TTL_S - 1) * 1000]) {
      expect(await verifyIdentityAssertion(r.assertion, keys, at)).toEqual({ ok: true, registrationId: r.registrationId, expiresAt: r.expiresAt });
    }
  });

  it('are expired at and after 24 hours', async () => {
    const now = Date.now();
    const r = await issueIdentityAssertion(keys, now);
    for (const at of [now + IDENTITY_ASSERTION_TTL_S * 1000, now + 30 * 3600_000]) {
      expect(await verifyIdentityAssertion(r.assertion, keys, at)).toMatchObject({ ok: false, reason: 'expired' });
    }
  });

  it('refuse one issued in the future', async () => {
    const r = await issueIdentityAssertion(keys, Date.now() + 3600_000);
    expect(await verifyIdentityAssertion(r.assertion, keys)).toMatchObject({ ok: false });
  });

  it('refuse a lifetime over 24 hours even when signed with our key', async () => {
    const now = Math.floor(Date.now() / 1000);
    const long = await handMade(keys.signingKey, { iat: now, exp: now + IDENTITY_ASSERTION_TTL_S + 60 });
    expect(await verifyIdentityAssertion(long, keys)).toMatchObject({ ok: false, reason: 'invalid' });
    const old = await handMade(keys.signingKey, { iat: now - IDENTITY_ASSERTION_TTL_S - 60, exp: now + 60 });
    expect(await verifyIdentityAssertion(old, keys)).toMatchObject({ ok: false });
  });

  it('accept the hand-made control case (so the refusals below test one thing each)', async () => {
    expect(await verifyIdentityAssertion(await handMade(keys.signingKey), keys)).toMatchObject({ ok: true });
  });

  it.each([
    ['another key', () => handMade(otherKeys.signingKey)],
    ['another issuer', () => handMade(keys.signingKey, { iss: 'https://another-deployment.example' })],
    ['another audience (the REST resource)', () => handMade(keys.signingKey, { aud: 'http://localhost:3000/api/v1' })],
    ['the access-token typ', () => handMade(keys.signingKey, { typ: 'at+jwt' })],
    ['no typ-specific claim', () => handMade(keys.signingKey, { claims: { registration_type: undefined } })],
    ['another registration type', () => handMade(keys.signingKey, { claims: { registration_type: 'service_auth' } })],
    ['a subject that is not a registration id', () => handMade(keys.signingKey, { sub: 'user-1' })],
    ['no jti', () => handMade(keys.signingKey, { omit: ['jti'] })],
    ['no exp', () => handMade(keys.signingKey, { omit: ['exp'] })],
    ['no sub', () => handMade(keys.signingKey, { omit: ['sub'] })],
  ])('refuse an assertion with %s', async (_what, make) => {
    expect(await verifyIdentityAssertion(await make(), keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('refuse a tampered assertion', async () => {
    const { assertion } = await issueIdentityAssertion(keys);
    const [h, p, s] = assertion.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, exp: (claims.exp as number) + 86_400 })).toString('base64url');
    expect(await verifyIdentityAssertion(`${h}.${forged}.${s}`, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it.each(['', 'svc_sandbox', 'not.a.jwt!', 'a.b', 'eyJhbGciOiJub25lIn0.e30.'])('refuse %j as not a JWT', async (text) => {
    expect(await verifyIdentityAssertion(text, keys)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuse alg none', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: IDENTITY_ASSERTION_TYP })).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const body = Buffer.from(
      JSON.stringify({ iss: ISS, aud: TOKEN_ENDPOINT, sub: 'agr_AAAAAAAAAAAAAAAAAAAAAA', iat: now, exp: now + 60, jti: 'x', registration_type: 'anonymous' }),
    ).toString('base64url');
    expect(await verifyIdentityAssertion(`${header}.${body}.AA`, keys)).toMatchObject({ ok: false });
  });
});

describe('assertions and access tokens cannot stand in for each other', () => {
  it('an access token is not an assertion', async () => {
    const { token } = await issueAccessToken({ sub: 'user-1', client_id: 'mcl_aaaaaaaaaaaaaaaaaaaaaa', scope: SCOPE, aud: [TOKEN_ENDPOINT] }, keys);
    // Even with the token endpoint as its audience, the typ and claims differ.
    expect(await verifyIdentityAssertion(token, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('an assertion is not an access token, for either resource', async () => {
    const { assertion } = await issueIdentityAssertion(keys);
    for (const aud of ['http://localhost:3000/api/v1', 'http://localhost:3000/mcp', TOKEN_ENDPOINT]) {
      expect(await verifyAccessToken(assertion, aud, keys)).toMatchObject({ ok: false, reason: 'invalid' });
    }
  });
});

describe('the sandbox token answer and the off switch', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.stubEnv('PUBLIC_BASE_URL', undefined);
    resetEnv();
  });

  it('is the sandbox token with every scope, no expiry', () => {
    expect(sandboxTokenBody()).toEqual({ access_token: 'svc_sandbox', token_type: 'Bearer', scope: SCOPE, sandbox: true });
  });

  it('is on by default, off with AGENT_REGISTRATION=off, read per call', () => {
    vi.stubEnv('AGENT_REGISTRATION', undefined);
    resetEnv();
    expect(agentRegistrationEnabled()).toBe(true);
    vi.stubEnv('AGENT_REGISTRATION', 'off');
    resetEnv();
    expect(agentRegistrationEnabled()).toBe(false);
    vi.stubEnv('AGENT_REGISTRATION', 'on');
    resetEnv();
    expect(agentRegistrationEnabled()).toBe(true);
  });
});
