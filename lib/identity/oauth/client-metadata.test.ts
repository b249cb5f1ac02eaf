import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resetEnv } from '../../platform/env';
import { checkClientIdUrl, freshnessSeconds, isPrivateAddress, looksLikeMetadataUrl, parseClientMetadataDocument } from './client-metadata';

// Pin the SSRF switch to its default, whatever the shell running the tests has set.
beforeEach(() => {
  vi.stubEnv('OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS', undefined);
  resetEnv();
});
afterEach(() => {
  vi.unstubAllEnvs();
  resetEnv();
});

describe('isPrivateAddress', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['another IPv4 loopback', '127.255.0.1'],
    ['10/8', '10.1.2.3'],
    ['172.16/12', '172.16.0.1'],
    ['the top of 172.16/12', '172.31.255.255'],
    ['192.168/16', '192.168.1.1'],
    ['the cloud metadata address', '169.254.169.254'],
    ['carrier-grade NAT', '100.64.0.1'],
    ['the unspecified IPv4 address', '0.0.0.0'],
    ['multicast', '224.0.0.1'],
    ['IPv6 loopback', '::1'],
    ['the unspecified IPv6 address', '::'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 unique local', 'fc00::1'],
    ['IPv6 unique local (fd)', 'fd12:3456::1'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1'],
    ['IPv4-mapped private address, in hex', '::ffff:a00:1'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
    ['not an IP address', 'example.com'],
    ['an empty string', ''],
    // ::/96, IPv4-compatible (deprecated by RFC 4291 §2.5.5.1): never a real destination.
    ['IPv4-compatible loopback, dotted', '::127.0.0.1'],
    ['IPv4-compatible loopback, in hex', '::7f00:1'],
    ['IPv4-compatible private address', '::a00:1'],
    ['IPv4-compatible cloud metadata address', '::169.254.169.254'],
    ['IPv4-compatible public address (the whole ::/96 is refused)', '::93.184.216.34'],
    ['another address of ::/96', '::2'],
    // ::ffff:0:0/96, IPv4-mapped: judged by the IPv4 address inside, however it is written.
    ['IPv4-mapped loopback, written in full', '0:0:0:0:0:ffff:7f00:1'],
    ['IPv4-mapped loopback, with a leading zero group', '0::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, upper case', '::FFFF:7F00:1'],
    ['IPv4-mapped cloud metadata address', '::ffff:169.254.169.254'],
    ['IPv4-mapped unspecified address', '::ffff:0.0.0.0'],
    ['IPv4-mapped 100.64/10', '::ffff:6440:1'],
    // ::ffff:0:0:0/96, IPv4-translated (RFC 7915)
    ['IPv4-translated loopback', '::ffff:0:7f00:1'],
    // 64:ff9b::/96 and 64:ff9b:1::/48, NAT64 (RFC 6052, RFC 8215): a translator may reach anything.
    ['NAT64 of loopback', '64:ff9b::127.0.0.1'],
    ['NAT64 of a public address (the whole prefix is refused)', '64:ff9b::5db8:d822'],
    ['local-use NAT64', '64:ff9b:1::a00:1'],
    ['the top of local-use NAT64', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    // 2002::/16, 6to4 (RFC 3056), and 2001::/32, Teredo (RFC 4380): both embed an IPv4 address.
    ['6to4 of loopback', '2002:7f00:1::1'],
    ['6to4 of a public address (the whole prefix is refused)', '2002:5db8:d822::1'],
    ['Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['benchmarking (2001:2::/48)', '2001:2::1'],
    ['documentation (2001:db8::/32)', '2001:db8::1'],
    ['documentation (3fff::/20)', '3fff::1'],
    ['discard-only (100::/64)', '100::1'],
    ['IPv6 site-local (deprecated)', 'fec0::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv6 link-local with a zone', 'fe80::1%eth0'],
  ])('blocks %s (%s)', (_, address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['a public IPv6 address', '2606:4700::1111'],
    ['an IPv4-mapped public address (judged by its IPv4 part)', '::ffff:93.184.216.34'],
    ['another public IPv6 address', '2a00:1450:4001:80b::200e'],
    ['a public IPv6 address under 2001::/16 but outside 2001::/23', '2001:4860:4860::8888'],
    ['an IPv4-mapped public address written in full', '0:0:0:0:0:ffff:5db8:d822'],
  ])('allows %s (%s)', (_, address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it.each([
    ['a public IPv4 address', '93.184.216.34'],
    ['just outside 172.16/12', '172.32.0.1'],
    ['just outside 100.64/10', '100.128.0.1'],
  ])('allows %s (%s)', (_, address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('looksLikeMetadataUrl', () => {
  it.each([
    ['https://app.example.com/client.json', true],
    ['HTTP://app.example.com/client.json', true],
    ['mcl_aaaaaaaaaaaaaaaaaaaaaa', false],
    ['com.example.app:/x', false],
  ])('says %s is a URL client_id: %s', (clientId, expected) => {
    expect(looksLikeMetadataUrl(clientId)).toBe(expected);
  });
});

describe('checkClientIdUrl', () => {
  it.each(['https://app.example.com/client.json', 'https://app.example.com/oauth/client?v=2', 'https://app.example.com:8443/c'])('accepts %s', (clientId) => {
    expect(checkClientIdUrl(clientId)).toBeNull();
  });

  it.each([
    ['http', 'http://app.example.com/client.json', /https/],
    ['no path', 'https://app.example.com', /path/],
    ['only the root path', 'https://app.example.com/', /path/],
    ['a fragment', 'https://app.example.com/client.json#x', /fragment/],
    ['an empty fragment', 'https://app.example.com/client.json#', /fragment/],
    ['a user name', 'https://user@app.example.com/client.json', /credentials/],
    ['a user name and password', 'https://u:p@app.example.com/client.json', /credentials/],
    ['a .. segment', 'https://app.example.com/a/../client.json', /dot segments/],
    ['a . segment', 'https://app.example.com/./client.json', /dot segments/],
    ['a percent-encoded .. segment', 'https://app.example.com/a/%2e%2e/client.json', /dot segments|normal form/],
    ['an upper-case host', 'https://APP.example.com/client.json', /normal form/],
    ['a default port written out', 'https://app.example.com:443/client.json', /normal form/],
    ['not a URL', 'https://', /not a valid URL/],
  ])('refuses %s (%s)', (_, clientId, reason) => {
    expect(checkClientIdUrl(clientId)).toMatch(reason);
  });

  it('accepts http only when the test-only switch is on', () => {
    vi.stubEnv('OAUTH_CIMD_ALLOW_PRIVATE_NETWORKS_FOR_TESTS', '1');
    resetEnv();
    expect(checkClientIdUrl('http://127.0.0.1:4000/client.json')).toBeNull();
  });
});

describe('parseClientMetadataDocument', () => {
  const ID = 'https://app.example.com/client.json';
  const doc = (fields: Record<string, unknown> = {}) =>
    JSON.stringify({ client_id: ID, client_name: 'Example Tool', redirect_uris: ['http://127.0.0.1/cb', 'https://app.example.com/cb'], ...fields });

  it('makes an unverified public client of a good document', () => {
    expect(parseClientMetadataDocument(ID, doc({ client_name: '  Example Tool  ', token_endpoint_auth_method: 'none' }))).toEqual({
      clientId: ID,
      name: 'Example Tool',
      redirectUris: ['http://127.0.0.1/cb', 'https://app.example.com/cb'],
      authMethod: 'none',
      secretHash: null,
      kind: 'metadata-document',
      verified: false,
    });
  });

  it.each([
    ['not JSON', '{"client_id":', /not JSON/],
    ['a JSON array', '[]', /not a JSON object/],
    ['JSON null', 'null', /not a JSON object/],
    ['another client_id', doc({ client_id: 'https://app.example.com/other.json' }), /client_id/],
    ['no client_id', doc({ client_id: undefined }), /client_id/],
    ['no client_name', doc({ client_name: undefined }), /client_name/],
    ['a blank client_name', doc({ client_name: '   ' }), /client_name/],
    ['a client_name over 100 characters', doc({ client_name: 'x'.repeat(101) }), /client_name/],
    ['a client_name with a RIGHT-TO-LEFT OVERRIDE', doc({ client_name: 'Monetize Official \u202eelgooG' }), /client_name.*U\+202E/],
    ['a client_name with a ZERO WIDTH SPACE', doc({ client_name: 'Goo\u200bgle' }), /client_name.*U\+200B/],
    ['a client_name with a POP DIRECTIONAL ISOLATE', doc({ client_name: 'Tool\u2069' }), /client_name.*U\+2069/],
    ['no redirect_uris', doc({ redirect_uris: undefined }), /redirect_uris/],
    ['empty redirect_uris', doc({ redirect_uris: [] }), /redirect_uris/],
    ['a bad redirect URI', doc({ redirect_uris: ['https://app.example.com/cb', 'http://evil.example/cb'] }), /redirect_uris/],
    ['a redirect URI that is not a string', doc({ redirect_uris: [42] }), /redirect_uris/],
    ['eleven redirect URIs', doc({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example.com/cb${i}`) }), /redirect_uris/],
    ['client_secret_basic', doc({ token_endpoint_auth_method: 'client_secret_basic' }), /none/],
    ['client_secret_post', doc({ token_endpoint_auth_method: 'client_secret_post' }), /none/],
  ])('refuses a document with %s', (_, body, message) => {
    expect(() => parseClientMetadataDocument(ID, body)).toThrow(message);
  });
});

describe('freshnessSeconds', () => {
  const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
  const httpDate = (ms: number) => new Date(ms).toUTCString();

  it.each([
    ['max-age=600', { cacheControl: 'max-age=600' }, 600],
    ['public, max-age=600', { cacheControl: 'public, max-age=600' }, 600],
    ['an upper-case MAX-AGE', { cacheControl: 'MAX-AGE=120' }, 120],
    ['max-age=0', { cacheControl: 'max-age=0' }, 0],
    ['no-store', { cacheControl: 'no-store' }, 0],
    ['no-cache', { cacheControl: 'no-cache' }, 0],
    ['private', { cacheControl: 'private' }, 0],
    ['max-age with private', { cacheControl: 'max-age=600, private' }, 0],
    ['max-age with no-store', { cacheControl: 'no-store, max-age=600' }, 0],
    ['max-age above a day', { cacheControl: 'max-age=864000' }, 86_400],
    ['max-age beating Expires', { cacheControl: 'max-age=60', expires: httpDate(NOW + 3_600_000) }, 60],
    ['Expires relative to Date', { expires: httpDate(NOW + 120_000), date: httpDate(NOW - 3_600_000) }, 3_720],
    ['Expires without Date, relative to now', { expires: httpDate(NOW + 120_000) }, 120],
    ['Expires in the past', { expires: httpDate(NOW - 1000), date: httpDate(NOW) }, 0],
    ['an invalid Expires', { expires: '0' }, 0],
    ['Expires more than a day ahead', { expires: httpDate(NOW + 10 * 86_400_000), date: httpDate(NOW) }, 86_400],
    ['no headers', {}, 300],
    ['unrelated directives only', { cacheControl: 'public' }, 300],
  ])('keeps a document with %s for the right number of seconds', (_, headers, seconds) => {
    expect(freshnessSeconds(headers, NOW)).toBe(seconds);
  });
});
