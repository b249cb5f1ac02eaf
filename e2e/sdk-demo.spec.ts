import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { formatCount, formatUsd } from '../lib/platform/kit/format';
import { accountToken } from './helpers/account-token';
import { graveViolations } from './helpers/axe';

/**
 * The browser SDK on the demo app (/demo), in Chromium, on the production build: when an ad's
 * impression is sent (the Media Rating Council's rule), that it is sent once per decision, that a
 * click goes through the click URL to the advertiser and counts once, that a blocked ad request
 * leaves a working page with its fallback, and that nothing on the page moves when ads arrive.
 * Afterwards the demo publisher's account API and console show exactly what the browser sent.
 *
 * Everything the browser sends is watched on the network: each ad answered (its decision) and
 * each impression posted (by fetch or beacon). The demo's placements belong to the demo
 * publisher's app Quizly, which no other test sends events for.
 */

const DEMO = { email: 'demo@example.com', password: 'demo-password' };
type Format = 'inline_text' | 'sponsored_card' | 'floating_video';

interface Sent {
  /** Decisions served, by format, in the order they came. */
  served: { decision: string; format: Format; placement: string }[];
  /** Impression events posted, by decision. */
  impressions: Map<string, number>;
  /** The viewability each decision's impression carried. */
  evidence: Map<string, { visible_share: number; visible_seconds: number }>;
  /** When the page last posted events (ms since the epoch). */
  lastPost: number;
}

/**
 * Records the ads a page was served and the impressions it posted. A fetch's body is read from
 * the request; a beacon's is not there to read (Chromium does not give Playwright the body of a
 * `navigator.sendBeacon`, microsoft/playwright#12231), so the page reports each beacon's body
 * itself, through a wrapper that still sends it.
 */
async function watch(page: Page, sent: Sent): Promise<void> {
  const posted = (body: string) => {
    sent.lastPost = Date.now();
    const { events } = JSON.parse(body) as {
      events: { id: string; type: string; token: string; viewability: { visible_share: number; visible_seconds: number } }[];
    };
    for (const e of events) {
      if (e.type !== 'impression') continue;
      const decision = e.token.split('.')[0]!;
      sent.impressions.set(decision, (sent.impressions.get(decision) ?? 0) + 1);
      sent.evidence.set(decision, e.viewability);
    }
  };
  page.on('response', async (response) => {
    const url = new URL(response.url());
    if (url.pathname !== '/functions/v1/ads' || response.status() !== 200) return;
    const ad = (await response.json()) as { decision_id: string; format: Format; placement_id: string };
    sent.served.push({ decision: ad.decision_id, format: ad.format, placement: ad.placement_id });
  });
  page.on('request', (request) => {
    if (new URL(request.url()).pathname !== '/functions/v1/events' || request.method() !== 'POST') return;
    sent.lastPost = Date.now();
    const body = request.postData();
    if (body !== null) posted(body);
  });
  await page.exposeBinding('reportBeacon', (_source, body: string) => posted(body));
  await page.addInitScript(() => {
    const send = navigator.sendBeacon.bind(navigator);
    const report = (window as unknown as { reportBeacon: (body: string) => Promise<void> }).reportBeacon;
    navigator.sendBeacon = (url, data) => {
      const accepted = send(url, data);
      if (accepted && new URL(url, location.href).pathname === '/functions/v1/events' && data instanceof Blob) void data.text().then(report);
      return accepted;
    };
  });
}

/** Every impression and click the suite's browsers sent, by format, and the demo's placements. */
const totals = {
  impressions: new Map<string, Format>(),
  clicks: new Map<string, Format>(),
  placements: new Map<Format, string>(),
};

/**
 * Leaves the page as a person does, switching away from the tab and then closing it, and adds
 * what it sent to the totals. Hidden, the tab stops every ad's clock and the SDK sends what it
 * holds, by beacon, while the page is still there to report it (see watch): a page that is
 * unloading may be gone before its report arrives, and the server would then count an
 * impression the totals lack.
 */
async function leave(page: Page, sent: Sent): Promise<void> {
  await hide(page, sent);
  const left = Date.now();
  await page.goto('about:blank');
  await quiet(page, sent, left);
  for (const s of sent.served) totals.placements.set(s.format, s.placement);
  for (const [decision] of sent.impressions) {
    const served = sent.served.find((s) => s.decision === decision);
    expect(served, `an impression of a decision this page was served: ${decision}`).toBeDefined();
    totals.impressions.set(decision, served!.format);
  }
}

/** Hides the tab, then waits until what the SDK sent for it has been posted. */
async function hide(page: Page, sent: Sent): Promise<void> {
  await page.evaluate(() => {
    if (document.visibilityState === 'hidden') return;
    Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
    // As the browser fires it: at the document, bubbling to the window, where the SDK listens.
    document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
  });
  await quiet(page, sent, Date.now());
}

/**
 * A beacon can reach us well after it was sent on a busy machine, and an impression that came due
 * as the tab was hidden goes in the SDK's next batch, a second later: waits until 1.5 s have
 * passed with nothing posted since `since` (5 s at most).
 */
async function quiet(page: Page, sent: Sent, since: number): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 250) {
    if (Date.now() - Math.max(since, sent.lastPost) >= 1500) break;
    await page.waitForTimeout(250);
  }
}

async function openDemo(page: Page): Promise<Sent> {
  const sent: Sent = { served: [], impressions: new Map(), evidence: new Map(), lastPost: 0 };
  await watch(page, sent);
  await page.goto('/demo');
  await expect(page.getByRole('heading', { level: 1, name: 'Quizly, a demo app' })).toBeVisible();
  await expect.poll(() => sent.served.map((s) => s.format).sort()).toEqual(['floating_video', 'inline_text', 'sponsored_card']);
  return sent;
}

const cardOf = (sent: Sent) => sent.served.find((s) => s.format === 'sponsored_card')!;
const card = (page: Page) => page.locator('.mz-card');

interface Figures {
  placements: { id: string; name: string; format: Format; impressions: number; clicks: number; revenue_usd: number }[];
}
async function figures(request: APIRequestContext, token: string): Promise<Figures> {
  return (await (await request.get('/api/v1/me/apps', { headers: { authorization: `Bearer ${token}` } })).json()) as Figures;
}

test.describe.serial('the browser SDK on the demo app', () => {
  let token: string;
  let before: Figures;

  test.beforeAll(async ({ browser, request, baseURL }) => {
    const page = await browser.newPage();
    await page.goto('/signin');
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).not.toHaveURL(/\/signin/);
    token = await accountToken(page, request, { base: new URL(baseURL!).origin, clientName: 'SDK demo checker', scope: 'apps:read earnings:read' });
    before = await figures(request, token);
    await page.close();
  });

  test('an ad in view for less than a second sends no impression; one kept in view for a second sends exactly one', async ({ page }) => {
    await page.setViewportSize({ width: 1200, height: 800 });
    const sent = await openDemo(page);
    const decision = cardOf(sent).decision;
    await expect(card(page)).toBeAttached();

    // In view for about half a second, then away.
    await card(page).scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    await page.evaluate(() => window.scrollTo(0, 0));
    // Long enough for a wrongly started clock to finish and its batch to be sent.
    await page.waitForTimeout(2500);
    expect(sent.impressions.get(decision)).toBeUndefined();

    // In view and kept there: one impression, after a second and the SDK's one-second batching.
    await card(page).scrollIntoViewIfNeeded();
    await expect.poll(() => sent.impressions.get(decision), { timeout: 5000 }).toBe(1);
    // Out and back in: still one.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.waitForTimeout(300);
    await card(page).scrollIntoViewIfNeeded();
    await page.waitForTimeout(2500);
    expect(sent.impressions.get(decision)).toBe(1);
    await leave(page, sent);
  });

  test('a hidden tab sends no impression', async ({ page }) => {
    // What the SDK reads of the tab: hidden, and without focus.
    await page.addInitScript(() => {
      Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { get: () => true });
      document.hasFocus = () => false;
    });
    const sent = await openDemo(page);
    await card(page).scrollIntoViewIfNeeded();
    await page.waitForTimeout(3500);
    await leave(page, sent);
    expect([...sent.impressions.keys()]).toEqual([]);
  });

  test('a reload gets new decisions, and each decision counts at most one impression', async ({ page }) => {
    const sent = await openDemo(page);
    const first = new Set(sent.served.map((s) => s.decision));
    // The inline ad and the floating video are in view from the start.
    await expect.poll(() => sent.impressions.size, { timeout: 8000 }).toBeGreaterThanOrEqual(2);
    // Away from the tab first, as in leave().
    await hide(page, sent);
    await page.reload();
    await expect.poll(() => sent.served.length).toBe(6);
    const second = sent.served.slice(3).map((s) => s.decision);
    for (const d of second) expect(first.has(d)).toBe(false);
    await expect.poll(() => second.filter((d) => sent.impressions.has(d)).length, { timeout: 8000 }).toBeGreaterThanOrEqual(2);
    await page.waitForTimeout(1500);
    await leave(page, sent);
    for (const [decision, count] of sent.impressions) expect(count, decision).toBe(1);
  });

  test("a click opens the advertiser's page through the click URL, and counts once", async ({ page, context }) => {
    const sent = await openDemo(page);
    const served = cardOf(sent);
    await card(page).scrollIntoViewIfNeeded();
    await expect.poll(() => sent.impressions.get(served.decision), { timeout: 5000 }).toBe(1);

    // The advertisers' pages are on the internet, which this machine cannot reach (and Playwright
    // cannot answer for a redirect's target): what is checked is that the new tab goes there.
    const clicks: string[] = [];
    const advertisers: string[] = [];
    context.on('response', (r) => {
      if (new URL(r.url()).pathname === '/functions/v1/click') clicks.push(`${r.status()} ${r.headers().location ?? ''}`);
    });
    context.on('request', (r) => {
      if (r.isNavigationRequest() && /^https:\/\/[a-z0-9-]+\.example\//.test(r.url())) advertisers.push(r.url());
    });
    const [tab] = await Promise.all([context.waitForEvent('page'), card(page).getByRole('link').click()]);
    expect(tab).not.toBe(page);
    await expect.poll(() => advertisers.length).toBe(1);
    expect(clicks).toEqual([`302 ${advertisers[0]}`]);
    // The same ad clicked again: the advertiser again; the service counts the click once (the last test).
    await Promise.all([context.waitForEvent('page'), card(page).getByRole('link').click()]);
    await expect.poll(() => advertisers.length).toBe(2);
    expect(advertisers[1]).toBe(advertisers[0]);
    totals.clicks.set(served.decision, 'sponsored_card');
    await leave(page, sent);
  });

  test('the ads are marked Sponsored, reached by the keyboard, and pass axe', async ({ page }) => {
    const sent = await openDemo(page);
    await expect(page.locator('.mz-ad')).toHaveCount(3);
    for (const ad of await page.locator('.mz-ad').all()) await expect(ad.locator('.mz-label').first()).toHaveText(/^Sponsored/);
    // Tabbing through the page reaches every ad's link, its "Why this ad?" and the video's close button.
    const reached = new Set<string>();
    for (let i = 0; i < 80 && reached.size < 6; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const el = document.activeElement;
        const ad = el?.closest('.mz-ad');
        return ad ? `${ad.className} ${el!.tagName}` : null;
      });
      if (focused) reached.add(focused);
    }
    expect([...reached].sort()).toEqual([
      'mz-ad mz-card A',
      'mz-ad mz-card BUTTON',
      'mz-ad mz-float A',
      'mz-ad mz-float BUTTON',
      'mz-ad mz-inline A',
      'mz-ad mz-inline BUTTON',
    ]);
    for (const ad of await page.locator('.mz-ad').all()) await expect(ad.getByRole('button', { name: 'Why this ad?' })).toHaveCount(1);
    expect(await graveViolations(page)).toEqual([]);
    await leave(page, sent);
  });

  test('the floating video plays muted, counts after two seconds of playback, and closes', async ({ page }) => {
    const sent = await openDemo(page);
    const served = sent.served.find((s) => s.format === 'floating_video')!;
    const video = page.locator('.mz-float video');
    await expect(video).toHaveJSProperty('muted', true);
    await expect.poll(() => video.evaluate((v: HTMLVideoElement) => !v.paused && v.currentTime > 0)).toBe(true);
    await expect.poll(() => sent.impressions.get(served.decision), { timeout: 8000 }).toBe(1);
    expect(sent.evidence.get(served.decision)!.visible_seconds).toBeGreaterThanOrEqual(2);
    await page.getByRole('button', { name: 'Close ad' }).click();
    await expect(page.locator('.mz-float')).toHaveCount(0);
    await leave(page, sent);
  });

  test('with the ad requests blocked, the page works, shows its fallback and throws nothing', async ({ page }) => {
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('**/functions/v1/ads**', (route) => route.abort('blockedbyclient'));
    // And the chat's own server, whose answers carry the ads it asked for: the page answers by itself.
    await page.route('**/api/demo/chat', (route) => route.abort('blockedbyclient'));
    await page.goto('/demo');
    await expect(page.getByText('Quizly Pro: unlimited quizzes for your whole class.')).toBeVisible();
    await expect(page.locator('.mz-ad')).toHaveCount(0);
    // The app itself still answers.
    await page.getByLabel('Ask Quizly').fill('Photosynthesis, please');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(page.locator('.demo-assistant')).toHaveCount(2);
    await expect(page.getByText('Flashcards for photosynthesis')).toBeVisible();
    await expect(page.getByTestId('sdk-events')).toContainText('error');
    expect(errors).toEqual([]);
  });

  test('nothing on the page moves when the ads arrive (no layout shift)', async ({ page }) => {
    await page.addInitScript(() => {
      const w = window as unknown as { shifts: { value: number; sources: string[] }[] };
      w.shifts = [];
      // Each shift says what moved, from where to where and when, so that a failure explains itself.
      const describe = (s: { node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }) => {
        const node = s.node;
        const element = node instanceof Element ? node : node?.parentElement;
        const what = `${element?.tagName ?? '?'}.${element?.className ?? ''} "${(node?.textContent ?? '').slice(0, 40)}"`;
        const rect = (r: DOMRectReadOnly) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
        return `${what} ${rect(s.previousRect)} -> ${rect(s.currentRect)}`;
      };
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as {
          value: number;
          startTime: number;
          hadRecentInput: boolean;
          sources?: { node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
        }[]) {
          if (!entry.hadRecentInput)
            w.shifts.push({ value: entry.value, sources: [`at ${Math.round(entry.startTime)} ms`, ...(entry.sources ?? []).map(describe)] });
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    // The ads arrive well after the page has been drawn.
    await page.route('**/functions/v1/ads**', async (route) => {
      await new Promise((r) => setTimeout(r, 1200));
      await route.continue();
    });
    const sent = await openDemo(page);
    await expect(page.locator('.mz-ad')).toHaveCount(3);
    await page.waitForTimeout(2500);
    const shifts = await page.evaluate(() => (window as unknown as { shifts: { value: number; sources: string[] }[] }).shifts);
    expect(shifts).toEqual([]);
    await leave(page, sent);
  });

  test("afterwards the demo publisher's account and console show exactly what the browser sent", async ({ page, request }) => {
    test.setTimeout(120_000);
    const pricing = (await (await request.get('/api/v1/pricing')).json()) as { publisher_ad_revenue_share: number; advertiser_cpm_usd: Record<Format, number> };
    const worth = (format: Format) => (pricing.advertiser_cpm_usd[format] / 1000) * pricing.publisher_ad_revenue_share;
    const expected = new Map<string, { impressions: number; clicks: number; revenue: number }>();
    for (const format of ['inline_text', 'sponsored_card', 'floating_video'] as const) {
      const impressions = [...totals.impressions.values()].filter((f) => f === format).length;
      const clicks = [...totals.clicks.values()].filter((f) => f === format).length;
      expected.set(totals.placements.get(format)!, { impressions, clicks, revenue: impressions * worth(format) });
    }
    expect([...totals.impressions.keys()].length).toBeGreaterThanOrEqual(5);

    // The server's roll-up runs every 10 s.
    const delta = async () => {
      const after = await figures(request, token);
      return [...expected.keys()].map((id) => {
        const a = after.placements.find((p) => p.id === id)!;
        const b = before.placements.find((p) => p.id === id)!;
        return { id, impressions: a.impressions - b.impressions, clicks: a.clicks - b.clicks, revenue: a.revenue_usd - b.revenue_usd };
      });
    };
    await expect
      .poll(async () => (await delta()).map((d) => [d.impressions, d.clicks]), { timeout: 60_000, intervals: [2000] })
      .toEqual([...expected.values()].map((e) => [e.impressions, e.clicks]));
    for (const d of await delta()) {
      // Reported in cents, before and after: the difference is within a cent of the exact sum.
      expect(Math.abs(d.revenue - expected.get(d.id)!.revenue), d.id).toBeLessThan(0.0100001);
    }

    // The console's earnings page shows the same figures.
    const after = await figures(request, token);
    const earnings = (await (await request.get('/api/v1/me/earnings', { headers: { authorization: `Bearer ${token}` } })).json()) as { impressions: number };
    await page.goto('/signin');
    await page.getByLabel('Email').fill(DEMO.email);
    await page.getByLabel('Password').fill(DEMO.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).not.toHaveURL(/\/signin/);
    await page.goto('/dashboard/earnings');
    await expect(page.getByTestId('earnings-impressions')).toHaveText(formatCount(earnings.impressions));
    const table = page.getByRole('region', { name: 'Placements to date' });
    for (const id of expected.keys()) {
      const p = after.placements.find((x) => x.id === id)!;
      // Name, format, status, impressions, clicks, CTR, revenue: the figures the account API gives.
      const cells = table.getByRole('row', { name: new RegExp(p.name) }).getByRole('cell');
      await expect(cells.nth(2)).toHaveText(formatCount(p.impressions));
      await expect(cells.nth(3)).toHaveText(formatCount(p.clicks));
      await expect(cells.nth(5)).toHaveText(formatUsd(p.revenue_usd));
    }
  });
});

test('the script build loads on another origin with its integrity hash, and warns once when loaded twice', async ({ page, request, baseURL }) => {
  const { readFileSync } = await import('node:fs');
  // The current release, as the build wrote it (packages/sdk/build.mjs).
  const release = JSON.parse(readFileSync('lib/publisher/sdk-release.json', 'utf8')) as { version: string; path: string };
  const served = await request.get(release.path);
  expect(served.status()).toBe(200);
  expect(served.headers()['content-type']).toMatch(/javascript/);
  expect(served.headers()['access-control-allow-origin']).toBe('*');
  expect(served.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  const latest = await request.get('/sdk/v1.js');
  expect((await latest.body()).equals(await served.body())).toBe(true);
  expect(latest.headers()['cache-control']).toBe('public, max-age=300, must-revalidate');
  const { createHash } = await import('node:crypto');
  const sri = (bytes: Buffer) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
  const hash = sri(await served.body());
  const docs = await (await request.get('/docs/sdk-integration.md')).text();
  expect(docs).toContain(`integrity="${hash}"`);
  // The releases before it are still served, byte for byte, to the pages that pinned them.
  for (const [version, hash] of [
    ['1.0.0', 'sha384-skrtN1sqHWrKwKOPuGp1iOwsdP5d16jy48MuoFOQCryHoBLqIS8rHDIxATM4ssVO'],
    ['1.1.0', 'sha384-hPrE05bDggo03+e0x6hyt90y/MkAk0gntH1CLf4WrMiNapFDB1sYbuo7iAT1QIkO'],
    ['1.2.0', 'sha384-H7vrU8q/fFuPOArZkl5om9saUOuM0Elm92Zg4Rrd/MJL0DtuyfyoJQxv6vQA90A9'],
    ['1.3.0', 'sha384-nqc0UGNExJOokhk+mcRuvRQH8zm7/IlgF6onMi9342cSH1qcqxiRY/eZsKTdm8lY'],
    ['1.4.0', 'sha384-cbxZr7V29qb/U0ZV1/c+rxKCyLGb+8a6EScHkWWkTIV3HoOHwitN8Dnb15/VGrQ2'],
  ]) {
    const previous = await request.get(`/sdk/v${version}.js`);
    expect(previous.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(sri(await previous.body())).toBe(hash);
  }

  const warnings: string[] = [];
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  // A page of no origin of ours (about:blank), as a publisher's page is.
  const tag = `<script src="${new URL(release.path, baseURL).href}" integrity="${hash}" crossorigin="anonymous"></script>`;
  await page.setContent(`<!doctype html><title>Publisher</title>${tag}${tag}${tag}`);
  await expect.poll(() => page.evaluate(() => typeof (window as unknown as { Monetize?: { createClient: unknown } }).Monetize?.createClient)).toBe('function');
  expect(await page.evaluate(() => (window as unknown as { Monetize: { version: string } }).Monetize.version)).toBe(release.version);
  expect(warnings.filter((w) => w.includes('loaded more than once'))).toHaveLength(1);
  // A wrong hash: the browser refuses the script.
  const refused = await page.context().newPage();
  await refused.setContent(
    `<!doctype html><script src="${new URL(release.path, baseURL).href}" integrity="sha384-${'A'.repeat(64)}" crossorigin="anonymous"></script>`,
  );
  await refused.waitForTimeout(500);
  expect(await refused.evaluate(() => 'Monetize' in window)).toBe(false);
  expect(errors).toEqual([]);
});
