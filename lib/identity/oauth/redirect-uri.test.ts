import { describe, expect, it } from 'vitest';
import { checkRedirectUri, isLoopbackRedirect, matchRedirectUri, MAX_REDIRECT_URI_LENGTH } from './redirect-uri';

describe('checkRedirectUri', () => {
  it.each([
    ['https with a path', 'https://example.com/cb', 'https'],
    ['https with a port and a query', 'https://example.com:8443/oauth/cb?tenant=a', 'https'],
    ['loopback 127.0.0.1 without a port', 'http://127.0.0.1/cb', 'loopback'],
    ['loopback 127.0.0.1 with a port', 'http://127.0.0.1:8765/cb', 'loopback'],
    ['loopback localhost without a port', 'http://localhost/cb', 'loopback'],
    ['loopback localhost with a port', 'http://localhost:3000/callback', 'loopback'],
    ['loopback [::1] without a port', 'http://[::1]/cb', 'loopback'],
    ['loopback [::1] with a port', 'http://[::1]:51234/cb', 'loopback'],
    ['a private-use scheme with one slash', 'com.example.app:/callback', 'private-use'],
    ['a private-use scheme with an authority', 'com.example.app://oauth/callback', 'private-use'],
  ] as const)('accepts %s (%s) as %s', (_, uri, kind) => {
    expect(checkRedirectUri(uri)).toEqual({ ok: true, kind });
  });

  it.each([
    ['a fragment', 'https://example.com/cb#frag', /fragment/],
    ['an empty fragment', 'https://example.com/cb#', /fragment/],
    ['a user name', 'https://user@example.com/cb', /user information/],
    ['a user name and password', 'https://u:p@example.com/cb', /user information/],
    ['an empty user information', 'https://@example.com/cb', /user information/],
    ['the javascript: scheme', 'javascript:alert(1)', /javascript: scheme/],
    ['the data: scheme', 'data:text/html,<b>hi</b>', /data: scheme/],
    ['the file: scheme', 'file:///etc/passwd', /file: scheme/],
    ['http on a non-loopback host', 'http://example.com/cb', /only for 127\.0\.0\.1, localhost and \[::1\]/],
    ['http on a short spelling of 127.0.0.1', 'http://127.1/cb', /only for 127\.0\.0\.1, localhost and \[::1\]/],
    ['http on an upper-case LOCALHOST', 'http://LOCALHOST/cb', /only for 127\.0\.0\.1, localhost and \[::1\]/],
    ['http on another 127/8 address', 'http://127.0.0.2/cb', /only for 127\.0\.0\.1, localhost and \[::1\]/],
    ['http on localhost with a userinfo trick', 'http://localhost:3000@evil.example/cb', /user information/],
    ['a .. segment', 'https://example.com/a/../cb', /dot segments/],
    ['a . segment', 'https://example.com/./cb', /dot segments/],
    ['a percent-encoded .. segment', 'https://example.com/a/%2e%2e/cb', /dot segments/],
    ['a mixed-case percent-encoded . segment', 'https://example.com/a/.%2E/cb', /dot segments/],
    ['a .. segment at the end', 'https://example.com/a/..', /dot segments/],
    ['a .. segment on a loopback URI', 'http://127.0.0.1:8080/a/../cb', /dot segments/],
    ['a .. segment on a private-use URI', 'com.example.app:/a/../cb', /dot segments/],
    ['a relative path', '/cb', /absolute URI/],
    ['a scheme-relative URI', '//example.com/cb', /absolute URI/],
    ['an empty string', '', /non-empty/],
    ['a space', 'https://example.com/c b', /spaces/],
    ['a tab', 'https://example.com/c\tb', /control characters/],
    ['a newline', 'https://example.com/cb\n', /control characters/],
    ['a NUL', 'https://example.com/cb\u0000', /control characters/],
    ['a DEL', 'https://example.com/cb\u007f', /control characters/],
    ['a backslash', 'https://example.com\\cb', /backslashes/],
    ['a scheme without a period', 'myapp:/cb', /private-use scheme/],
    ['an out-of-range loopback port', 'http://127.0.0.1:99999/cb', /absolute URI/],
  ])('refuses %s (%j)', (_, uri, reason) => {
    const check = checkRedirectUri(uri);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(reason);
  });

  it('refuses a URI longer than the limit and accepts one at the limit', () => {
    const base = 'https://example.com/';
    const atLimit = base + 'a'.repeat(MAX_REDIRECT_URI_LENGTH - base.length);
    expect(checkRedirectUri(atLimit)).toEqual({ ok: true, kind: 'https' });
    const tooLong = atLimit + 'a';
    expect(checkRedirectUri(tooLong)).toEqual({ ok: false, reason: expect.stringMatching(/at most/) });
  });

  it('refuses a value that is not a string', () => {
    expect(checkRedirectUri(42 as unknown as string).ok).toBe(false);
  });
});

describe('isLoopbackRedirect', () => {
  it.each([
    ['http://127.0.0.1:8765/cb', true],
    ['http://localhost/cb', true],
    ['http://[::1]/cb', true],
    ['https://127.0.0.1/cb', false],
    ['https://example.com/cb', false],
    ['com.example.app:/cb', false],
  ])('says %s is loopback: %s', (uri, expected) => {
    expect(isLoopbackRedirect(uri)).toBe(expected);
  });
});

describe('matchRedirectUri', () => {
  it('returns a registered URI requested exactly', () => {
    const registered = ['https://example.com/cb', 'com.example.app:/callback'];
    expect(matchRedirectUri(registered, 'https://example.com/cb')).toBe('https://example.com/cb');
    expect(matchRedirectUri(registered, 'com.example.app:/callback')).toBe('com.example.app:/callback');
  });

  it.each([
    ['http://127.0.0.1/cb', 'http://127.0.0.1:51234/cb'],
    ['http://127.0.0.1:8765/cb', 'http://127.0.0.1:9999/cb'],
    ['http://127.0.0.1:8765/cb', 'http://127.0.0.1/cb'],
    ['http://localhost/cb', 'http://localhost:4000/cb'],
    ['http://[::1]:1/cb', 'http://[::1]:2/cb'],
    ['http://127.0.0.1/cb?x=1', 'http://127.0.0.1:4000/cb?x=1'],
  ])('lets registered loopback %s match %s on another port, returning the requested URI', (registered, requested) => {
    expect(matchRedirectUri([registered], requested)).toBe(requested);
  });

  it.each([
    ['the scheme case changed', 'https://example.com/cb', 'HTTPS://example.com/cb'],
    ['the host case changed', 'https://example.com/cb', 'https://EXAMPLE.com/cb'],
    ['userinfo added', 'https://example.com/cb', 'https://user@example.com/cb'],
    ['a fragment added', 'https://example.com/cb', 'https://example.com/cb#x'],
    ['an empty fragment added', 'https://example.com/cb', 'https://example.com/cb#'],
    ['127.1 for 127.0.0.1', 'http://127.0.0.1/cb', 'http://127.1/cb'],
    ['127.1 with a port for 127.0.0.1', 'http://127.0.0.1/cb', 'http://127.1:8080/cb'],
    ['localhost for 127.0.0.1', 'http://127.0.0.1/cb', 'http://localhost/cb'],
    ['localhost with a port for 127.0.0.1', 'http://127.0.0.1/cb', 'http://localhost:8080/cb'],
    ['[::1] for 127.0.0.1', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb'],
    ['LOCALHOST for localhost', 'http://localhost/cb', 'http://LOCALHOST:8080/cb'],
    ['dot segments', 'https://example.com/cb', 'https://example.com/a/../cb'],
    ['dot segments on loopback', 'http://127.0.0.1/cb', 'http://127.0.0.1:8080/a/../cb'],
    ['another path', 'https://example.com/cb', 'https://example.com/cb2'],
    ['a trailing slash', 'https://example.com/cb', 'https://example.com/cb/'],
    ['another loopback path', 'http://127.0.0.1/cb', 'http://127.0.0.1:8080/cb2'],
    ['another host', 'https://example.com/cb', 'https://evil.example/cb'],
    ['a subdomain', 'https://example.com/cb', 'https://a.example.com/cb'],
    ['a query added', 'https://example.com/cb', 'https://example.com/cb?x=1'],
    ['a query changed', 'https://example.com/cb?x=1', 'https://example.com/cb?x=2'],
    ['a loopback query added', 'http://127.0.0.1/cb', 'http://127.0.0.1:8080/cb?x=1'],
    ['a loopback query changed', 'http://127.0.0.1/cb?x=1', 'http://127.0.0.1:8080/cb?x=2'],
    ['https registered, http requested', 'https://example.com/cb', 'http://example.com/cb'],
    ['https loopback registered, http loopback requested', 'https://127.0.0.1/cb', 'http://127.0.0.1:8080/cb'],
    ['a non-loopback https URI on another port', 'https://example.com/cb', 'https://example.com:8443/cb'],
    ['a private-use URI with another path', 'com.example.app:/callback', 'com.example.app:/other'],
  ])('does not match when %s', (_, registered, requested) => {
    expect(matchRedirectUri([registered], requested)).toBeNull();
  });

  it('does not match a loopback URI whose port is out of range', () => {
    expect(matchRedirectUri(['http://127.0.0.1/cb'], 'http://127.0.0.1:99999/cb')).toBeNull();
  });

  it('matches nothing when nothing is registered', () => {
    expect(matchRedirectUri([], 'https://example.com/cb')).toBeNull();
    expect(matchRedirectUri([], 'http://127.0.0.1:8080/cb')).toBeNull();
  });
});
