import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES, isScope, parseScopes, SCOPE_DESCRIPTIONS, SCOPES, scopeString } from './scopes';

/** The original four: what an authorization request without `scope` asks for. */
const FOUR = ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read'];
/** Every scope: the four, and those added since, each granted only when asked for. */
const ALL = [...FOUR, 'campaigns:read', 'licenses:read'];

describe('parseScopes', () => {
  it.each([
    ['omitted (null)', null],
    ['omitted (undefined)', undefined],
    ['empty', ''],
    ['only spaces', '   '],
  ])('grants the original four scopes in canonical order, and neither campaigns:read nor licenses:read, when the parameter is %s', (_, value) => {
    expect(parseScopes(value)).toEqual({ ok: true, scopes: FOUR });
  });

  it.each([
    ['earnings:read profile:read', ['profile:read', 'earnings:read']],
    ['api_keys:read apps:read', ['apps:read', 'api_keys:read']],
    ['apps:read apps:read', ['apps:read']],
    ['  profile:read   profile:read earnings:read ', ['profile:read', 'earnings:read']],
    ['api_keys:read earnings:read apps:read profile:read', FOUR],
    ['campaigns:read', ['campaigns:read']],
    ['campaigns:read profile:read', ['profile:read', 'campaigns:read']],
    ['campaigns:read api_keys:read earnings:read apps:read profile:read', [...FOUR, 'campaigns:read']],
    ['licenses:read', ['licenses:read']],
    ['licenses:read campaigns:read', ['campaigns:read', 'licenses:read']],
    ['licenses:read profile:read licenses:read', ['profile:read', 'licenses:read']],
    ['licenses:read campaigns:read api_keys:read earnings:read apps:read profile:read', ALL],
  ])('returns %j as %j: canonical order, no duplicates', (value, scopes) => {
    expect(parseScopes(value)).toEqual({ ok: true, scopes });
  });

  it.each([
    ['profile:write', ['profile:write']],
    ['profile:read admin', ['admin']],
    ['openid email openid profile:read', ['openid', 'email']],
    ['PROFILE:READ', ['PROFILE:READ']],
    ['Apps:read earnings:read', ['Apps:read']],
    ['campaigns:write', ['campaigns:write']],
    ['campaigns:read campaigns', ['campaigns']],
    ['licenses:write', ['licenses:write']],
    ['licenses:read license:read data:read', ['license:read', 'data:read']],
  ])('refuses %j and lists the unknown scopes %j', (value, unknown) => {
    expect(parseScopes(value)).toEqual({ ok: false, unknown });
  });

  it('splits on spaces only, as RFC 6749 §3.3 says (a comma or tab is part of a scope)', () => {
    expect(parseScopes('profile:read,apps:read')).toEqual({ ok: false, unknown: ['profile:read,apps:read'] });
    expect(parseScopes('profile:read\tapps:read')).toEqual({ ok: false, unknown: ['profile:read\tapps:read'] });
  });
});

describe('scope helpers', () => {
  it('know exactly the six scopes, each with a description, and the four an omitted scope means', () => {
    expect([...SCOPES]).toEqual(ALL);
    expect([...DEFAULT_SCOPES]).toEqual(FOUR);
    // Every scope is read-only by name: none allows a write.
    for (const s of SCOPES) expect(s).toMatch(/^[a-z_]+:read$/);
    for (const s of SCOPES) {
      expect(isScope(s)).toBe(true);
      expect(SCOPE_DESCRIPTIONS[s]).toMatch(/\w/);
    }
    expect(isScope('profile:write')).toBe(false);
    expect(isScope('')).toBe(false);
  });

  it('join scopes with single spaces', () => {
    expect(scopeString(['profile:read', 'apps:read'])).toBe('profile:read apps:read');
    expect(scopeString([])).toBe('');
  });
});
