import { describe, expect, it } from 'vitest';
import { parseEnv } from '../env';
import { callerOf, hostOrOriginRefusal, hostOriginPolicy, isCrossOriginPost, isLoopbackHostname, parseHost, type HostOriginConfig } from './host-origin';

const config = (extra: Partial<HostOriginConfig> = {}): HostOriginConfig => ({
  PUBLIC_BASE_URL: 'https://monetize.example',
  MCP_ALLOWED_HOSTS: [],
  MCP_ALLOWED_ORIGINS: [],
  ...extra,
});

const refused = (c: HostOriginConfig, host: string, origin: string | null = null) => hostOrOriginRefusal(hostOriginPolicy(c), { host, origin }) !== undefined;

describe('DNS-rebinding protection: Host', () => {
  it('serves the host of PUBLIC_BASE_URL, with its port when it has one', () => {
    expect(refused(config(), 'monetize.example')).toBe(false);
    expect(refused(config(), 'MONETIZE.example')).toBe(false);
    expect(refused(config({ PUBLIC_BASE_URL: 'http://localhost:3210' }), 'localhost:3210')).toBe(false);
    expect(refused(config({ PUBLIC_BASE_URL: 'https://monetize.example:8443' }), 'monetize.example:8443')).toBe(false);
    expect(refused(config({ PUBLIC_BASE_URL: 'https://monetize.example:8443' }), 'monetize.example')).toBe(true);
  });

  it('refuses any other name, as the MCP conformance suite sends it', () => {
    for (const host of ['evil.example.com', 'evil.example.com:3000', 'monetize.example.evil.com', 'sub.monetize.example', '192.168.1.10:3000', '10.0.0.1']) {
      expect(refused(config(), host), host).toBe(true);
    }
  });

  it('serves loopback names on any port, for a server on the same machine', () => {
    for (const host of ['localhost', 'localhost:3000', 'LOCALHOST:5555', '127.0.0.1', '127.0.0.1:3210', '[::1]', '[::1]:3210']) {
      expect(refused(config(), host), host).toBe(false);
    }
  });

  it('refuses what is not a Host value, and loopback spelled in ways browsers never send', () => {
    for (const host of [
      '',
      ' ',
      'localhost/evil',
      'evil.example.com@localhost',
      'localhost:3000:1',
      '127.1',
      '0x7f.0.0.1:3000',
      'localhost.evil.example.com',
    ]) {
      expect(refused(config(), host), JSON.stringify(host)).toBe(true);
    }
  });

  it("serves Vercel's names for the deployment and those in MCP_ALLOWED_HOSTS", () => {
    const c = config({
      VERCEL_URL: 'monetize-abc123.vercel.app',
      VERCEL_BRANCH_URL: 'monetize-git-main.vercel.app',
      VERCEL_PROJECT_PRODUCTION_URL: 'monetize.vercel.app',
      MCP_ALLOWED_HOSTS: ['api.monetize.example', 'proxy.internal:8080'],
    });
    for (const host of ['monetize-abc123.vercel.app', 'monetize-git-main.vercel.app', 'monetize.vercel.app', 'api.monetize.example', 'proxy.internal:8080']) {
      expect(refused(c, host), host).toBe(false);
    }
    expect(refused(c, 'other-project.vercel.app')).toBe(true);
    expect(refused(c, 'proxy.internal')).toBe(true);
  });
});

describe('DNS-rebinding protection: Origin', () => {
  it('serves requests without Origin: servers, CLIs and native MCP clients', () => {
    expect(refused(config(), 'monetize.example', null)).toBe(false);
  });

  it("serves the deployment's own pages and loopback pages (local tools such as the MCP Inspector)", () => {
    for (const origin of ['https://monetize.example', 'http://localhost:6274', 'http://127.0.0.1:3000', 'http://[::1]:8080', 'https://localhost']) {
      expect(refused(config(), 'monetize.example', origin), origin).toBe(false);
    }
    expect(refused(config({ VERCEL_URL: 'monetize-abc123.vercel.app' }), 'monetize-abc123.vercel.app', 'https://monetize-abc123.vercel.app')).toBe(false);
  });

  it('refuses every other origin, even when Host is ours: the rebinding page sends its own origin', () => {
    for (const origin of [
      'http://evil.example.com',
      'https://evil.example.com',
      'http://monetize.example',
      'https://monetize.example:444',
      'null',
      'file://',
      'chrome-extension://abc',
      'https://monetize.example/path',
      'garbage',
    ]) {
      expect(refused(config(), 'monetize.example', origin), origin).toBe(true);
    }
    // The suite's attack: a rebound name in both headers, on a local server.
    expect(refused(config({ PUBLIC_BASE_URL: 'http://localhost:3000' }), 'evil.example.com', 'http://evil.example.com')).toBe(true);
    expect(refused(config({ PUBLIC_BASE_URL: 'http://localhost:3000' }), 'localhost:3000', 'http://evil.example.com')).toBe(true);
  });

  it('serves the origins listed in MCP_ALLOWED_ORIGINS, exactly', () => {
    const c = config({ MCP_ALLOWED_ORIGINS: ['https://agent.example', 'http://intranet.example:8080'] });
    expect(refused(c, 'monetize.example', 'https://agent.example')).toBe(false);
    expect(refused(c, 'monetize.example', 'http://intranet.example:8080')).toBe(false);
    expect(refused(c, 'monetize.example', 'http://agent.example')).toBe(true);
    expect(refused(c, 'monetize.example', 'https://agent.example:8443')).toBe(true);
  });

  it('says which header was refused, and never echoes more than a short piece of it', () => {
    const policy = hostOriginPolicy(config());
    expect(hostOrOriginRefusal(policy, { host: 'evil.example.com', origin: null })).toContain('"evil.example.com"');
    expect(hostOrOriginRefusal(policy, { host: 'monetize.example', origin: 'http://evil.example.com' })).toContain('"http://evil.example.com"');
    expect(hostOrOriginRefusal(policy, { host: `${'a'.repeat(5000)}.example`, origin: null })!.length).toBeLessThan(300);
  });
});

describe('the request and the configuration', () => {
  it('reads Host, or the URL a Request was made with when it has none', () => {
    expect(callerOf(new Request('http://localhost:3000/docs/mcp', { headers: { origin: 'http://x.example' } }))).toEqual({
      host: 'localhost:3000',
      origin: 'http://x.example',
    });
    const headers = new Headers({ host: 'evil.example.com' });
    expect(callerOf({ url: 'http://localhost:3000/mcp', headers } as Request)).toEqual({ host: 'evil.example.com', origin: null });
  });

  it('works the policy out once per configuration', () => {
    const c = config();
    expect(hostOriginPolicy(c)).toBe(hostOriginPolicy(c));
  });

  it('parses the variables from the environment, refusing entries that are not hosts or origins', () => {
    const e = parseEnv({ MCP_ALLOWED_HOSTS: ' api.monetize.example , proxy:8080,', MCP_ALLOWED_ORIGINS: 'https://agent.example', VERCEL_URL: 'x.vercel.app' });
    expect(e.MCP_ALLOWED_HOSTS).toEqual(['api.monetize.example', 'proxy:8080']);
    expect(e.MCP_ALLOWED_ORIGINS).toEqual(['https://agent.example']);
    expect(parseEnv({}).MCP_ALLOWED_HOSTS).toEqual([]);
    expect(hostOrOriginRefusal(hostOriginPolicy(e), { host: 'x.vercel.app', origin: 'https://agent.example' })).toBeUndefined();
    expect(() => parseEnv({ MCP_ALLOWED_HOSTS: 'https://api.monetize.example' })).toThrow(/MCP_ALLOWED_HOSTS/);
    expect(() => parseEnv({ MCP_ALLOWED_ORIGINS: 'agent.example' })).toThrow(/MCP_ALLOWED_ORIGINS/);
    expect(() => parseEnv({ MCP_ALLOWED_ORIGINS: 'https://agent.example/path' })).toThrow(/MCP_ALLOWED_ORIGINS/);
  });

  it('knows the loopback names and parses Host values as URL does', () => {
    expect(['localhost', '127.0.0.1', '[::1]'].every(isLoopbackHostname)).toBe(true);
    expect(isLoopbackHostname('127.0.0.2')).toBe(false);
    expect(parseHost('Example.COM:80')?.host).toBe('example.com');
    expect(parseHost('a b')).toBeUndefined();
  });
});

describe('isCrossOriginPost: another site posting one of our forms', () => {
  const h = (entries: Record<string, string>) => new Headers(entries);
  it('refuses a POST whose Origin names another host than the request’s, or is opaque', () => {
    expect(isCrossOriginPost('POST', h({ host: 'localhost:3000', origin: 'https://evil.example' }))).toBe(true);
    expect(isCrossOriginPost('POST', h({ host: 'localhost:3000', origin: 'http://localhost:3001' }))).toBe(true);
    expect(isCrossOriginPost('POST', h({ host: 'localhost:3000', origin: 'null' }))).toBe(true);
    expect(isCrossOriginPost('POST', h({ host: 'localhost:3000', origin: 'not a url' }))).toBe(true);
    expect(isCrossOriginPost('POST', h({ origin: 'https://monetize.example' }))).toBe(true);
  });
  it('lets through a POST from our own origin, one without Origin, and anything but a POST', () => {
    expect(isCrossOriginPost('POST', h({ host: 'localhost:3000', origin: 'http://localhost:3000' }))).toBe(false);
    expect(isCrossOriginPost('POST', h({ host: 'Monetize.Example', origin: 'https://monetize.example' }))).toBe(false);
    expect(isCrossOriginPost('POST', h({ host: 'localhost:3000' }))).toBe(false);
    expect(isCrossOriginPost('GET', h({ host: 'localhost:3000', origin: 'https://evil.example' }))).toBe(false);
  });
  it('takes the host our platform forwarded over Host (behind a proxy, Host is the proxy’s)', () => {
    expect(isCrossOriginPost('POST', h({ host: 'internal:8080', 'x-forwarded-host': 'monetize.example', origin: 'https://monetize.example' }))).toBe(false);
    expect(isCrossOriginPost('POST', h({ host: 'monetize.example', 'x-forwarded-host': 'internal:8080', origin: 'https://monetize.example' }))).toBe(true);
  });
});
