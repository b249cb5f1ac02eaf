import { expect, test } from '@playwright/test';
import { startCallbackServer } from './helpers/callback-server';

/**
 * End to end in Chromium: a new publisher signs up, signs in, sees the consent page
 * (the client's name, the scopes, the redirect host), approves, and lands on the client's
 * redirect URI with a code. The consent page's screenshot is kept with the test output.
 */
test('a new publisher signs up, signs in, approves a client and lands on its redirect URI with a code', async ({ page, request, baseURL }, testInfo) => {
  const callback = await startCallbackServer();
  try {
    const registered = await request.post('/oauth/register', {
      data: { client_name: 'Earnings Dashboard', redirect_uris: [callback.redirectUri], token_endpoint_auth_method: 'none' },
    });
    expect(registered.status()).toBe(201);
    const { client_id: clientId } = await registered.json();

    const authorize = new URL('/oauth/authorize', baseURL);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.redirectUri,
      scope: 'profile:read earnings:read',
      state: 'e2e-state-1',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();

    // Not signed in: the sign-in page, which offers to create an account.
    await page.goto(authorize.href);
    await expect(page).toHaveURL(/\/signin\?/);
    await page.getByRole('link', { name: 'Create an account' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Create a publisher account' })).toBeVisible();

    const email = `publisher-${Date.now()}@example.com`;
    const password = 'a-long-enough-password';
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByLabel('Name').fill('Pat Publisher');
    await page.getByLabel('Company').fill('Pat Apps Ltd');
    await page.getByRole('button', { name: 'Create account' }).click();

    // Created and signed in at once: straight on to the consent page.
    // The consent page: who asks, for what, and where the answer goes.
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Earnings Dashboard');
    await expect(page.getByText('Your name, company, role and email address')).toBeVisible();
    await expect(page.getByText('Your earnings totals and payout history')).toBeVisible();
    await expect(page.locator('.host')).toHaveText(new URL(callback.redirectUri).host);
    await expect(page.getByText(`Signed in as ${email}`)).toBeVisible();
    const shot = testInfo.outputPath('consent-page.png');
    await page.screenshot({ path: shot, fullPage: true });
    await testInfo.attach('consent-page', { path: shot, contentType: 'image/png' });

    await page.getByRole('button', { name: 'Approve' }).click();
    const arrived = await callback.arrived();
    expect(arrived.searchParams.get('code')).toMatch(/^mac_/);
    expect(arrived.searchParams.get('state')).toBe('e2e-state-1');
    expect(arrived.searchParams.get('iss')).toBe(new URL(baseURL!).origin);
    await expect(page).toHaveURL(new RegExp(`^${callback.redirectUri.replace(/[.]/g, '\\.')}\\?code=`));
  } finally {
    await callback.close();
  }
});

test('the consent page cannot be framed and the sign-in form is labelled', async ({ page, request }) => {
  const res = await request.get('/oauth/authorize?client_id=nobody');
  expect(res.status()).toBe(400);
  expect(res.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(res.headers()['x-frame-options']).toBe('DENY');

  await page.goto('/signin');
  await expect(page.getByLabel('Email')).toBeVisible();
  await expect(page.getByLabel('Password')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill('demo@example.com');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // (Next's route announcer is an alert too: look for ours by its text.)
  await expect(page.getByRole('alert').filter({ hasText: 'The email or password is not right.' })).toBeVisible();
});
