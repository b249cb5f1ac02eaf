import { describe, expect, it } from 'vitest';
import { OAuthError } from '../../platform/http/errors';
import { hashClientSecret, MAX_CLIENT_NAME, secretMatches, validateRegistration } from './clients';

const GOOD = { client_name: 'Example App', redirect_uris: ['https://app.example.com/cb', 'http://127.0.0.1/cb'] };

/** The OAuthError validateRegistration throws for this body. */
function refusal(body: unknown): OAuthError {
  try {
    validateRegistration(body);
  } catch (err) {
    expect(err).toBeInstanceOf(OAuthError);
    return err as OAuthError;
  }
  throw new Error('validateRegistration accepted the body');
}

describe('validateRegistration', () => {
  it.each(['none', 'client_secret_post', 'client_secret_basic'] as const)('accepts token_endpoint_auth_method %s', (method) => {
    expect(validateRegistration({ ...GOOD, token_endpoint_auth_method: method })).toEqual({
      client_name: 'Example App',
      redirect_uris: GOOD.redirect_uris,
      token_endpoint_auth_method: method,
    });
  });

  it('defaults token_endpoint_auth_method to client_secret_basic (RFC 7591 §2)', () => {
    expect(validateRegistration(GOOD).token_endpoint_auth_method).toBe('client_secret_basic');
  });

  it('trims the client name and accepts the metadata it does not use', () => {
    const input = validateRegistration({
      ...GOOD,
      client_name: '  Example App  ',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      scope: 'profile:read apps:read',
      logo_uri: 'https://app.example.com/logo.png',
    });
    expect(input).toEqual({ client_name: 'Example App', redirect_uris: GOOD.redirect_uris, token_endpoint_auth_method: 'client_secret_basic' });
  });

  it('accepts ten redirect URIs and a name of the maximum length', () => {
    const uris = Array.from({ length: 10 }, (_, i) => `https://app.example.com/cb${i}`);
    expect(validateRegistration({ client_name: 'x'.repeat(MAX_CLIENT_NAME), redirect_uris: uris }).redirect_uris).toEqual(uris);
  });

  it.each<[string, unknown]>([
    ['missing', { client_name: 'A' }],
    ['empty', { client_name: 'A', redirect_uris: [] }],
    ['not an array', { client_name: 'A', redirect_uris: 'https://app.example.com/cb' }],
    ['holding a non-string', { client_name: 'A', redirect_uris: [42] }],
    ['holding a bad URI (http on a public host)', { client_name: 'A', redirect_uris: ['https://app.example.com/cb', 'http://app.example.com/cb'] }],
    ['holding a URI with a fragment', { client_name: 'A', redirect_uris: ['https://app.example.com/cb#x'] }],
    ['holding a javascript: URI', { client_name: 'A', redirect_uris: ['javascript:alert(1)'] }],
    ['eleven URIs', { client_name: 'A', redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`) }],
  ])('refuses redirect_uris %s with invalid_redirect_uri', (_, body) => {
    const err = refusal(body);
    expect(err.code).toBe('invalid_redirect_uri');
    expect(err.status).toBe(400);
  });

  it.each<[string, unknown]>([
    ['a missing client_name', { redirect_uris: GOOD.redirect_uris }],
    ['a blank client_name', { ...GOOD, client_name: '   ' }],
    ['a client_name that is not a string', { ...GOOD, client_name: 42 }],
    ['a client_name that is too long', { ...GOOD, client_name: 'x'.repeat(MAX_CLIENT_NAME + 1) }],
    ['a client_name with a control character', { ...GOOD, client_name: 'Example\nApp' }],
    ['a client_name with a RIGHT-TO-LEFT OVERRIDE', { ...GOOD, client_name: 'Monetize Official \u202eelgooG' }],
    ['a client_name with a RIGHT-TO-LEFT ISOLATE', { ...GOOD, client_name: 'Example \u2067App' }],
    ['a client_name with a ZERO WIDTH SPACE', { ...GOOD, client_name: 'Goo\u200bgle' }],
    ['a client_name with a BOM at its end (which trimming would otherwise drop)', { ...GOOD, client_name: 'Example App\ufeff' }],
    ['a client_name with a LINE SEPARATOR', { ...GOOD, client_name: 'Example\u2028App' }],
    ['a client_name with a private-use character', { ...GOOD, client_name: 'Example \ue000' }],
    ['an unknown auth method', { ...GOOD, token_endpoint_auth_method: 'private_key_jwt' }],
    ['an auth method that is not a string', { ...GOOD, token_endpoint_auth_method: 1 }],
    ['grant_types with refresh_token', { ...GOOD, grant_types: ['authorization_code', 'refresh_token'] }],
    ['grant_types with implicit', { ...GOOD, grant_types: ['implicit'] }],
    ['grant_types that is not an array', { ...GOOD, grant_types: 'authorization_code' }],
    ['response_types with token', { ...GOOD, response_types: ['token'] }],
    ['response_types with code and token', { ...GOOD, response_types: ['code', 'token'] }],
    ['an unknown scope', { ...GOOD, scope: 'profile:read admin' }],
    ['a scope that is not a string', { ...GOOD, scope: ['profile:read'] }],
    ['a body that is null', null],
    ['a body that is an array', [GOOD]],
    ['a body that is a string', JSON.stringify(GOOD)],
  ])('refuses %s with invalid_client_metadata', (_, body) => {
    const err = refusal(body);
    expect(err.code).toBe('invalid_client_metadata');
    expect(err.status).toBe(400);
    expect(err.body()).toEqual({ error: 'invalid_client_metadata', error_description: expect.any(String) });
  });
});

describe('validateRegistration and the client name shown on the consent page', () => {
  it('says which character of client_name is refused and why', () => {
    const err = refusal({ ...GOOD, client_name: 'Monetize Official \u202eelgooG' });
    expect(err.code).toBe('invalid_client_metadata');
    expect(err.body().error_description).toMatch(/^client_name .*U\+202E.*consent page/);
  });

  it('accepts a name in a right-to-left script, which needs no control character', () => {
    expect(validateRegistration({ ...GOOD, client_name: 'أداة الأرباح' }).client_name).toBe('أداة الأرباح');
  });
});

describe('client secrets', () => {
  const secret = 'mcs_0123456789abcdefghijklmnopqrstuvwxyzABCDEFG';

  it('are stored as a SHA-256 hex hash, never as themselves', () => {
    const hash = hashClientSecret(secret);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).not.toContain(secret);
    expect(hashClientSecret(secret)).toBe(hash);
    expect(hashClientSecret(`${secret}x`)).not.toBe(hash);
    // A known vector: SHA-256("abc").
    expect(hashClientSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it.each([
    ['the secret itself', secret, true],
    ['another secret', `${secret}x`, false],
    ['an empty secret', '', false],
    ['the hash instead of the secret', hashClientSecret(secret), false],
  ])('match %s: %s', (_, given, expected) => {
    expect(secretMatches(given, hashClientSecret(secret))).toBe(expected);
  });

  it.each([
    ['empty', ''],
    ['truncated', hashClientSecret(secret).slice(0, 32)],
    ['not hex', 'z'.repeat(64)],
  ])('never match a stored hash that is %s', (_, hash) => {
    expect(secretMatches(secret, hash)).toBe(false);
  });
});
