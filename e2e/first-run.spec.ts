import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { choose } from './helpers/controls';

/**
 * A new publisher's first hour, as issue 29 asks for it: from the home page's call to action to a
 * first counted impression on a page of their own origin, using only what the console gives them
 * (the script tag filled in with their key), while the console's checklist turns its last step
 * green by itself.
 */

/** The publisher's own site: one page, on another origin (127.0.0.1 rather than localhost), with `body` in it. */
async function publisherSite(body: () => string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.writeHead(req.url === '/' ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(req.url === '/' ? `<!doctype html><html lang="en"><head><title>My app</title></head><body><h1>My app</h1>${body()}</body></html>` : '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

test('a new publisher goes from the home page to a first counted impression with the console’s snippet', async ({ page, context, browser }) => {
  test.setTimeout(150_000);
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  let snippet = '';
  const site = await publisherSite(() => snippet);
  try {
    await page.goto('/');
    await page.getByRole('link', { name: 'Start earning' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Create a publisher account' })).toBeVisible();
    await page.getByLabel('Email').fill(`first-run-${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('a-long-enough-password');
    await page.getByLabel('Name').fill('Fran First');
    await page.getByRole('button', { name: 'Create account' }).click();

    // Signed in, in the console, on the checklist: nothing done yet.
    await expect(page).toHaveURL(/\/dashboard$/);
    const checklist = page.getByTestId('onboarding');
    await expect(checklist.getByRole('heading', { name: 'Get your first impression' })).toBeVisible();
    await expect(checklist).toContainText('0 of 5 done');
    await checklist.getByRole('link', { name: 'Create an app' }).click();

    const create = page.getByRole('region', { name: 'Create an app' });
    await create.getByLabel('Name').fill('My App');
    await create.getByLabel('Slug').fill(`my-app-${Date.now()}`);
    await create.getByLabel('Allowed web origins').fill(site.origin);
    await create.getByRole('button', { name: 'Create app' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My App' })).toBeVisible();

    await page.getByLabel('Placement name').fill('Sidebar');
    await choose(page, page.getByLabel('Format'), 'Sponsored card');
    await page.getByRole('button', { name: 'Create placement' }).click();
    await expect(page.getByRole('region', { name: 'Placements of My App' }).getByRole('row', { name: /Sidebar/ })).toBeVisible();
    await expect(page.getByTestId('placement-id')).toHaveText(/^[0-9a-f-]{36}$/);

    await page.getByLabel('Key name').fill('Web');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').textContent())!;
    // The snippet as shown once, with the key: copied with its own button, pasted into the site.
    const shown = page.getByRole('figure').filter({ hasText: 'Script tag for Sidebar' }).first();
    await shown.getByRole('button', { name: 'Copy' }).click();
    snippet = await page.evaluate(() => navigator.clipboard.readText());
    expect(snippet).toContain(key);
    expect(snippet).toMatch(/integrity="sha384-[A-Za-z0-9+/=]+"/);

    // The console stays open on the checklist, waiting for the first impression.
    await page.goto('/dashboard');
    await expect(page.locator('[data-step="snippet"]')).toHaveAttribute('data-done', 'false');
    await expect(page.locator('[data-step="impression"]')).toHaveAttribute('data-done', 'false');

    // The publisher's page, in its own window, shows the ad long enough in view for its impression.
    const visitor = await browser.newContext();
    const own = await visitor.newPage();
    await own.goto(site.origin);
    await expect(own.locator('.mz-ad')).toBeVisible({ timeout: 15_000 });
    await expect(own.locator('.mz-ad')).toContainText('Sponsored');

    // The checklist turns green by itself: the console page is never reloaded by the test.
    await expect(page.locator('[data-step="impression"]')).toHaveAttribute('data-done', 'true', { timeout: 90_000 });
    await expect(page.getByTestId('onboarding')).toContainText('Setup complete');
    await expect(page.getByTestId('total-impressions')).toHaveText('1');
    await visitor.close();
  } finally {
    await site.close();
  }
});
