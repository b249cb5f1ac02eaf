import { expect, test } from '@playwright/test';

/**
 * The publisher's way in: the header's "Sign in" link, the sign-in form (with and without the
 * page's script), the console behind it, and signing out.
 */

const DEMO = { email: 'demo@example.com', password: 'demo-password' };

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the sign-in form is a plain form post that signs in and comes back to the console', async ({ page }) => {
    await page.goto('/dashboard');
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fdashboard$/);
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Refused: the message, the email kept, the password not.
    await expect(page.getByRole('alert')).toHaveText('The email or password is not right.');
    await expect(page.getByLabel('Email')).toHaveValue(DEMO.email);
    await expect(page.getByLabel('Password')).toHaveValue('');

    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
    await expect(page.getByText(`Signed in as ${DEMO.email}`)).toBeVisible();
  });
});

test('the header leads to sign-in, then to the console and out again', async ({ page }) => {
  await page.goto('/pricing');
  await page.getByRole('link', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel('Email').fill(DEMO.email);
  await page.getByLabel('Password').fill(DEMO.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/$/);

  const account = page.getByRole('navigation', { name: 'Account' });
  await account.getByRole('link', { name: 'Console' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
  await expect(page.getByRole('heading', { level: 3 }).first()).toBeVisible();

  await account.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fdashboard$/);
});

test('the site has a favicon and absolute canonical links', async ({ page, request }) => {
  const icon = await request.get('/favicon.ico');
  expect(icon.status()).toBe(200);
  expect(icon.headers()['content-type']).toMatch(/image\/(x-icon|vnd\.microsoft\.icon)/);
  await page.goto('/pricing');
  // Static pages are rendered at build time, with the base URL the build was configured with.
  await expect(page.locator('link[rel="canonical"]')).toHaveAttribute('href', /^https?:\/\/[^/]+\/pricing$/);
});
