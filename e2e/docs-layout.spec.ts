import { expect, test, type Locator, type Page } from '@playwright/test';

/**
 * The docs' own furniture, in Chromium: every link of the docs' sidebar can be clicked at a
 * laptop's and a wide screen's width, scrolled to the end of a short page and of a long one (the
 * footer once covered the last two), and no code block's Copy button sits over its code at a
 * phone's width (it once hid the end of a command).
 */

/** Whether a click at the middle of `target` lands on it (nothing drawn over it there). */
async function clickable(target: Locator): Promise<boolean> {
  await target.scrollIntoViewIfNeeded();
  return target.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit));
  });
}

async function sidebarLinks(page: Page): Promise<Locator[]> {
  const links = page.getByRole('navigation', { name: 'Docs' }).locator('.hidden.lg\\:block a');
  await expect(links.first()).toBeVisible();
  return links.all();
}

for (const viewport of [
  { width: 1280, height: 720 },
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
]) {
  for (const path of ['/docs', '/docs/faq', '/docs/sdk-integration']) {
    test(`every docs sidebar link can be clicked at ${viewport.width}×${viewport.height}, on ${path}, at its top and at its end`, async ({ page }) => {
      await page.setViewportSize(viewport);
      await page.goto(path);
      const covered: string[] = [];
      for (const at of ['top', 'end'] as const) {
        for (const link of await sidebarLinks(page)) {
          await page.evaluate((end) => window.scrollTo(0, end ? document.documentElement.scrollHeight : 0), at === 'end');
          // As a person's click: scrolled to, and nothing else (the footer, the header) takes the click.
          const ok = await link.click({ trial: true, timeout: 1500 }).then(
            () => true,
            () => false,
          );
          if (!ok || !(await clickable(link))) covered.push(`${at}: ${(await link.textContent()) ?? ''}`);
        }
      }
      expect(covered).toEqual([]);
      // And a click on the last one goes where it says.
      const last = (await sidebarLinks(page)).at(-1)!;
      const href = (await last.getAttribute('href'))!;
      await last.click();
      await expect(page).toHaveURL(new RegExp(`${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    });
  }
}

test('no Copy button covers its code at a phone’s width', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const path of ['/docs/quickstart', '/docs/server-side']) {
    await page.goto(path);
    const blocks = page.locator('.prose .code-block');
    await expect(blocks.first().getByRole('button', { name: 'Copy code' })).toBeVisible();
    const overlaps = await blocks.evaluateAll((all) =>
      all.flatMap((block, n) => {
        const button = block.querySelector('button[data-copy-code]')!.getBoundingClientRect();
        const code = block.querySelector('pre')!;
        const range = document.createRange();
        range.selectNodeContents(code);
        // Each line box of the code's text, as drawn (clipped to the block's visible width).
        const visible = code.getBoundingClientRect();
        return [...range.getClientRects()]
          .map((r) => ({ left: Math.max(r.left, visible.left), right: Math.min(r.right, visible.right), top: r.top, bottom: r.bottom }))
          .filter((r) => r.right > r.left && r.left < button.right && r.right > button.left && r.top < button.bottom && r.bottom > button.top)
          .map(() => `block ${n + 1}`);
      }),
    );
    expect([...new Set(overlaps)], path).toEqual([]);
  }
});
