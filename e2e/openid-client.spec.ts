import { expect, test } from '@playwright/test';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { startCallbackServer } from './helpers/callback-server';

/**
 * Interoperability: openid-client (a certified relying-party library) discovers the
 * server (RFC 8414), registers (RFC 7591), sends the browser through sign-in and consent, and
 * exchanges the code with PKCE; the token verifies against the published JWKS.
 */
test('openid-client discovers, registers, authorizes through Chromium and exchanges the code', async ({ page, baseURL }) => {
  const issuer = new URL(baseURL!);
  const callback = await startCallbackServer();
  try {
    const config = await client.dynamicClientRegistration(
      issuer,
      { client_name: 'openid-client interop', redirect_uris: [callback.redirectUri], token_endpoint_auth_method: 'client_secret_post' },
      undefined,
      { algorithm: 'oauth2', execute: [client.allowInsecureRequests] },
    );
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(issuer.origin);
    expect(config.clientMetadata().client_secret).toEqual(expect.any(String));

    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callback.redirectUri,
      scope: 'profile:read apps:read',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      resource: `${issuer.origin}/api/v1`,
    });

    await page.goto(url.href);
    await page.getByLabel('Email').fill('demo@example.com');
    await page.getByLabel('Password').fill('demo-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText('openid-client interop');
    await page.getByRole('button', { name: 'Approve' }).click();
    const arrived = await callback.arrived();

    const tokens = await client.authorizationCodeGrant(config, arrived, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('profile:read apps:read');
    expect(tokens.refresh_token).toBeUndefined();

    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri!));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: issuer.origin, audience: `${issuer.origin}/api/v1`, typ: 'at+jwt' });
    expect(payload).toMatchObject({ client_id: config.clientMetadata().client_id, scope: 'profile:read apps:read' });

    // Issued for the REST resource only: the MCP endpoint refuses it (RFC 8707 audience).
    const mcp = await fetch(`${issuer.origin}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(mcp.headers.get('www-authenticate')).toContain(`resource_metadata="${issuer.origin}/.well-known/oauth-protected-resource/mcp"`);
  } finally {
    await callback.close();
  }
});
