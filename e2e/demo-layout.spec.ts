import { expect, test, type Browser, type Page } from '@playwright/test';

/**
 * The demo app (/demo) fits every width (issue 29): at a phone's, a laptop's and a wide screen's
 * width, with its three ads drawn, the page does not scroll sideways, the floating video (which
 * the SDK fixes to the bottom right of the window) is never over the chat's input, wherever the
 * page is scrolled, and the sponsored card's image is drawn whole.
 *
 * Counts nothing: the page's events are not sent (e2e/sdk-demo.spec.ts counts the demo's traffic),
 * and its ad requests count in the demo app's frequency caps as the other specs' do: by network,
 * whose allowance the e2e server raises (SDK_NETWORK_FREQUENCY_FACTOR in playwright.config.ts).
 */

const SCREENS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}
const intersects = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** /demo in a window of `size`, once its three ads are drawn and the card's image has loaded. */
async function openDemo(browser: Browser, size: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport: size });
  await context.route('**/functions/v1/events', (route) => route.abort());
  const page = await context.newPage();
  await page.goto('/demo');
  await expect(page.getByRole('heading', { level: 1, name: 'Quizly, a demo app' })).toBeVisible();
  await expect(page.locator('.mz-ad')).toHaveCount(3);
  await expect(page.locator('.mz-float video')).toBeVisible();
  await expect.poll(() => page.locator('.mz-card img').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  // Two frames: the page has laid itself out around the ads.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  return page;
}

for (const size of SCREENS) {
  test.describe(`/demo at ${size.width} px`, () => {
    let page: Page;
    test.beforeAll(async ({ browser }) => {
      page = await openDemo(browser, size);
    });
    test.afterAll(async () => {
      // Away first, while the events are still stopped: what the SDK sends as the page goes is stopped too.
      await page.goto('about:blank');
      await page.context().close();
    });

    test('does not scroll sideways', async () => {
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth }));
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
    });

    test("the floating video is never over the chat's input", async () => {
      const input = page.getByLabel('Ask Quizly');
      const video = page.locator('.mz-float');
      const [inputBox, videoBox] = [await input.boundingBox(), await video.boundingBox()];
      expect(inputBox).not.toBeNull();
      expect(videoBox).not.toBeNull();
      expect(intersects(inputBox!, videoBox!), `input ${JSON.stringify(inputBox)}, video ${JSON.stringify(videoBox)}`).toBe(false);

      // Nor anywhere on the way down the page, a quarter of the window at a time.
      const covered = await page.evaluate(() => {
        const box = (el: Element) => {
          const r = el.getBoundingClientRect();
          return { x: r.x, y: r.y, width: r.width, height: r.height };
        };
        const field = document.getElementById('demo-question')!;
        const panel = document.querySelector('.mz-float')!;
        const overlaps: string[] = [];
        const end = document.scrollingElement!.scrollHeight - window.innerHeight;
        for (let y = 0; ; y = Math.min(end, y + window.innerHeight / 4)) {
          window.scrollTo({ top: y, behavior: 'instant' });
          const [a, b] = [box(field), box(panel)];
          if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height)
            overlaps.push(`at ${y}px: input ${JSON.stringify(a)}`);
          if (y >= end) break;
        }
        window.scrollTo({ top: 0, behavior: 'instant' });
        return overlaps;
      });
      expect(covered).toEqual([]);
    });

    // The SDK draws the card's image 96 px wide at its own aspect ratio (packages/sdk/src/styles.ts):
    // the demo's 320×180 images are 96×54, not cropped to a square as version 1.1.0 drew them.
    test("the sponsored card's image is not cropped", async () => {
      const { natural, rendered } = await page.locator('.mz-card img').evaluate((img: HTMLImageElement) => {
        const box = img.getBoundingClientRect();
        return { natural: img.naturalWidth / img.naturalHeight, rendered: box.width / box.height };
      });
      expect(Math.abs(rendered / natural - 1), `natural ${natural.toFixed(3)}, rendered ${rendered.toFixed(3)}`).toBeLessThanOrEqual(0.02);
    });

    test("the sponsored card's call to action shows, under a one-line label and headline", async () => {
      const { card, cta, lines } = await page.locator('.mz-card').evaluate((card: HTMLElement) => {
        const part = (name: string) => card.querySelector<HTMLElement>(`.${name}`)!;
        const linesOf = (el: HTMLElement) => el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight);
        const box = (el: HTMLElement) => {
          const r = el.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom, height: r.height };
        };
        return { card: box(card), cta: box(part('mz-cta')), lines: { label: linesOf(part('mz-label')), title: linesOf(part('mz-title')) } };
      });
      expect(card.height).toBe(120);
      expect(cta.height).toBeGreaterThan(0);
      expect(cta.bottom, `call to action ${JSON.stringify(cta)} in card ${JSON.stringify(card)}`).toBeLessThanOrEqual(card.bottom - 1);
      expect(Math.round(lines.label)).toBe(1);
      expect(Math.round(lines.title)).toBe(1);
    });
  });
}
