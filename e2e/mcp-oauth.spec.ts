import { expect, test } from '@playwright/test';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { startCallbackServer } from './helpers/callback-server';

/**
 * Interoperability: the official MCP SDK client, given nothing but the URL of /mcp, follows the 401 through
 * discovery (RFC 9728, RFC 8414), dynamic registration (RFC 7591), consent in Chromium and the
 * token exchange with `resource` set to the MCP resource (RFC 8707), then uses the account tools.
 */

/** What an MCP host keeps for one server: the client it registered, its tokens, the PKCE verifier. */
class RecordingProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly redirectUri: string) {}
  get redirectUrl() {
    return this.redirectUri;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK e2e client',
      redirect_uris: [this.redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

test('the MCP SDK client goes from an unauthenticated /mcp through consent in Chromium to the account tools', async ({ page, baseURL }) => {
  const base = new URL(baseURL!).origin;
  const mcpUrl = new URL(`${base}/mcp`);
  const callback = await startCallbackServer();
  try {
    const provider = new RecordingProvider(callback.redirectUri);

    // 1. No token: the 401 sends the SDK to discovery and registration, then to the browser.
    const first = new Client({ name: 'e2e', version: '1.0.0' });
    const refused = await first.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toMatch(/^mcl_/);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get('resource')).toBe(`${base}/mcp`);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');

    // 2. Consent in the browser, as the demo publisher.
    await page.goto(authorizationUrl.href);
    await page.getByLabel('Email').fill('demo@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText('MCP SDK e2e client');
    await page.getByRole('button', { name: 'Approve' }).click();
    const arrived = await callback.arrived();
    expect(arrived.searchParams.get('iss')).toBe(base);
    const code = arrived.searchParams.get('code')!;

    // 3. The token exchange, by the SDK, for the MCP resource only.
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await transport.finishAuth(code);
    const token = provider.saved!.access_token;
    expect(decodeJwt(token).aud).toBe(`${base}/mcp`);

    // 4. Connected: the tools, and whoami answers the demo publisher.
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_my_daily_earnings',
      'get_my_earnings',
      'list_my_api_keys',
      'list_my_apps',
      'list_my_campaigns',
      'list_my_licenses',
      'whoami',
    ]);
    const me = await client.callTool({ name: 'whoami' });
    expect(me.structuredContent).toMatchObject({ email: 'demo@example.com', name: expect.any(String) });
    expect(me.structuredContent).not.toHaveProperty('sandbox');
    await client.close();

    // A token issued only for /mcp is refused by the REST API.
    const rest = await fetch(`${base}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toContain('error="invalid_token"');
  } finally {
    await callback.close();
  }
});

test('the same MCP SDK client works with the sandbox token', async ({ baseURL }) => {
  const transport = new StreamableHTTPClientTransport(new URL(`${new URL(baseURL!).origin}/mcp`), {
    requestInit: { headers: { Authorization: 'Bearer svc_sandbox' } },
  });
  const client = new Client({ name: 'e2e-sandbox', version: '1.0.0' });
  await client.connect(transport);
  const me = await client.callTool({ name: 'whoami' });
  expect(me.structuredContent).toMatchObject({ sandbox: true });
  const apps = await client.callTool({ name: 'list_my_apps', arguments: { placement_status: 'active' } });
  expect(apps.structuredContent).toMatchObject({ sandbox: true, apps: expect.any(Array) });
  await client.close();
});
