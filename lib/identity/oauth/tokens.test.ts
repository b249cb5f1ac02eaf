import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { resetEnv } from '../../platform/env';
import type { OAuthSecrets } from '../secrets';
import { ACCESS_TOKEN_TTL_S, issueAccessToken, verifyAccessToken } from './tokens';

const ISS = 'http://localhost:3000';
const API = 'http://localhost:3000/api/v1';
const MCP = 'http://localhost:3000/mcp';
const CLAIMS = { sub: 'user-1', client_id: 'mcl_aaaaaaaaaaaaaaaaaaaaaa', scope: 'profile:read apps:read' };

type Keys = Pick<OAuthSecrets, 'signingKey' | 'verifyKey' | 'publicJwk'>;

async function newKeys(kid = 'k1'): Promise<Keys> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  return { signingKey: privateKey, verifyKey: publicKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** A token signed by hand, to vary what issueAccessToken always gets right. */
function handMade(key: CryptoKey, options: { typ?: string; iss?: string; claims?: Record<string, unknown>; omit?: string[]; iat?: number; exp?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ client_id: CLAIMS.client_id, scope: CLAIMS.scope, ...options.claims }).setProtectedHeader({
    alg: 'ES256',
    typ: options.typ ?? 'at+jwt',
  });
  const omit = new Set(options.omit);
  if (!omit.has('iss')) jwt.setIssuer(options.iss ?? ISS);
  if (!omit.has('sub')) jwt.setSubject(CLAIMS.sub);
  jwt.setAudience(API);
  if (!omit.has('iat')) jwt.setIssuedAt(options.iat ?? now);
  if (!omit.has('exp')) jwt.setExpirationTime(options.exp ?? now + 600);
  if (!omit.has('jti')) jwt.setJti('jti-1');
  return jwt.sign(key);
}

let keys: Keys;
let otherKeys: Keys;

beforeAll(async () => {
  // Pin PUBLIC_BASE_URL (the issuer) to its default, whatever the shell has set.
  vi.stubEnv('PUBLIC_BASE_URL', undefined);
  resetEnv();
  keys = await newKeys();
  otherKeys = await newKeys('k2');
});
afterAll(() => {
  vi.unstubAllEnvs();
  resetEnv();
});

describe('issueAccessToken', () => {
  it('signs an RFC 9068 JWT: typ at+jwt, ES256, our kid, and the claims', async () => {
    const now = Date.now();
    const { token, expiresIn } = await issueAccessToken({ ...CLAIMS, aud: [API, MCP] }, keys, now);
    expect(expiresIn).toBe(ACCESS_TOKEN_TTL_S);
    const [header, payload] = token
      .split('.')
      .slice(0, 2)
      .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')));
    expect(header).toEqual({ alg: 'ES256', typ: 'at+jwt', kid: 'k1' });
    const iat = Math.floor(now / 1000);
    expect(payload).toEqual({
      iss: ISS,
      sub: CLAIMS.sub,
      aud: [API, MCP],
      client_id: CLAIMS.client_id,
      scope: CLAIMS.scope,
      iat,
      exp: iat + ACCESS_TOKEN_TTL_S,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('writes a single audience as a string and gives every token its own jti', async () => {
    const a = await issueAccessToken({ ...CLAIMS, aud: [MCP] }, keys);
    const b = await issueAccessToken({ ...CLAIMS, aud: [MCP] }, keys);
    const payload = (t: string) => JSON.parse(Buffer.from(t.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload(a.token).aud).toBe(MCP);
    expect(payload(a.token).jti).not.toBe(payload(b.token).jti);
  });
});

describe('verifyAccessToken', () => {
  it.each([
    ['both resources, verified by the API', [API, MCP], API],
    ['both resources, verified by MCP', [API, MCP], MCP],
    ['the API only', [API], API],
    ['MCP only', [MCP], MCP],
  ])('accepts a token for %s', async (_, aud, audience) => {
    const now = Date.now();
    const { token } = await issueAccessToken({ ...CLAIMS, aud }, keys, now);
    const result = await verifyAccessToken(token, audience, keys);
    expect(result).toEqual({
      ok: true,
      token: {
        sub: CLAIMS.sub,
        clientId: CLAIMS.client_id,
        scopes: ['profile:read', 'apps:read'],
        expiresAt: new Date((Math.floor(now / 1000) + ACCESS_TOKEN_TTL_S) * 1000),
        payload: expect.objectContaining({ iss: ISS, sub: CLAIMS.sub }),
      },
    });
  });

  it.each([
    ['the API', [API], MCP],
    ['MCP', [MCP], API],
  ])('refuses a token for %s only on the other resource', async (_, aud, audience) => {
    const { token } = await issueAccessToken({ ...CLAIMS, aud }, keys);
    expect(await verifyAccessToken(token, audience, keys)).toEqual({
      ok: false,
      reason: 'invalid',
      description: 'The access token was not issued for this resource.',
    });
  });

  it('says an expired token is expired', async () => {
    const { token } = await issueAccessToken({ ...CLAIMS, aud: [API] }, keys, Date.now() - 2 * 3600 * 1000);
    expect(await verifyAccessToken(token, API, keys)).toEqual({ ok: false, reason: 'expired', description: expect.any(String) });
  });

  it('refuses a token signed by another key', async () => {
    const { token } = await issueAccessToken({ ...CLAIMS, aud: [API] }, otherKeys);
    expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('refuses a token whose signature was changed', async () => {
    const { token } = await issueAccessToken({ ...CLAIMS, aud: [API] }, keys);
    const [h, p, s] = token.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    expect(await verifyAccessToken(flipped, API, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('refuses a token whose claims were changed after signing', async () => {
    const { token } = await issueAccessToken({ ...CLAIMS, scope: 'profile:read', aud: [API] }, keys);
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    const widened = Buffer.from(JSON.stringify({ ...claims, scope: 'profile:read earnings:read' })).toString('base64url');
    expect(await verifyAccessToken(`${h}.${widened}.${s}`, API, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  it('accepts a hand-made token that has everything right (the cases below change one thing)', async () => {
    expect(await verifyAccessToken(await handMade(keys.signingKey), API, keys)).toMatchObject({ ok: true });
  });

  it('accepts typ application/at+jwt, the long form RFC 9068 §4 also allows', async () => {
    const token = await handMade(keys.signingKey, { typ: 'application/at+jwt' });
    expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: true });
  });

  it.each<[string, Parameters<typeof handMade>[1]]>([
    ['another issuer', { iss: 'https://other.example' }],
    ['our issuer with a trailing slash', { iss: `${ISS}/` }],
    ['no issuer', { omit: ['iss'] }],
    ['typ JWT instead of at+jwt', { typ: 'JWT' }],
    ['no sub', { omit: ['sub'] }],
    ['no jti', { omit: ['jti'] }],
    ['no iat', { omit: ['iat'] }],
    ['no exp', { omit: ['exp'] }],
    ['no scope', { claims: { scope: undefined } }],
    ['a scope that is not a string', { claims: { scope: ['profile:read'] } }],
    ['no client_id', { claims: { client_id: undefined } }],
  ])('refuses a token with %s as invalid', async (_, options) => {
    const token = await handMade(keys.signingKey, options);
    expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });

  describe('the token age: no token outlives the longest lifetime we issue, whatever its exp says', () => {
    const now = () => Math.floor(Date.now() / 1000);

    it('refuses a token signed by our key, issued 2 hours ago, with an exp still in the future', async () => {
      const token = await handMade(keys.signingKey, { iat: now() - 2 * 3600, exp: now() + 600 });
      expect(await verifyAccessToken(token, API, keys)).toEqual({ ok: false, reason: 'expired', description: 'The access token has expired.' });
    });

    it('refuses a token issued just over an hour ago with a far-future exp', async () => {
      const token = await handMade(keys.signingKey, { iat: now() - ACCESS_TOKEN_TTL_S - 10, exp: now() + 365 * 86_400 });
      expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('refuses a token issued in the future (beyond a few seconds of clock skew)', async () => {
      const token = await handMade(keys.signingKey, { iat: now() + 3600, exp: now() + 7200 });
      expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: false, reason: 'invalid' });
    });

    it('accepts a token from an instance whose clock runs a second or two ahead', async () => {
      const token = await handMade(keys.signingKey, { iat: now() + 2, exp: now() + 2 + ACCESS_TOKEN_TTL_S });
      expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: true });
    });

    it('refuses a fresh token that claims a lifetime over one hour', async () => {
      const token = await handMade(keys.signingKey, { iat: now(), exp: now() + 365 * 86_400 });
      expect(await verifyAccessToken(token, API, keys)).toEqual({
        ok: false,
        reason: 'invalid',
        description: 'The access token claims a lifetime over one hour.',
      });
    });

    it('accepts a token that lives exactly the hour we issue, to its last second', async () => {
      const token = await handMade(keys.signingKey, { iat: now() - ACCESS_TOKEN_TTL_S + 5, exp: now() + 5 });
      expect(await verifyAccessToken(token, API, keys)).toMatchObject({ ok: true });
    });
  });

  it('refuses a token with alg none as malformed or invalid, never ok', async () => {
    const { token } = await issueAccessToken({ ...CLAIMS, aud: [API] }, keys);
    const payload = token.split('.')[1]!;
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    expect((await verifyAccessToken(`${header}.${payload}.`, API, keys)).ok).toBe(false);
    expect((await verifyAccessToken(`${header}.${payload}.AAAA`, API, keys)).ok).toBe(false);
  });

  it.each(['garbage', '', 'a.b', 'a.b.c.d', 'a.b.c d', 'Bearer x.y.z'])('says %j is malformed', async (token) => {
    expect(await verifyAccessToken(token, API, keys)).toEqual({ ok: false, reason: 'malformed', description: 'The access token is not a JWT.' });
  });

  it('says three base64url parts that are not a JWT are invalid', async () => {
    expect(await verifyAccessToken('aaaa.bbbb.cccc', API, keys)).toMatchObject({ ok: false, reason: 'invalid' });
  });
});
