import { afterEach, describe, expect, it } from 'vitest';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { listApprovals } from '@/lib/identity/oauth/approvals';
import { hashClientSecret } from '@/lib/identity/oauth/clients';
import { testEngines, suiteDatabase } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';
import {
  BASE,
  approve,
  authorizeParams,
  codeGrant,
  consentForm,
  decide,
  exchange,
  openAuthorize,
  publicClient,
  registerClient,
  sessionCookie,
  VERIFIER,
} from '../helpers/oauth';
import { rawAsService } from '../helpers/roles';

const asMetadata = handlersOf('/.well-known/oauth-authorization-server');
const jwks = handlersOf('/.well-known/jwks.json');
const prmApi = handlersOf('/.well-known/oauth-protected-resource/api/v1');
const prmMcp = handlersOf('/.well-known/oauth-protected-resource/mcp');
const ctx = { params: Promise.resolve({}) };
const get = (handler: typeof asMetadata.GET, path: string) => handler(new Request(`${BASE}${path}`), ctx);

for (const engine of testEngines()) {
  describe(`OAuth authorization server on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);
    afterEach(() => setTestServices(suite.services));

    describe('discovery', () => {
      it('publishes RFC 8414 metadata with the issuer at the root', async () => {
        const res = await get(asMetadata.GET, '/.well-known/oauth-authorization-server');
        expect(res.status).toBe(200);
        expect(await res.json()).toMatchObject({
          issuer: BASE,
          authorization_endpoint: `${BASE}/oauth/authorize`,
          token_endpoint: `${BASE}/oauth/token`,
          registration_endpoint: `${BASE}/oauth/register`,
          jwks_uri: `${BASE}/.well-known/jwks.json`,
          scopes_supported: ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read', 'campaigns:read', 'licenses:read'],
          response_types_supported: ['code'],
          grant_types_supported: expect.arrayContaining(['authorization_code']),
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
          authorization_response_iss_parameter_supported: true,
          client_id_metadata_document_supported: true,
          service_documentation: `${BASE}/docs/authentication`,
        });
      });

      it.each([
        ['api', prmApi.GET, '/api/v1'],
        ['mcp', prmMcp.GET, '/mcp'],
      ])('publishes RFC 9728 metadata for the %s resource', async (_name, handler, path) => {
        const res = await get(handler, `/.well-known/oauth-protected-resource${path}`);
        expect(await res.json()).toEqual({
          resource: `${BASE}${path}`,
          authorization_servers: [BASE],
          scopes_supported: ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read', 'campaigns:read', 'licenses:read'],
          bearer_methods_supported: ['header'],
          resource_documentation: expect.stringMatching(/^http:\/\/localhost:3000\/docs\//),
        });
      });

      it('publishes the public signing key, and only the public part', async () => {
        const body = (await (await get(jwks.GET, '/.well-known/jwks.json')).json()) as { keys: Record<string, string>[] };
        expect(body.keys).toHaveLength(1);
        expect(body.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String) });
        expect(body.keys[0]).not.toHaveProperty('d');
      });
    });

    describe('registration (RFC 7591)', () => {
      it.each(['client_secret_post', 'client_secret_basic'])('returns a secret once for %s and stores only its hash', async (method) => {
        const { res, body } = await registerClient({
          client_name: 'Confidential',
          redirect_uris: ['https://app.example/cb'],
          token_endpoint_auth_method: method,
        });
        expect(res.status).toBe(201);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(body).toMatchObject({ client_id: expect.any(String), client_secret: expect.any(String), token_endpoint_auth_method: method });
        const [row] = await rawAsService(suite.db, (q) =>
          q.query<{ client_secret_hash: string }>('select client_secret_hash from public.oauth_clients where client_id = $1', [body.client_id]),
        );
        expect(row!.client_secret_hash).toBe(hashClientSecret(body.client_secret!));
        expect(row!.client_secret_hash).not.toContain(body.client_secret!);
      });

      it('gives a public client no secret', async () => {
        const { res, body } = await registerClient({ client_name: 'Public', redirect_uris: ['com.example.tool:/cb'], token_endpoint_auth_method: 'none' });
        expect(res.status).toBe(201);
        expect(body).not.toHaveProperty('client_secret');
      });

      it.each([
        ['a fragment', 'https://app.example/cb#x', 'invalid_redirect_uri'],
        ['userinfo', 'https://user@app.example/cb', 'invalid_redirect_uri'],
        ['javascript:', 'javascript:alert(1)', 'invalid_redirect_uri'],
        ['plain http to a public host', 'http://app.example/cb', 'invalid_redirect_uri'],
      ])('refuses a redirect URI with %s', async (_what, uri, code) => {
        const { res, body } = await registerClient({ client_name: 'Bad', redirect_uris: [uri], token_endpoint_auth_method: 'none' });
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: code, error_description: expect.any(String) });
      });

      it.each([
        ['a RIGHT-TO-LEFT OVERRIDE', 'Monetize Official \u202eelgooG', 'U+202E'],
        ['a RIGHT-TO-LEFT ISOLATE', 'Earnings \u2067Tool', 'U+2067'],
        ['a ZERO WIDTH SPACE', 'Goo\u200bgle', 'U+200B'],
      ])('refuses a client_name with %s with invalid_client_metadata, and stores nothing', async (_what, name, codePoint) => {
        const { res, body } = await registerClient({ client_name: name, redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' });
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: 'invalid_client_metadata', error_description: expect.stringContaining(codePoint) });
        const rows = await rawAsService(suite.db, (q) => q.query('select 1 from public.oauth_clients where client_name = $1', [name]));
        expect(rows).toEqual([]);
      });

      it('refuses an unknown token_endpoint_auth_method with invalid_client_metadata', async () => {
        const { res, body } = await registerClient({
          client_name: 'Bad',
          redirect_uris: ['https://app.example/cb'],
          token_endpoint_auth_method: 'private_key_jwt',
        });
        expect(res.status).toBe(400);
        expect(body.error).toBe('invalid_client_metadata');
      });

      it('returns the same client, secret included, for a retry with the same Idempotency-Key and body', async () => {
        const request = { client_name: 'Retry', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_post' };
        const first = await registerClient(request, { 'idempotency-key': 'reg-retry-1', 'x-forwarded-for': '203.0.113.7' });
        const again = await registerClient(request, { 'idempotency-key': 'reg-retry-1', 'x-forwarded-for': '203.0.113.7' });
        expect(first.res.status).toBe(201);
        expect(again.res.status).toBe(201);
        expect(again.body).toEqual(first.body);
        expect(again.res.headers.get('idempotency-key')).toBe('reg-retry-1');
        const [{ n }] = (await rawAsService(suite.db, (q) =>
          q.query<{ n: number }>("select count(*)::int as n from public.oauth_clients where client_name = 'Retry'"),
        )) as [{ n: number }];
        expect(n).toBe(1);
        // The stored answer is not readable without the key: no secret in clear in the table.
        const rows = await rawAsService(suite.db, (q) =>
          q.query<{ response_body: string }>("select response_body from public.idempotency_records where scope = 'oauth_register'"),
        );
        for (const r of rows) expect(r.response_body).not.toContain(first.body.client_secret!);
      });

      it('refuses the same Idempotency-Key with another body', async () => {
        await registerClient(
          { client_name: 'One', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' },
          { 'idempotency-key': 'reg-conflict', 'x-forwarded-for': '203.0.113.7' },
        );
        const { res, body } = await registerClient(
          { client_name: 'Two', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' },
          { 'idempotency-key': 'reg-conflict', 'x-forwarded-for': '203.0.113.7' },
        );
        expect(res.status).toBe(400);
        expect(body.error).toBe('invalid_request');
      });

      it('creates one client for concurrent registrations with one key', async () => {
        const request = { client_name: 'Concurrent', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' };
        const results = await Promise.all(
          [1, 2, 3].map(() => registerClient(request, { 'idempotency-key': 'reg-concurrent', 'x-forwarded-for': '203.0.113.7' })),
        );
        expect(new Set(results.map((r) => r.body.client_id)).size).toBe(1);
      });

      it('refuses an Idempotency-Key that is not visible ASCII', async () => {
        const { res } = await registerClient(
          { client_name: 'X', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' },
          { 'idempotency-key': 'has space' },
        );
        expect(res.status).toBe(400);
      });
    });

    describe('authorization endpoint', () => {
      it('sends a visitor who is not signed in to the sign-in page, then back', async () => {
        const clientId = await publicClient();
        const query = authorizeParams(clientId).toString();
        const res = await openAuthorize(query);
        expect(res.status).toBe(302);
        const location = new URL(res.headers.get('location')!);
        expect(location.pathname).toBe('/signin');
        expect(location.searchParams.get('callbackUrl')).toBe(`/oauth/authorize?${query}`);
      });

      it('shows the consent page with the client name, the scopes and the redirect host, unframeable', async () => {
        const clientId = await publicClient(['http://127.0.0.1:8765/callback'], 'Earnings Tool');
        const res = await openAuthorize(authorizeParams(clientId, { scope: 'profile:read earnings:read' }).toString(), await sessionCookie(suite.users.demo));
        expect(res.status).toBe(200);
        expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(res.headers.get('cache-control')).toBe('no-store');
        const html = await res.text();
        expect(html).toContain('Earnings Tool');
        expect(html).toContain('Your name, company, role and email address');
        expect(html).toContain('Your earnings totals and payout history');
        expect(html).not.toContain('api_keys:read');
        expect(html).toContain('127.0.0.1:8765');
        expect(html).toMatch(/<button[^>]*>Approve<\/button>/);
        expect(html).toMatch(/<button[^>]*>Deny<\/button>/);
      });

      it('shows a client name stored before the rule isolated, its bidirectional controls made visible', async () => {
        const clientId = 'mcl_legacybidiname00000000';
        await rawAsService(suite.db, (q) =>
          q.query(
            `insert into public.oauth_clients (client_id, client_name, redirect_uris, token_endpoint_auth_method, client_secret_hash)
             values ($1, $2, $3, 'none', null)`,
            [clientId, 'Monetize Official \u202eelgooG', ['http://127.0.0.1:8765/callback']],
          ),
        );
        const res = await openAuthorize(authorizeParams(clientId).toString(), await sessionCookie(suite.users.demo));
        expect(res.status).toBe(200);
        const html = await res.text();
        expect(html).not.toContain('\u202e');
        expect(html).toContain('<h1><bdi class="client">Monetize Official \ufffdelgooG</bdi> wants to read your Monetize account</h1>');
      });

      it('redirects an approval with code, state and iss', async () => {
        const location = await approve(await publicClient(), suite.users.demo);
        expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8765/callback');
        expect(location.searchParams.get('code')).toMatch(/^mac_/);
        expect(location.searchParams.get('state')).toBe('st-123');
        expect(location.searchParams.get('iss')).toBe(BASE);
      });

      it('records an approval for the console, with the client and the scopes approved, and not a denial', async () => {
        const approved = await publicClient(undefined, 'Recorded Client');
        await approve(approved, suite.users.demo2);
        const denied = await publicClient(undefined, 'Denied Client');
        const cookie = await sessionCookie(suite.users.demo2);
        const { request, csrf } = consentForm(await (await openAuthorize(authorizeParams(denied).toString(), cookie)).text());
        await decide({ request, csrf_token: csrf, decision: 'deny' }, cookie);
        const approvals = await listApprovals(suite.db, suite.users.demo2);
        expect(approvals.find((a) => a.client_id === approved)).toMatchObject({
          client_name: 'Recorded Client',
          scopes: ['profile:read', 'apps:read', 'earnings:read', 'api_keys:read'],
        });
        expect(approvals.map((a) => a.client_id)).not.toContain(denied);
      });

      it('redirects a denial with access_denied, state and iss', async () => {
        const clientId = await publicClient();
        const cookie = await sessionCookie(suite.users.demo);
        const { request, csrf } = consentForm(await (await openAuthorize(authorizeParams(clientId).toString(), cookie)).text());
        const res = await decide({ request, csrf_token: csrf, decision: 'deny' }, cookie);
        expect(res.status).toBe(303);
        const location = new URL(res.headers.get('location')!);
        expect(location.searchParams.get('error')).toBe('access_denied');
        expect(location.searchParams.get('state')).toBe('st-123');
        expect(location.searchParams.get('iss')).toBe(BASE);
        expect(location.searchParams.has('code')).toBe(false);
      });

      it('accepts a registered loopback redirect URI on any port (RFC 8252 §7.3)', async () => {
        const location = await approve(await publicClient(['http://127.0.0.1/callback']), suite.users.demo, {
          redirect_uri: 'http://127.0.0.1:51234/callback',
        });
        expect(location.host).toBe('127.0.0.1:51234');
      });

      describe('redirect URIs that must not match are refused on our own page, never redirected', () => {
        it.each([
          ['the scheme case changed', 'HTTPS://app.example/cb'],
          ['the host case changed', 'https://APP.example/cb'],
          ['userinfo added', 'https://evil@app.example/cb'],
          ['a fragment added', 'https://app.example/cb#frag'],
          ['dot segments', 'https://app.example/x/../cb'],
          ['another path', 'https://app.example/cb2'],
          ['another host', 'https://evil.example/cb'],
          ['a query added', 'https://app.example/cb?next=evil'],
        ])('%s', async (_what, uri) => {
          const clientId = await publicClient(['https://app.example/cb']);
          const res = await openAuthorize(authorizeParams(clientId, { redirect_uri: uri }).toString(), await sessionCookie(suite.users.demo));
          expect(res.status).toBe(400);
          expect(res.headers.get('location')).toBeNull();
          expect(res.headers.get('content-type')).toContain('text/html');
          expect(await res.text()).toContain('Invalid redirect URI');
        });

        it('127.1 for a registered 127.0.0.1', async () => {
          const clientId = await publicClient(['http://127.0.0.1:8765/callback']);
          const res = await openAuthorize(
            authorizeParams(clientId, { redirect_uri: 'http://127.1:8765/callback' }).toString(),
            await sessionCookie(suite.users.demo),
          );
          expect(res.status).toBe(400);
          expect(res.headers.get('location')).toBeNull();
        });
      });

      it('shows an unknown client on our own page, without redirecting', async () => {
        const res = await openAuthorize(authorizeParams('mcl_AAAAAAAAAAAAAAAAAAAAAA').toString(), await sessionCookie(suite.users.demo));
        expect(res.status).toBe(400);
        expect(res.headers.get('location')).toBeNull();
        expect(await res.text()).toContain('Unknown application');
      });

      // An error found after the client and its redirect URI were checked goes back to that
      // registered URI, with the client's state and our issuer (RFC 6749 §4.1.2.1, RFC 9207),
      // for a self-registered client too: the interface says so, and a native client waiting on
      // its loopback callback learns of it no other way.
      const redirected = async (extra: Record<string, string | null>, cookie?: string) => {
        const clientId = await publicClient();
        const res = await openAuthorize(authorizeParams(clientId, extra).toString(), cookie);
        expect(res.status).toBe(302);
        const location = new URL(res.headers.get('location')!);
        expect(`${location.origin}${location.pathname}`).toBe('http://127.0.0.1:8765/callback');
        expect(location.searchParams.get('state')).toBe('st-123');
        expect(location.searchParams.get('iss')).toBe(BASE);
        expect(location.searchParams.has('code')).toBe(false);
        return location.searchParams.get('error');
      };

      it('sends PKCE plain back to the client as invalid_request', async () => {
        expect(await redirected({ code_challenge_method: 'plain', code_challenge: VERIFIER }, await sessionCookie(suite.users.demo))).toBe('invalid_request');
      });
      it('sends a missing code_challenge back to the client as invalid_request', async () => {
        expect(await redirected({ code_challenge: null, code_challenge_method: null }, await sessionCookie(suite.users.demo))).toBe('invalid_request');
      });
      it('sends a scope outside the four back to the client as invalid_scope', async () => {
        expect(await redirected({ scope: 'profile:read admin:write' }, await sessionCookie(suite.users.demo))).toBe('invalid_scope');
      });
      it('sends response_type=token back to the client as unsupported_response_type', async () => {
        expect(await redirected({ response_type: 'token' }, await sessionCookie(suite.users.demo))).toBe('unsupported_response_type');
      });
      it('sends an unknown resource back to the client as invalid_target', async () => {
        expect(await redirected({ resource: 'https://evil.example/api' }, await sessionCookie(suite.users.demo))).toBe('invalid_target');
      });
      it('sends the error back without a session too: the request was wrong before anyone signed in', async () => {
        expect(await redirected({ response_type: 'token' })).toBe('unsupported_response_type');
      });

      it('refuses a consent POST without its CSRF token', async () => {
        const clientId = await publicClient();
        const cookie = await sessionCookie(suite.users.demo);
        const { request } = consentForm(await (await openAuthorize(authorizeParams(clientId).toString(), cookie)).text());
        const res = await decide({ request, decision: 'approve' }, cookie);
        expect(res.status).toBe(403);
        expect(res.headers.get('location')).toBeNull();
      });

      it('refuses a consent token minted for another user', async () => {
        const clientId = await publicClient();
        const { request, csrf } = consentForm(await (await openAuthorize(authorizeParams(clientId).toString(), await sessionCookie(suite.users.demo))).text());
        const res = await decide({ request, csrf_token: csrf, decision: 'approve' }, await sessionCookie(suite.users.demo2));
        expect(res.status).toBe(403);
      });

      it('refuses a consent POST from another origin', async () => {
        const clientId = await publicClient();
        const cookie = await sessionCookie(suite.users.demo);
        const { request, csrf } = consentForm(await (await openAuthorize(authorizeParams(clientId).toString(), cookie)).text());
        const res = await decide({ request, csrf_token: csrf, decision: 'approve' }, cookie, { origin: 'https://evil.example' });
        expect(res.status).toBe(403);
      });

      it('refuses a consent POST whose request was edited (the token is bound to it)', async () => {
        const clientId = await publicClient();
        const cookie = await sessionCookie(suite.users.demo);
        const { request, csrf } = consentForm(await (await openAuthorize(authorizeParams(clientId, { scope: 'profile:read' }).toString(), cookie)).text());
        const res = await decide({ request: request.replace('scope=profile%3Aread', 'scope=api_keys%3Aread'), csrf_token: csrf, decision: 'approve' }, cookie);
        expect(res.status).toBe(403);
      });
    });

    describe('token endpoint', () => {
      it('exchanges a code for an ES256 JWT the published key verifies, with no refresh token', async () => {
        const clientId = await publicClient();
        const code = (await approve(clientId, suite.users.demo, { scope: 'profile:read apps:read' })).searchParams.get('code')!;
        const { res, body } = await exchange(codeGrant(clientId, code));
        expect(res.status).toBe(200);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope: 'profile:read apps:read' });
        const keys = (await (await get(jwks.GET, '/.well-known/jwks.json')).json()) as { keys: import('jose').JWK[] };
        const { payload, protectedHeader } = await jwtVerify(body.access_token as string, createLocalJWKSet({ keys: keys.keys }), {
          issuer: BASE,
          audience: `${BASE}/api/v1`,
        });
        expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
        expect(payload).toMatchObject({ sub: suite.users.demo, client_id: clientId, scope: 'profile:read apps:read', aud: [`${BASE}/api/v1`, `${BASE}/mcp`] });
        expect(payload.exp! - payload.iat!).toBe(3600);
        expect(payload.jti).toEqual(expect.any(String));
      });

      it('issues a token for the one resource the authorization named (RFC 8707)', async () => {
        const clientId = await publicClient();
        const code = (await approve(clientId, suite.users.demo, { resource: `${BASE}/mcp` })).searchParams.get('code')!;
        const { body } = await exchange(codeGrant(clientId, code));
        expect(decodeJwt(body.access_token as string).aud).toBe(`${BASE}/mcp`);
      });

      it('refuses to widen the audience at the token endpoint', async () => {
        const clientId = await publicClient();
        const code = (await approve(clientId, suite.users.demo, { resource: `${BASE}/mcp` })).searchParams.get('code')!;
        const { res, body } = await exchange(codeGrant(clientId, code, { resource: `${BASE}/api/v1` }));
        expect(res.status).toBe(400);
        expect(body.error).toBe('invalid_target');
      });

      const grantError = async (mutate: (clientId: string, code: string) => Promise<Record<string, string>> | Record<string, string>) => {
        const clientId = await publicClient();
        const code = (await approve(clientId, suite.users.demo)).searchParams.get('code')!;
        const { res, body } = await exchange(await mutate(clientId, code));
        expect(res.headers.get('cache-control')).toBe('no-store');
        return { status: res.status, body };
      };

      it('answers a replayed code with invalid_grant', async () => {
        const result = await grantError(async (clientId, code) => {
          expect((await exchange(codeGrant(clientId, code))).res.status).toBe(200);
          return codeGrant(clientId, code);
        });
        expect(result).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: expect.any(String) } });
      });

      it('answers an expired code with invalid_grant', async () => {
        const result = await grantError(async (clientId, code) => {
          await rawAsService(suite.db, (q) =>
            q.query("update public.oauth_authorization_codes set expires_at = now() - interval '1 second' where client_id = $1", [clientId]),
          );
          return codeGrant(clientId, code);
        });
        expect(result).toEqual({ status: 400, body: { error: 'invalid_grant', error_description: 'The authorization code has expired.' } });
      });

      it('answers a code used by another client with invalid_grant', async () => {
        const other = await publicClient();
        const result = await grantError((_clientId, code) => codeGrant(other, code));
        expect(result.body.error).toBe('invalid_grant');
      });

      it('answers a wrong verifier with invalid_grant (and the code is spent)', async () => {
        let clientId = '';
        let code = '';
        const result = await grantError((c, k) => {
          clientId = c;
          code = k;
          return codeGrant(c, k, { code_verifier: 'x'.repeat(43) });
        });
        expect(result.body.error).toBe('invalid_grant');
        expect((await exchange(codeGrant(clientId, code))).body.error).toBe('invalid_grant');
      });

      it('answers a changed redirect_uri with invalid_grant', async () => {
        const result = await grantError((clientId, code) => codeGrant(clientId, code, { redirect_uri: 'http://127.0.0.1:8765/other' }));
        expect(result.body.error).toBe('invalid_grant');
      });

      it('answers an unsupported grant type', async () => {
        const { res, body } = await exchange({ grant_type: 'refresh_token', refresh_token: 'x', client_id: 'x' });
        expect(res.status).toBe(400);
        expect(body.error).toBe('unsupported_grant_type');
      });

      it('refuses a JSON body: the token endpoint is form-encoded', async () => {
        const { POST } = handlersOf('/oauth/token');
        const res = await POST(new Request(`${BASE}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), ctx);
        expect(res.status).toBe(415);
        expect(await res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      });

      describe('confidential clients', () => {
        const confidential = async (method: 'client_secret_basic' | 'client_secret_post') => {
          const { body } = await registerClient({
            client_name: 'Server app',
            redirect_uris: ['http://127.0.0.1:8765/callback'],
            token_endpoint_auth_method: method,
          });
          const code = (await approve(body.client_id, suite.users.demo)).searchParams.get('code')!;
          return { clientId: body.client_id, secret: body.client_secret!, code };
        };
        const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

        it('accepts client_secret_basic', async () => {
          const c = await confidential('client_secret_basic');
          const { client_id: _drop, ...form } = codeGrant(c.clientId, c.code);
          void _drop;
          const { res } = await exchange(form, { authorization: basic(c.clientId, c.secret) });
          expect(res.status).toBe(200);
        });

        it('accepts client_secret_post', async () => {
          const c = await confidential('client_secret_post');
          const { res } = await exchange(codeGrant(c.clientId, c.code, { client_secret: c.secret }));
          expect(res.status).toBe(200);
        });

        it('answers a wrong secret with 401 invalid_client and a Basic challenge', async () => {
          const c = await confidential('client_secret_basic');
          const { res, body } = await exchange(codeGrant(c.clientId, c.code), { authorization: basic(c.clientId, 'wrong') });
          expect(res.status).toBe(401);
          expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
          expect(body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
        });

        it('answers the wrong authentication method with 401 invalid_client', async () => {
          const c = await confidential('client_secret_basic');
          const { res, body } = await exchange(codeGrant(c.clientId, c.code, { client_secret: c.secret }));
          expect(res.status).toBe(401);
          expect(body.error).toBe('invalid_client');
        });

        it('answers a missing secret with 401 invalid_client', async () => {
          const c = await confidential('client_secret_post');
          const { res, body } = await exchange(codeGrant(c.clientId, c.code));
          expect(res.status).toBe(401);
          expect(body.error).toBe('invalid_client');
        });
      });

      it('answers an unknown client with 401 invalid_client', async () => {
        const { res, body } = await exchange(codeGrant('mcl_AAAAAAAAAAAAAAAAAAAAAA', 'mac_x'));
        expect(res.status).toBe(401);
        expect(body.error).toBe('invalid_client');
      });
    });

    describe('rate limit and configuration', () => {
      it.each([
        ['/oauth/token', () => exchange({ grant_type: 'authorization_code' })],
        ['/oauth/register', () => registerClient({})],
      ])('limits %s with 429 and Retry-After', async (_path, call) => {
        // The helpers send each call from a new address; this limiter counts them all as one client.
        const everyone = new (class extends MemoryRateLimiter {
          override consume(_key: string, cost?: number) {
            return super.consume('everyone', cost);
          }
        })({ max: 1, windowSeconds: 60 });
        setTestServices(makeServices({ database: suite.db, rateLimiter: everyone }));
        await call();
        const { res, body } = await call();
        expect(res.status).toBe(429);
        expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(body.error).toBe('rate_limited');
      });
    });
  });
}
