import { createHash, randomBytes } from 'node:crypto';
import type { APIRequestContext, Page } from '@playwright/test';
import { startCallbackServer } from './callback-server';

/**
 * An access token for the account API, got the way a third-party dashboard gets one: register a
 * public client, send the browser through /oauth/authorize (signing in there when `signIn` is
 * given, else with the page's own session), approve, and exchange the code with PKCE. For the
 * REST API unless `resource` names another (the MCP endpoint).
 */
export async function accountToken(
  page: Page,
  request: APIRequestContext,
  options: { base: string; clientName: string; scope: string; signIn?: { email: string; password: string }; resource?: string },
): Promise<string> {
  const callback = await startCallbackServer();
  try {
    const registered = await request.post('/oauth/register', {
      data: { client_name: options.clientName, redirect_uris: [callback.redirectUri], token_endpoint_auth_method: 'none' },
    });
    const { client_id: clientId } = await registered.json();
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL('/oauth/authorize', options.base);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.redirectUri,
      scope: options.scope,
      state: 'e2e',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: options.resource ?? `${options.base}/api/v1`,
    }).toString();
    await page.goto(authorize.href);
    if (options.signIn) {
      await page.getByLabel('Email').fill(options.signIn.email);
      await page.getByLabel('Password').fill(options.signIn.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('button', { name: 'Approve' }).click();
    const code = (await callback.arrived()).searchParams.get('code')!;
    const token = await request.post('/oauth/token', {
      form: { grant_type: 'authorization_code', code, redirect_uri: callback.redirectUri, code_verifier: verifier, client_id: clientId },
    });
    return (await token.json()).access_token as string;
  } finally {
    await callback.close();
  }
}
