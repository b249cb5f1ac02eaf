import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test, type Page } from '@playwright/test';

/**
 * The site's security headers (lib/platform/http/security-headers.ts) in Chromium on the production
 * build: every page sends a Content-Security-Policy with a fresh nonce (and Next puts it on its
 * scripts), cannot be framed by another site, and runs without a single CSP violation, from the
 * docs to the console's charts and the demo's ads; API answers keep their CORS headers and gain
 * nosniff; the consent page keeps its own stricter policy.
 */

const DEMO = { email: 'demo@example.com', password: 'demo-password' };
const PAGES = ['/', '/docs', '/signin', '/signup'];

/** A directive's sources in a policy. */
function directive(policy: string, name: string): string[] {
  const found = policy
    .split(';')
    .map((d) => d.trim().split(/\s+/))
    .find(([n]) => n === name);
  return found ? found.slice(1) : [];
}

test.describe('headers', () => {
  for (const path of PAGES) {
    test(`${path} sends a nonce policy, no framing, nosniff, a Referrer-Policy and no HSTS on http://localhost`, async ({ request }) => {
      const res = await request.get(path);
      expect(res.status()).toBe(200);
      const h = res.headers();
      const policy = h['content-security-policy'] ?? '';
      expect(directive(policy, 'frame-ancestors')).toEqual(["'none'"]);
      const scripts = directive(policy, 'script-src');
      expect(scripts).toContain("'self'");
      expect(scripts).not.toContain("'unsafe-inline'");
      const nonce = scripts.find((s) => s.startsWith("'nonce-"))?.slice(7, -1);
      expect(nonce, 'a nonce in script-src').toBeTruthy();
      expect(directive(policy, 'object-src')).toEqual(["'none'"]);
      expect(h['x-frame-options']).toBe('DENY');
      expect(h['x-content-type-options']).toBe('nosniff');
      expect(h['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(h['strict-transport-security']).toBeUndefined();

      // Next put that nonce on every script of the page, and the next answer has another.
      const html = await res.text();
      const tags = html.match(/<script\b[^>]*>/g) ?? [];
      expect(tags.length).toBeGreaterThan(0);
      for (const tag of tags) expect(tag, tag).toContain(`nonce="${nonce}"`);
      const again = (await request.get(path)).headers()['content-security-policy'];
      expect(again).not.toContain(nonce!);
    });
  }

  test('a content page and its markdown at the same URL: the markdown says Vary: Accept, the HTML is never stored', async ({ request }) => {
    // Next sets a page's Vary itself (lib/platform/http/security-headers.ts); what keeps caches from
    // handing one answer for the other is the twin's Vary and the page's no-store.
    for (const path of ['/', '/docs', '/docs/quickstart']) {
      const html = await request.get(path);
      expect(html.headers()['content-type']).toContain('text/html');
      expect(html.headers()['cache-control'], path).toContain('no-store');
      const markdown = await request.get(path, { headers: { accept: 'text/markdown' } });
      expect(markdown.headers()['content-type']).toContain('text/markdown');
      expect(markdown.headers()['vary'] ?? '', path).toMatch(/(^|,\s*)Accept(\s*,|$)/);
    }
  });

  test('HSTS is sent when the platform says the request came over https to our name, never to localhost', async ({ request }) => {
    const https = await request.get('/docs', { headers: { host: 'monetize.example', 'x-forwarded-proto': 'https' } });
    expect(https.headers()['strict-transport-security']).toMatch(/^max-age=\d{7,}/);
    const local = await request.get('/docs', { headers: { 'x-forwarded-proto': 'https' } });
    expect(local.headers()['strict-transport-security']).toBeUndefined();
  });

  test('the consent page keeps its own stricter policy', async ({ request }) => {
    const res = await request.get('/oauth/authorize?client_id=nobody');
    expect(res.status()).toBe(400);
    const h = res.headers();
    expect(h['content-security-policy']).toBe("default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'");
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['x-content-type-options']).toBe('nosniff');
    expect(h['referrer-policy']).toBe('same-origin');
  });

  test('API answers gain nosniff and a Referrer-Policy and keep their CORS; the SDK script keeps its headers', async ({ request }) => {
    const api = await request.get('/api/v1/pricing', { headers: { origin: 'https://elsewhere.example' } });
    expect(api.status()).toBe(200);
    expect(api.headers()).toMatchObject({
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'strict-origin-when-cross-origin',
    });
    expect(api.headers()['content-security-policy']).toBeUndefined();
    const sdk = await request.get('/sdk/v1.0.0.js');
    expect(sdk.headers()).toMatchObject({
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
      'cache-control': 'public, max-age=31536000, immutable',
    });
  });
});

test("/signin does not render inside another site's frame", async ({ page, baseURL }) => {
  // Another site that frames the sign-in form (clickjacking), and, as a control, a document of
  // ours that may be framed. It runs on 127.0.0.1, another origin than the app's localhost: a
  // public origin may not frame local servers at all in Chromium (Local Network Access).
  const attacker = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><title>Win a prize</title><iframe id="signin" src="${baseURL}/signin"></iframe><iframe id="control" src="${baseURL}/llms.txt"></iframe>`,
    );
  });
  await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
  const refusals: string[] = [];
  page.on('console', (m) => {
    if (/frame-ancestors|X-Frame-Options/i.test(m.text())) refusals.push(m.text());
  });
  try {
    await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    await expect.poll(() => page.frames().some((f) => f.url() === `${baseURL}/llms.txt`)).toBe(true);
    await expect.poll(() => refusals.length, 'Chromium reports the refused frame').toBeGreaterThan(0);
    expect(refusals.join('\n')).toContain("frame-ancestors 'none'");
    expect(page.frames().some((f) => f.url().startsWith(`${baseURL}/signin`))).toBe(false);
    await expect(page.frameLocator('#signin').getByLabel('Password')).toHaveCount(0);
  } finally {
    attacker.closeAllConnections();
    await new Promise((r) => attacker.close(r));
  }
});

/** Collects the page's CSP violations: the documents' `securitypolicyviolation` events and the console's reports. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const reported: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) reported.push(m.text());
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) =>
      w.__violations.push(`${e.effectiveDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`),
    );
  });
  return async () => [...reported, ...(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations))];
}

test.describe('the content security policy at work', () => {
  // Every visit to /demo in the suite comes from one network (127.0.0.0/24), which the frequency
  // cap counts as one, whatever the user agent: the e2e server raises the network's allowance
  // (SDK_NETWORK_FREQUENCY_FACTOR in playwright.config.ts), so this late visit still fills.

  test('pages run under the policy without a single violation: docs, search, sign-in, the console and the demo', async ({ page }) => {
    const violations = await watchViolations(page);

    // The home page and the docs, with the header's search box (a client component: hydrated).
    await page.goto('/');
    await page.getByRole('searchbox').fill('payouts');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page.locator('.search-results a').first()).toBeVisible();
    expect(await violations()).toEqual([]);
    await page.goto('/docs');
    await expect(page.getByRole('navigation', { name: 'Docs' })).toBeVisible();
    expect(await violations()).toEqual([]);

    await page.goto('/signup');
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await violations()).toEqual([]);

    // Signing in with the form, then the console and its server-rendered charts (inline style attributes).
    await page.goto('/signin?callbackUrl=%2Fdashboard');
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
    expect(await violations()).toEqual([]);
    await page.goto('/dashboard/earnings?days=30');
    await expect(page.locator('figure.chart svg').first()).toBeVisible();
    expect(await violations()).toEqual([]);

    // The demo: the SDK's script and stylesheet, its three ads, and the floating video playing.
    // Its events are not sent: this test counts nothing (e2e/sdk-demo.spec.ts does).
    await page.route('**/functions/v1/events', (route) => route.abort());
    await page.goto('/demo');
    await expect(page.locator('.mz-float video')).toBeVisible();
    await expect.poll(() => page.locator('.mz-float video').evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0)).toBe(true);
    await expect(page.locator('[data-monetize-placement] .mz-card, [data-monetize-placement] .mz-inline').first()).toBeVisible();
    expect(await page.evaluate(() => !!document.querySelector('style[data-monetize]'))).toBe(true);
    expect(await violations()).toEqual([]);
  });
});
