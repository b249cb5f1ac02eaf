import { createHash, randomBytes } from 'node:crypto';
import { expect, test, type Page, type TestInfo } from '@playwright/test';
import { allPages } from '../lib/docs/content/pages';
import { DEMO_ADVERTISER_EMAIL, DEMO_PASSWORD } from '../lib/demo/seed';
import { opsSignIn } from './helpers/ops';
import { DEMO_BUYER_EMAIL } from '../lib/demo/data-market';
import { graveViolations } from './helpers/axe';

/**
 * Every page of the product, at a phone's, a laptop's and a wide screen's width: a screenshot of
 * each (in test-results/e2e/…/), and the checks a person would make by eye, made with bounding
 * boxes instead. A page fails when it scrolls sideways, when an interactive element (a link, a
 * button, a field) is cut off by the edge of the window or of a box it sits in, even once
 * scrolled into view, or is covered by something else at its centre; and when axe finds a
 * serious or critical accessibility violation.
 */

const WIDTHS = [390, 1280, 1920] as const;

interface Problem {
  what: string;
  element: string;
}

/** The layout problems of the page as it is now (run in the page). */
function layoutProblems(): Problem[] {
  const problems: Problem[] = [];
  const describe = (el: Element) =>
    `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60)}"`;
  const root = document.scrollingElement!;
  if (root.scrollWidth > window.innerWidth + 1)
    problems.push({ what: `scrolls sideways: ${root.scrollWidth} px wide in a ${window.innerWidth} px window`, element: 'page' });
  // The band of the window an element is checked in: below the sticky site header.
  const header = document.querySelector('body > header')?.getBoundingClientRect().bottom ?? 0;
  const band = { top: Math.max(0, header) + 8, bottom: window.innerHeight - 8 };
  const selector = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]:not([tabindex="-1"])';
  const elements = [...document.querySelectorAll<HTMLElement>(selector)]
    .filter((el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }))
    // The "skip to content" link and other visually hidden controls are one pixel by design.
    .filter((el) => {
      const r = el.getBoundingClientRect();
      return r.width > 1 && r.height > 1;
    })
    .map((el) => ({ el, top: el.getBoundingClientRect().top + window.scrollY }))
    .sort((a, b) => a.top - b.top);
  for (const { el } of elements) {
    let r = el.getBoundingClientRect();
    // Into view: the window scrolls only when the element is outside the band (a screen at a
    // time, in document order); a box that scrolls (a wide table, the docs sidebar) brings it
    // into its own view.
    if (r.top < band.top || r.bottom > band.bottom) {
      window.scrollTo(0, window.scrollY + r.top - band.top);
      r = el.getBoundingClientRect();
    }
    let clipped = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const style = getComputedStyle(a);
      const box = a.getBoundingClientRect();
      if (style.overflowX !== 'visible' && (r.left < box.left - 0.5 || r.right > box.right + 0.5)) clipped = true;
      if (style.overflowY !== 'visible' && (r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5)) clipped = true;
    }
    if (clipped || r.left < 0 || r.right > window.innerWidth) {
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      r = el.getBoundingClientRect();
    }
    let left = Math.max(r.left, 0);
    let top = Math.max(r.top, 0);
    let right = Math.min(r.right, window.innerWidth);
    let bottom = Math.min(r.bottom, window.innerHeight);
    for (let a = el.parentElement; a; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
      const box = a.getBoundingClientRect();
      left = Math.max(left, box.left);
      top = Math.max(top, box.top);
      right = Math.min(right, box.right);
      bottom = Math.min(bottom, box.bottom);
    }
    // Shown whole across, and whole down unless it is taller than the window (a long code block).
    const shownAcross = Math.max(0, right - left);
    const shownDown = Math.max(0, bottom - top);
    const cutAcross = shownAcross < r.width - 1.5;
    const cutDown = r.height <= band.bottom - band.top && shownDown < r.height - 1.5;
    if (cutAcross || cutDown) {
      problems.push({
        what: `cut off: ${Math.round(shownAcross)}×${Math.round(shownDown)} of ${Math.round(r.width)}×${Math.round(r.height)} px shown`,
        element: describe(el),
      });
      continue;
    }
    const coveredBy = (x: number, y: number) => {
      const hit = document.elementFromPoint(x, y);
      if (!hit || el.contains(hit) || hit.contains(el)) return null;
      // A label over its own control is one thing.
      const label = hit.closest('label');
      return label && (label.control === el || label.contains(el)) ? null : hit;
    };
    let hit = coveredBy((left + right) / 2, (top + bottom) / 2);
    if (hit && r.top > band.top + 1) {
      // Something fixed to the window (the demo's floating video) may cover the lower part of
      // it: the element counts as covered only if it is covered at the top of the band too.
      window.scrollTo(0, window.scrollY + r.top - band.top);
      const moved = el.getBoundingClientRect();
      hit = coveredBy((Math.max(moved.left, 0) + Math.min(moved.right, window.innerWidth)) / 2, moved.top + Math.min(moved.height, band.bottom - band.top) / 2);
    }
    if (hit) problems.push({ what: `covered by ${describe(hit)}`, element: describe(el) });
  }
  window.scrollTo(0, 0);
  return problems;
}

/**
 * The browser's own form controls left on a page: selects, checkboxes, radios and date or time
 * pickers a person can reach. The design system's controls (app/_components/ui/) stand in for
 * them; the hidden inputs those keep for the form are aria-hidden and not counted.
 */
function nativeControls(): string[] {
  const kinds =
    'select, input[type=checkbox], input[type=radio], input[type=date], input[type=datetime-local], input[type=time], input[type=month], input[type=week]';
  return [...document.querySelectorAll<HTMLElement>(kinds)]
    .filter((e) => !e.closest('[aria-hidden="true"]') && e.getAttribute('aria-hidden') !== 'true')
    .map(
      (e) =>
        `${e.tagName.toLowerCase()}${e.getAttribute('type') ? `[type=${e.getAttribute('type')}]` : ''}${e.getAttribute('name') ? ` name=${e.getAttribute('name')}` : ''}`,
    );
}

async function check(page: Page, testInfo: TestInfo, name: string) {
  const problems: string[] = [];
  for (const c of await page.evaluate(nativeControls)) problems.push(`a native control: ${c}`);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    // Let the layout settle (fonts, images, the SDK's ads on /demo).
    await page.waitForTimeout(300);
    const shot = testInfo.outputPath(`${name.replace(/[^a-z0-9]+/gi, '-')}-${width}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    for (const p of await page.evaluate(layoutProblems)) problems.push(`${width} px: ${p.element}: ${p.what}`);
    // axe at a phone's and a laptop's width; a docs page (one template, its content alike at any
    // width) once, at the laptop's.
    if (width === 1280 || (width === 390 && !name.startsWith('site/docs/'))) {
      for (const v of await graveViolations(page)) problems.push(`${width} px: axe ${v}`);
    }
  }
  expect(problems, name).toEqual([]);
}

async function visit(page: Page, path: string) {
  const response = await page.goto(path);
  expect(response?.status(), path).toBeLessThan(400);
  await expect(page).toHaveTitle(/\S/);
}

test.describe('every public page', () => {
  test.describe.configure({ timeout: 120_000 });
  for (const { path } of allPages()) {
    test(`${path} fits every width and has no serious accessibility violation`, async ({ page }, testInfo) => {
      await visit(page, path);
      await check(page, testInfo, `site${path}`);
    });
  }

  test('sign-in, sign-up, the 404 page and the demo fit every width', async ({ page }, testInfo) => {
    for (const path of ['/signin', '/signup', '/demo']) {
      await visit(page, path);
      await check(page, testInfo, path);
    }
    expect((await page.goto('/no-such-page'))?.status()).toBe(404);
    await check(page, testInfo, 'not-found');
  });
});

test('every console page, and the consent page, fit every width', async ({ page, request, baseURL }, testInfo) => {
  test.setTimeout(180_000);
  await page.goto('/signin?callbackUrl=/dashboard');
  await page.getByLabel('Email').fill('demo@example.com');
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Console' })).toBeVisible();
  await check(page, testInfo, 'console');
  const appPage = await page.getByRole('heading', { level: 3 }).getByRole('link').first().getAttribute('href');
  for (const path of [appPage!, '/dashboard/earnings', '/dashboard/payouts', '/dashboard/connected']) {
    await visit(page, path);
    await check(page, testInfo, path);
  }

  // The consent page a third-party app sends the publisher to.
  const registered = await request.post('/oauth/register', {
    data: { client_name: 'Layout Check', redirect_uris: ['http://127.0.0.1:9/callback'], token_endpoint_auth_method: 'none' },
  });
  const { client_id } = await registered.json();
  const authorize = new URL('/oauth/authorize', baseURL);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: 'http://127.0.0.1:9/callback',
    scope: 'profile:read earnings:read',
    state: 'layout',
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  await visit(page, authorize.href);
  await expect(page.getByRole('button', { name: 'Approve' })).toBeVisible();
  await check(page, testInfo, 'consent');
});

test('the operator console fits every width', async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await visit(page, '/ops/signin');
  await check(page, testInfo, 'ops-signin');
  await opsSignIn(page);
  await check(page, testInfo, 'ops');
  // Every page of it: one kind of work each.
  for (const path of ['/ops/top-ups', '/ops/reviews', '/ops/payouts', '/ops/months', '/ops/balances', '/ops/pricing', '/ops/audit', '/ops/traffic']) {
    await visit(page, path);
    await expect(page.locator('nav[aria-label="Operator console"] [aria-current=page]')).toHaveAttribute('href', path);
    await check(page, testInfo, path.slice(1));
  }
});

test('every advertiser page fits every width', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await page.goto('/signin?callbackUrl=/dashboard/ads');
  await page.getByLabel('Email').fill(DEMO_ADVERTISER_EMAIL);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Advertising' })).toBeVisible();
  await check(page, testInfo, 'ads');
  const campaign = await page.getByRole('region', { name: 'Campaigns' }).getByRole('link').first().getAttribute('href');
  await visit(page, '/dashboard/ads/funds');
  await check(page, testInfo, 'ads-funds');
  const receipt = await page.getByRole('region', { name: 'Top-ups' }).getByRole('link').first().getAttribute('href');
  for (const path of [campaign!, '/dashboard/ads/campaigns/new', '/dashboard/ads/reports', '/dashboard/ads/conversions', receipt!]) {
    await visit(page, path);
    await check(page, testInfo, path);
  }
});

test('every data buyer page fits every width', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await page.goto('/signin?callbackUrl=/dashboard/data');
  await page.getByLabel('Email').fill(DEMO_BUYER_EMAIL);
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Data' })).toBeVisible();
  await check(page, testInfo, 'data');
  const license = await page.getByRole('region', { name: 'Licenses' }).getByRole('link').first().getAttribute('href');
  await visit(page, '/dashboard/data/funds');
  await check(page, testInfo, 'data-funds');
  const invoice = await page.getByRole('region', { name: 'Top-ups' }).getByRole('link').first().getAttribute('href');
  for (const path of [
    '/dashboard/data/catalog/ai_interactions?sample=100',
    '/dashboard/data/catalog/ux_sessions',
    '/dashboard/data/catalog/gb_bundles',
    license!,
    invoice!,
  ]) {
    await visit(page, path);
    await check(page, testInfo, path);
  }
});

test('on a phone the header menu opens, leads to a page, and is closed on arrival', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await visit(page, '/');
  const menu = page.getByRole('navigation', { name: 'Main (menu)' });
  await expect(menu).toBeHidden();
  await page.getByText('Menu', { exact: true }).click();
  await expect(menu).toBeVisible();
  await menu.getByRole('link', { name: 'Pricing' }).click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(menu).toBeHidden();
  await page.getByText('Menu', { exact: true }).click();
  await expect(menu).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
});
