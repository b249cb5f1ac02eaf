import { describe, expect, it } from 'vitest';
import type { AuthorizationRequest } from './authorize';
import type { Client } from './clients';
import { checkConsentToken, CONSENT_TTL_S, consentPage, consentToken, errorPage, PAGE_HEADERS } from './consent';
import { SCOPE_DESCRIPTIONS, SCOPES } from './scopes';

const SECRET = 'session-secret-of-at-least-32-characters';
const USER = '7b0c1c58-0c53-4d8a-9d53-0f5f8c3b9a11';
const RAW = 'client_id=mcl_aaaaaaaaaaaaaaaaaaaaaa&response_type=code&state=xyz';
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);

describe('consent CSRF token', () => {
  const token = consentToken(SECRET, USER, RAW, NOW);
  // The first MAC character carries six whole bits (the last one has padding bits).
  const [time, mac] = token.split('.') as [string, string];
  const tampered = `${time}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;

  it('is the issue time and a MAC, and checks for the same user, request and secret', () => {
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect(token.split('.')[0]).toBe(String(NOW / 1000));
    expect(checkConsentToken(SECRET, USER, RAW, token, NOW)).toBe(true);
  });

  it('is still good at exactly CONSENT_TTL_S seconds old', () => {
    expect(checkConsentToken(SECRET, USER, RAW, token, NOW + CONSENT_TTL_S * 1000)).toBe(true);
  });

  it.each<[string, () => boolean]>([
    ['another user', () => checkConsentToken(SECRET, 'another-user', RAW, token, NOW)],
    ['another request', () => checkConsentToken(SECRET, USER, `${RAW}&scope=apps:read`, token, NOW)],
    ['another secret', () => checkConsentToken(`${SECRET}!`, USER, RAW, token, NOW)],
    ['a tampered MAC', () => checkConsentToken(SECRET, USER, RAW, tampered, NOW)],
    ['a MAC moved to another issue time', () => checkConsentToken(SECRET, USER, RAW, token.replace(/^\d+/, String(NOW / 1000 - 1)), NOW)],
    ['a missing token', () => checkConsentToken(SECRET, USER, RAW, undefined, NOW)],
    ['an empty token', () => checkConsentToken(SECRET, USER, RAW, '', NOW)],
    ['a token without its time', () => checkConsentToken(SECRET, USER, RAW, token.split('.')[1], NOW)],
    ['an expired token', () => checkConsentToken(SECRET, USER, RAW, token, NOW + (CONSENT_TTL_S + 1) * 1000)],
    ['a token issued in the future', () => checkConsentToken(SECRET, USER, RAW, consentToken(SECRET, USER, RAW, NOW + 60_000), NOW)],
  ])('is refused for %s', (_, check) => {
    expect(check()).toBe(false);
  });
});

const client = (overrides: Partial<Client> = {}): Client => ({
  clientId: 'mcl_aaaaaaaaaaaaaaaaaaaaaa',
  name: 'Example App',
  redirectUris: ['https://app.example.com/cb'],
  authMethod: 'none',
  secretHash: null,
  kind: 'registered',
  verified: false,
  ...overrides,
});

function page(options: { client?: Partial<Client>; redirectUri?: string; rawRequest?: string; csrf?: string } = {}): string {
  const request: AuthorizationRequest = {
    client: client(options.client),
    redirectUri: options.redirectUri ?? 'https://app.example.com/cb',
    scopes: [...SCOPES],
    resources: ['http://localhost:3000/api/v1', 'http://localhost:3000/mcp'],
    state: 'xyz',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
  };
  return consentPage({
    request,
    rawRequest: options.rawRequest ?? RAW,
    user: { id: USER, email: 'ada@example.com', name: 'Ada' },
    csrf: options.csrf ?? 'csrf-token',
  });
}

const LOOPBACK_WARNING = /loopback address/;

describe('consentPage', () => {
  it('escapes the client name, so a name cannot inject markup', () => {
    const html = page({ client: { name: '<script>alert(1)</script>' } });
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('shows the client name isolated in a <bdi>, so its direction cannot reorder the heading around it', () => {
    const html = page({ client: { name: 'Example App' } });
    expect(html).toContain('<h1><bdi class="client">Example App</bdi> wants to read your Monetize account</h1>');
    // The title cannot hold markup: the name is wrapped in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE.
    expect(html).toContain('<title>Authorize \u2068Example App\u2069 · Monetize</title>');
  });

  it('shows a name stored before the rule with its bidirectional controls replaced, and still isolated', () => {
    const html = page({ client: { name: 'Monetize Official \u202eelgooG' } });
    expect(html).not.toContain('\u202e');
    expect(html).toContain('<bdi class="client">Monetize Official \ufffdelgooG</bdi>');
    expect(html).toContain('<title>Authorize \u2068Monetize Official \ufffdelgooG\u2069 · Monetize</title>');
  });

  it('escapes the raw request and the CSRF token in its hidden fields', () => {
    const html = page({ rawRequest: 'state="><img src=x onerror=alert(1)>', csrf: '"><b>' });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('"><b>');
    expect(html).toContain('value="state=&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
  });

  it('has an Approve and a Deny button posting the decision with the CSRF token', () => {
    const html = page({ csrf: 'the-csrf-token' });
    expect(html).toMatch(/<button[^>]*name="decision"[^>]*value="approve"[^>]*>Approve<\/button>/);
    expect(html).toMatch(/<button[^>]*name="decision"[^>]*value="deny"[^>]*>Deny<\/button>/);
    expect(html).toContain('<form method="post" action="/oauth/authorize">');
    expect(html).toContain('name="csrf_token" value="the-csrf-token"');
  });

  it('names the user, the client and the host the browser will be sent to', () => {
    const html = page({ redirectUri: 'https://app.example.com:8443/oauth/cb?x=1' });
    expect(html).toContain('ada@example.com');
    expect(html).toContain('Example App');
    expect(html).toContain('<strong class="host">app.example.com:8443</strong>');
  });

  it.each(SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s]]))('describes the scope %s in plain words', (scope, description) => {
    const html = page();
    expect(html).toContain(`<code>${scope}</code>`);
    expect(html).toContain(description);
  });

  it.each(['http://127.0.0.1:51234/cb', 'http://localhost/cb', 'http://[::1]:8080/cb'])('warns about the loopback redirect %s', (redirectUri) => {
    expect(page({ redirectUri })).toMatch(LOOPBACK_WARNING);
  });

  it.each(['https://app.example.com/cb', 'com.example.app:/callback'])('does not warn about loopback for %s', (redirectUri) => {
    expect(page({ redirectUri })).not.toMatch(LOOPBACK_WARNING);
  });

  it('warns that a registered client is unverified, and not once it is verified', () => {
    expect(page({ client: { verified: false } })).toMatch(/registered itself/);
    const verified = page({ client: { verified: true } });
    expect(verified).not.toMatch(/registered itself/);
    expect(verified).not.toMatch(/has not verified/);
  });

  it('names the document host of a metadata-document client in its warning', () => {
    const html = page({ client: { kind: 'metadata-document', clientId: 'https://tool.example.org/client.json' } });
    expect(html).toMatch(/describes itself at tool\.example\.org/);
  });
});

describe('errorPage', () => {
  it('escapes its title and message', () => {
    const html = errorPage('<i>Bad</i>', 'reason: <script>x</script>');
    expect(html).not.toMatch(/<script|<i>/);
    expect(html).toContain('&lt;i&gt;Bad&lt;/i&gt;');
  });
});

describe('PAGE_HEADERS', () => {
  it('forbid framing, caching and sniffing', () => {
    expect(PAGE_HEADERS['Content-Security-Policy']).toMatch(/(^|;\s*)frame-ancestors 'none'(;|$)/);
    expect(PAGE_HEADERS['X-Frame-Options']).toBe('DENY');
    expect(PAGE_HEADERS['Cache-Control']).toBe('no-store');
    expect(PAGE_HEADERS['X-Content-Type-Options']).toBe('nosniff');
  });

  it('allow no script at all', () => {
    const csp = PAGE_HEADERS['Content-Security-Policy']!;
    expect(csp).toMatch(/(^|;\s*)default-src 'none'(;|$)/);
    expect(csp).not.toMatch(/script-src/);
  });
});
