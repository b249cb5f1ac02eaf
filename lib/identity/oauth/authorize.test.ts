import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetEnv } from '../../platform/env';
import { authorizationResponseUrl, checkAuthorizationRequest, MAX_STATE_LENGTH, type AuthorizeCheck } from './authorize';
import type { ClientLookup } from './client-lookup';
import type { Client } from './clients';

const ISS = 'http://localhost:3000';
const API = 'http://localhost:3000/api/v1';
const MCP = 'http://localhost:3000/mcp';
/** What a request without `scope` asks for: the original four, never campaigns:read nor licenses:read. */
const DEFAULT_SCOPES = ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read'];
// RFC 7636 Appendix B.
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://app.example.com/cb';

const client = (overrides: Partial<Client> = {}): Client => ({
  clientId: 'mcl_aaaaaaaaaaaaaaaaaaaaaa',
  name: 'Example App',
  redirectUris: [REDIRECT],
  authMethod: 'none',
  secretHash: null,
  kind: 'registered',
  verified: false,
  ...overrides,
});

/** A lookup that knows one client, and records what it was asked. */
function lookupOf(known: Client) {
  return vi.fn(async (clientId: string): Promise<ClientLookup> =>
    clientId === known.clientId ? { ok: true, client: known } : { ok: false, reason: 'no client is registered with this client_id' },
  );
}

const VALID: Record<string, string> = {
  client_id: 'mcl_aaaaaaaaaaaaaaaaaaaaaa',
  redirect_uri: REDIRECT,
  response_type: 'code',
  code_challenge: CHALLENGE,
  code_challenge_method: 'S256',
  state: 'xyz',
};

/** The valid request with some parameters replaced (a string), removed (null) or repeated (an array). */
function params(changes: Record<string, string | string[] | null> = {}): URLSearchParams {
  const p = new URLSearchParams();
  const merged: Record<string, string | string[] | null> = { ...VALID, ...changes };
  for (const [k, v] of Object.entries(merged)) {
    if (v === null) continue;
    for (const one of Array.isArray(v) ? v : [v]) p.append(k, one);
  }
  return p;
}

function redirectParams(check: AuthorizeCheck): URL {
  expect(check.kind).toBe('redirect');
  if (check.kind !== 'redirect') throw new Error('not a redirect');
  return new URL(check.location);
}

// Pin PUBLIC_BASE_URL to its default, whatever the shell running the tests has set.
beforeAll(() => {
  vi.stubEnv('PUBLIC_BASE_URL', undefined);
  resetEnv();
});
afterAll(() => {
  vi.unstubAllEnvs();
  resetEnv();
});

describe('checkAuthorizationRequest: the client and its redirect URI, answered on our own page', () => {
  it('shows an error page, without asking the lookup, when client_id is missing', async () => {
    const lookup = lookupOf(client());
    const check = await checkAuthorizationRequest(params({ client_id: null }), lookup);
    expect(check).toEqual({ kind: 'error-page', title: 'Invalid request', message: expect.stringMatching(/client_id is missing/) });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('shows an error page when client_id is empty', async () => {
    const check = await checkAuthorizationRequest(params({ client_id: '' }), lookupOf(client()));
    expect(check.kind).toBe('error-page');
  });

  it('shows an error page when client_id is given twice', async () => {
    const lookup = lookupOf(client());
    const check = await checkAuthorizationRequest(params({ client_id: [VALID.client_id!, VALID.client_id!] }), lookup);
    expect(check).toEqual({ kind: 'error-page', title: 'Invalid request', message: expect.stringMatching(/more than once/) });
    expect(lookup).not.toHaveBeenCalled();
  });

  it('shows an error page naming the lookup’s reason when the client is unknown', async () => {
    const check = await checkAuthorizationRequest(params({ client_id: 'mcl_unknown' }), lookupOf(client()));
    expect(check).toEqual({
      kind: 'error-page',
      title: 'Unknown application',
      message: expect.stringContaining('no client is registered with this client_id'),
    });
  });

  it.each([
    ['another host', 'https://evil.example/cb'],
    ['another path', 'https://app.example.com/cb2'],
    ['a query added', 'https://app.example.com/cb?x=1'],
    ['a fragment added', 'https://app.example.com/cb#x'],
    ['an empty value', ''],
  ])('shows an error page, never a redirect, for an unregistered redirect_uri (%s)', async (_, redirectUri) => {
    const check = await checkAuthorizationRequest(params({ redirect_uri: redirectUri, response_type: 'token' }), lookupOf(client()));
    expect(check).toEqual({ kind: 'error-page', title: 'Invalid redirect URI', message: expect.any(String) });
  });

  it('shows an error page when redirect_uri is given twice, even if both are registered', async () => {
    const check = await checkAuthorizationRequest(params({ redirect_uri: [REDIRECT, REDIRECT] }), lookupOf(client()));
    expect(check).toEqual({ kind: 'error-page', title: 'Invalid request', message: expect.stringMatching(/more than once/) });
  });

  it('uses the only registered redirect URI when redirect_uri is omitted', async () => {
    const check = await checkAuthorizationRequest(params({ redirect_uri: null }), lookupOf(client()));
    expect(check.kind).toBe('valid');
    if (check.kind === 'valid') expect(check.request.redirectUri).toBe(REDIRECT);
  });

  it('shows an error page when redirect_uri is omitted and two are registered', async () => {
    const two = client({ redirectUris: [REDIRECT, 'https://app.example.com/other'] });
    const check = await checkAuthorizationRequest(params({ redirect_uri: null, response_type: 'token' }), lookupOf(two));
    expect(check).toEqual({ kind: 'error-page', title: 'Invalid request', message: expect.stringMatching(/more than one/) });
  });

  it.each(['token', 'code'])('shows an error page for a loopback port out of range (response_type %s)', async (responseType) => {
    const native = client({ redirectUris: ['http://127.0.0.1/cb'] });
    const check = await checkAuthorizationRequest(params({ redirect_uri: 'http://127.0.0.1:99999/cb', response_type: responseType }), lookupOf(native));
    expect(check).toEqual({ kind: 'error-page', title: 'Invalid redirect URI', message: expect.any(String) });
  });

  it('accepts a registered loopback redirect URI on another port, and keeps the port asked for', async () => {
    const native = client({ redirectUris: ['http://127.0.0.1/cb'] });
    const check = await checkAuthorizationRequest(params({ redirect_uri: 'http://127.0.0.1:51234/cb' }), lookupOf(native));
    expect(check.kind).toBe('valid');
    if (check.kind === 'valid') expect(check.request.redirectUri).toBe('http://127.0.0.1:51234/cb');
  });
});

/** Requests wrong in a way found after the client and its redirect URI: what, the change, the error. */
const AFTER_REDIRECT_ERRORS: [string, Record<string, string | string[] | null>, string][] = [
  ['response_type is missing', { response_type: null }, 'invalid_request'],
  ['response_type is token', { response_type: 'token' }, 'unsupported_response_type'],
  ['response_type is "code id_token"', { response_type: 'code id_token' }, 'unsupported_response_type'],
  ['code_challenge is missing', { code_challenge: null }, 'invalid_request'],
  ['code_challenge_method is plain', { code_challenge_method: 'plain' }, 'invalid_request'],
  ['code_challenge_method is s256 in lower case', { code_challenge_method: 's256' }, 'invalid_request'],
  ['code_challenge_method is missing', { code_challenge_method: null }, 'invalid_request'],
  ['code_challenge is too short', { code_challenge: CHALLENGE.slice(1) }, 'invalid_request'],
  ['code_challenge is not base64url', { code_challenge: `${CHALLENGE.slice(1)}+` }, 'invalid_request'],
  ['scope names one outside the four', { scope: 'profile:read admin' }, 'invalid_scope'],
  ['scope is upper case', { scope: 'PROFILE:READ' }, 'invalid_scope'],
  ['resource is unknown', { resource: 'https://other.example/api' }, 'invalid_target'],
  ['resource is one of ours with a trailing slash', { resource: `${MCP}/` }, 'invalid_target'],
  ['scope is given twice', { scope: ['profile:read', 'apps:read'] }, 'invalid_request'],
  ['response_type is given twice', { response_type: ['code', 'code'] }, 'invalid_request'],
  ['code_challenge is given twice', { code_challenge: [CHALLENGE, CHALLENGE] }, 'invalid_request'],
  ['code_challenge_method is given twice', { code_challenge_method: ['S256', 'S256'] }, 'invalid_request'],
  ['state is too long', { state: 's'.repeat(MAX_STATE_LENGTH + 1) }, 'invalid_request'],
];

describe('checkAuthorizationRequest: every other error goes back to the redirect URI with error, state and iss (RFC 6749 §4.1.2.1)', () => {
  it.each(
    AFTER_REDIRECT_ERRORS.flatMap(
      ([what, changes, error]) =>
        [
          [`${what} (a client someone verified)`, changes, error, true],
          [`${what} (a self-registered client)`, changes, error, false],
        ] as const,
    ),
  )('redirects with %s as %s', async (_, changes, error, verified) => {
    const check = await checkAuthorizationRequest(params(changes), lookupOf(client({ verified })));
    const url = redirectParams(check);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect(url.searchParams.get('error')).toBe(error);
    expect(url.searchParams.get('error_description')).toMatch(/\w/);
    expect(url.searchParams.get('iss')).toBe(ISS);
    expect(url.searchParams.has('code')).toBe(false);
    if (!('state' in changes)) expect(url.searchParams.get('state')).toBe('xyz');
  });

  it('omits state from the error redirect when the request had none', async () => {
    const url = redirectParams(await checkAuthorizationRequest(params({ state: null, response_type: 'token' }), lookupOf(client({ verified: true }))));
    expect(url.searchParams.get('error')).toBe('unsupported_response_type');
    expect(url.searchParams.has('state')).toBe(false);
    expect(url.searchParams.get('iss')).toBe(ISS);
  });

  it('rejects a repeated state with invalid_request and does not echo either value', async () => {
    const url = redirectParams(await checkAuthorizationRequest(params({ state: ['a', 'b'] }), lookupOf(client({ verified: true }))));
    expect(url.searchParams.get('error')).toBe('invalid_request');
    expect(url.searchParams.has('state')).toBe(false);
  });

  it('returns the state exactly, even with characters that need encoding', async () => {
    const state = 'a b&c=d/é';
    const url = redirectParams(await checkAuthorizationRequest(params({ state, response_type: 'token' }), lookupOf(client({ verified: true }))));
    expect(url.searchParams.get('state')).toBe(state);
  });
});

describe('checkAuthorizationRequest: a valid request', () => {
  it('grants the original four scopes and both resources by default', async () => {
    const known = client();
    const check = await checkAuthorizationRequest(params(), lookupOf(known));
    expect(check).toEqual({
      kind: 'valid',
      request: { client: known, redirectUri: REDIRECT, scopes: DEFAULT_SCOPES, resources: [API, MCP], state: 'xyz', codeChallenge: CHALLENGE },
    });
  });

  it('grants campaigns:read and licenses:read only when the request names them', async () => {
    for (const [scope, scopes] of [
      [undefined, DEFAULT_SCOPES],
      ['', DEFAULT_SCOPES],
      ['campaigns:read', ['campaigns:read']],
      ['apps:read campaigns:read', ['apps:read', 'campaigns:read']],
      ['campaigns:read api_keys:read earnings:read apps:read profile:read', [...DEFAULT_SCOPES, 'campaigns:read']],
      ['licenses:read', ['licenses:read']],
      ['licenses:read profile:read', ['profile:read', 'licenses:read']],
      ['licenses:read campaigns:read', ['campaigns:read', 'licenses:read']],
    ] as const) {
      const check = await checkAuthorizationRequest(params(scope === undefined ? {} : { scope }), lookupOf(client()));
      expect(check.kind, String(scope)).toBe('valid');
      if (check.kind === 'valid') expect(check.request.scopes, String(scope)).toEqual(scopes);
    }
  });

  it.each([
    [[MCP], [MCP]],
    [[API], [API]],
    [
      [MCP, API],
      [API, MCP],
    ],
  ])('narrows the resources to %j as %j', async (resource, expected) => {
    const check = await checkAuthorizationRequest(params({ resource }), lookupOf(client()));
    expect(check.kind).toBe('valid');
    if (check.kind === 'valid') expect(check.request.resources).toEqual(expected);
  });

  it('keeps the requested scopes in canonical order', async () => {
    const check = await checkAuthorizationRequest(params({ scope: 'earnings:read profile:read' }), lookupOf(client()));
    expect(check.kind).toBe('valid');
    if (check.kind === 'valid') expect(check.request.scopes).toEqual(['profile:read', 'earnings:read']);
  });

  it('has a null state when none was sent, and accepts one of the maximum length', async () => {
    const none = await checkAuthorizationRequest(params({ state: null }), lookupOf(client()));
    expect(none.kind === 'valid' && none.request.state).toBeNull();
    const long = 's'.repeat(MAX_STATE_LENGTH);
    const max = await checkAuthorizationRequest(params({ state: long }), lookupOf(client()));
    expect(max.kind === 'valid' && max.request.state).toBe(long);
  });
});

describe('authorizationResponseUrl', () => {
  it('keeps the redirect URI’s own query and appends the parameters, then iss', () => {
    const location = authorizationResponseUrl('https://app.example.com/cb?tenant=a&x=1', { code: 'c0de', state: 's t' });
    const url = new URL(location);
    expect(`${url.origin}${url.pathname}`).toBe('https://app.example.com/cb');
    expect([...url.searchParams]).toEqual([
      ['tenant', 'a'],
      ['x', '1'],
      ['code', 'c0de'],
      ['state', 's t'],
      ['iss', ISS],
    ]);
  });

  it('leaves out null and undefined parameters', () => {
    const url = new URL(authorizationResponseUrl(REDIRECT, { error: 'access_denied', state: null, error_description: undefined }));
    expect([...url.searchParams]).toEqual([
      ['error', 'access_denied'],
      ['iss', ISS],
    ]);
  });

  it('works for private-use and loopback redirect URIs', () => {
    expect(authorizationResponseUrl('com.example.app:/callback', { code: 'c' })).toBe(`com.example.app:/callback?code=c&iss=${encodeURIComponent(ISS)}`);
    expect(authorizationResponseUrl('http://127.0.0.1:51234/cb', { code: 'c' })).toBe(`http://127.0.0.1:51234/cb?code=c&iss=${encodeURIComponent(ISS)}`);
  });
});

describe('checkAuthorizationRequest: an error redirect of a self-registered client', () => {
  it('goes to its registered redirect URI only, with the error, the state and our issuer, nothing else', async () => {
    const check = await checkAuthorizationRequest(params({ response_type: 'token', state: 's' }), lookupOf(client()));
    const url = redirectParams(check);
    expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
    expect([...url.searchParams.keys()]).toEqual(['error', 'error_description', 'state', 'iss']);
  });
});
