import { describe, expect, it } from 'vitest';
import type { HttpMethod, RouteDeclaration } from '@/lib/platform/http/declaration';
import { ROUTES } from '@/lib/schemas/registry';
import { judge, type Answered, type Sent } from './oracle';

/** The oracle finds what it is there to find: each rule, broken once, is reported. */

const AT = Date.UTC(2026, 10, 24, 12, 0, 0);
const BUDGET = { max: 120, windowSeconds: 60 };

function sent(route: string, method: HttpMethod = 'GET', headers: Record<string, string> = {}, extra: Partial<Sent> = {}): Sent {
  return {
    route,
    declaration: (ROUTES as Record<string, RouteDeclaration>)[route]!,
    method,
    headers: new Headers(headers),
    budget: BUDGET,
    deletedUser: false,
    ...extra,
  };
}

const RATE = {
  'ratelimit-policy': '"default";q=120;w=60',
  ratelimit: '"default";r=119;t=60',
  'x-ratelimit-limit': '120',
  'x-ratelimit-remaining': '119',
  'x-ratelimit-reset': String(AT / 1000 + 60),
};

function answer(status: number, body: unknown, headers: Record<string, string> = {}, omit: string[] = []): Answered {
  const h = new Headers({
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'x-request-id': `req_${'a'.repeat(32)}`,
    'api-version': '1',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': '*',
    ...RATE,
    ...headers,
  });
  for (const name of omit) h.delete(name);
  return { status, headers: h, body: typeof body === 'string' ? body : JSON.stringify(body), at: AT };
}

const envelope = (status: number, code: string) => ({ error: { status, code, message: 'm' } });

describe('the oracle', () => {
  it('passes a REST answer with every documented header', () => {
    expect(judge(sent('/api/v1/pricing'), answer(200, { currency: 'USD' }, { 'cache-control': 'public, max-age=60' })).problems).toEqual([]);
    expect(judge(sent('/api/v1/pricing'), answer(400, envelope(400, 'invalid_request'))).problems).toEqual([]);
  });

  it('reports any 5xx, except the documented 502 of a deleted user on an account read', () => {
    expect(judge(sent('/api/v1/pricing'), answer(500, envelope(500, 'internal_error'))).problems).toContain('unexpected 500');
    expect(judge(sent('/api/v1/me'), answer(503, envelope(503, 'unavailable'))).problems).toContain('unexpected 503');
    const deleted = judge(sent('/api/v1/me', 'GET', {}, { deletedUser: true }), answer(502, envelope(502, 'account_unavailable')));
    expect(deleted).toEqual({ problems: [], documented5xx: true });
    expect(judge(sent('/api/v1/me'), answer(502, envelope(502, 'account_unavailable'))).problems).toContain('unexpected 502');
  });

  it('reports a missing request id, a wrong API-Version, and absent or wrong rate-limit headers', () => {
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, {}, ['x-request-id'])).problems.join()).toMatch(/X-Request-Id/);
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, {}, ['api-version'])).problems.join()).toMatch(/API-Version/);
    expect(judge(sent('/ask', 'GET'), answer(200, {})).problems.join()).toMatch(/API-Version "1" on a route that does not declare it/);
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, {}, ['ratelimit'])).problems.join()).toMatch(/RateLimit null/);
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, { 'ratelimit-policy': '"default";q=1000;w=60' })).problems.join()).toMatch(/not the budget in force/);
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, { 'x-ratelimit-remaining': '121' })).problems.join()).toMatch(/X-RateLimit-Remaining/);
    expect(judge(sent('/api/v1/pricing'), answer(429, envelope(429, 'rate_limited'))).problems.join()).toMatch(/429 without a Retry-After/);
    expect(judge(sent('/api/v1/pricing'), answer(429, envelope(429, 'rate_limited'), { 'retry-after': '3' })).problems).toEqual([]);
    // Not counted: no rate-limit headers at all.
    expect(judge(sent('/.well-known/jwks.json'), answer(200, {}, { 'api-version': '' }, ['api-version'])).problems.join()).toMatch(/not counted/);
  });

  it('reports error bodies outside the documented shapes', () => {
    expect(judge(sent('/api/v1/pricing'), answer(400, envelope(401, 'invalid_request'))).problems.join()).toMatch(/error.status 401/);
    expect(judge(sent('/api/v1/pricing'), answer(400, envelope(400, 'bad_thing'))).problems.join()).toMatch(/not in the table/);
    expect(judge(sent('/api/v1/pricing'), answer(404, envelope(404, 'invalid_request'))).problems.join()).toMatch(/goes with 400/);
    expect(judge(sent('/api/v1/pricing'), answer(400, { error: 'invalid_request' })).problems.join()).toMatch(/not the API error envelope/);
    expect(judge(sent('/api/v1/pricing'), answer(400, { ...envelope(400, 'invalid_request'), debug: 1 })).problems.join()).toMatch(/fields beside error/);
    expect(judge(sent('/api/v1/pricing'), answer(400, '<html>', { 'content-type': 'text/html' })).problems.join()).toMatch(/not JSON/);
    const oauth = sent('/oauth/token', 'POST');
    const bare = { 'api-version': '' };
    expect(judge(oauth, answer(400, { error: 'invalid_grant', error_description: 'x' }, bare, ['api-version'])).problems).toEqual([]);
    expect(judge(oauth, answer(400, envelope(400, 'invalid_request'), bare, ['api-version'])).problems.join()).toMatch(/not an RFC 6749 error/);
    expect(judge(oauth, answer(400, { error: 'made_up' }, bare, ['api-version'])).problems.join()).toMatch(/not an OAuth error code/);
    expect(judge(oauth, answer(400, { error: 'invalid_grant' }, { 'cache-control': 'public, max-age=60' }, ['api-version'])).problems.join()).toMatch(
      /an error with Cache-Control/,
    );
  });

  it('takes the MCP transport’s JSON-RPC errors where documented, and A2A’s 500 as JSON-RPC (still a 5xx)', () => {
    const mcp = sent('/docs/mcp', 'POST');
    const rpc = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    expect(judge(mcp, answer(400, rpc, {}, ['api-version'])).problems).toEqual([]);
    expect(judge(mcp, answer(404, rpc, {}, ['api-version'])).problems.join()).toMatch(/documented ones are 400, 406 and 415/);
    const a2a = judge(sent('/a2a', 'POST'), answer(500, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'x' } }, {}, ['api-version']));
    expect(a2a.problems).toEqual(['unexpected 500']);
    expect(judge(sent('/a2a', 'POST'), answer(200, { jsonrpc: '2.0', id: 1 }, {}, ['api-version'])).problems.join()).toMatch(/not a JSON-RPC response/);
  });

  it('reports challenges that are missing, or sent where none belongs', () => {
    expect(judge(sent('/api/v1/me'), answer(401, envelope(401, 'invalid_token'))).problems.join()).toMatch(/without a Bearer challenge/);
    const challenge =
      'Bearer error="insufficient_scope", scope="earnings:read", resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/api/v1"';
    expect(judge(sent('/api/v1/me'), answer(403, envelope(403, 'insufficient_scope'), { 'www-authenticate': challenge })).problems).toEqual([]);
    const sdk = sent('/functions/v1/validate-key', 'GET');
    const vary = { vary: 'Origin' };
    expect(judge(sdk, answer(401, envelope(401, 'invalid_token'), vary)).problems).toEqual([]);
    expect(judge(sdk, answer(401, envelope(401, 'invalid_token'), { ...vary, 'www-authenticate': 'Bearer' })).problems.join()).toMatch(/sent a challenge/);
  });

  it('reports a success without its declared Cache-Control, an oversized body accepted, a sandbox answer unmarked', () => {
    const cached = { 'cache-control': 'public, max-age=60' };
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, cached)).problems).toEqual([]);
    expect(judge(sent('/api/v1/pricing'), answer(200, {})).problems.join()).toMatch(/declares public, max-age=60/);
    const ask = (bodyBytes: number, headers: Record<string, string> = {}) => sent('/ask', 'POST', headers, { bodyBytes });
    expect(judge(ask(100), answer(200, {}, {}, ['api-version'])).problems).toEqual([]);
    expect(judge(ask(70_000), answer(200, {}, {}, ['api-version'])).problems.join()).toMatch(/70000 bytes accepted/);
    expect(judge(ask(10, { 'content-length': '70000' }), answer(200, {}, {}, ['api-version'])).problems.join()).toMatch(/accepted/);
    expect(judge(ask(70_000), answer(413, envelope(413, 'payload_too_large'), {}, ['api-version'])).problems).toEqual([]);
    const sandbox = sent('/api/v1/me', 'GET', { authorization: 'Bearer svc_sandbox' });
    expect(judge(sandbox, answer(200, {}, { 'service-sandbox': 'true' })).problems).toEqual([]);
    expect(judge(sandbox, answer(200, {})).problems.join()).toMatch(/Service-Sandbox/);
  });

  it('reports 405 without Allow, a shared cache for a credential, a body on HEAD, CORS off its declaration', () => {
    expect(judge(sent('/api/v1/pricing', 'PUT'), answer(405, envelope(405, 'method_not_allowed'))).problems.join()).toMatch(/405 without Allow/);
    expect(judge(sent('/api/v1/pricing', 'PUT'), answer(405, envelope(405, 'method_not_allowed'), { allow: 'GET, PUT' })).problems.join()).toMatch(
      /which Allow lists/,
    );
    expect(
      judge(sent('/api/v1/pricing', 'GET', { authorization: 'Bearer x' }), answer(200, {}, { 'cache-control': 'public, max-age=60' })).problems.join(),
    ).toMatch(/credentialed answer/);
    expect(judge(sent('/api/v1/pricing', 'HEAD'), answer(200, '{}')).problems.join()).toMatch(/body on a HEAD/);
    expect(judge(sent('/api/v1/pricing'), answer(200, {}, { 'access-control-allow-origin': 'https://x.example' })).problems.join()).toMatch(/public route/);
  });
});
