import { expect, test, type Page, type Response } from '@playwright/test';
import { graveViolations } from './helpers/axe';

/**
 * The demo chat sends its conversation with each answer's ad request (POST /functions/v1/ads), in
 * Chromium, on the production build: a question about note-taking gets a fitting ad with its
 * "Why this ad?" (the advertiser, the hints that matched, the conversation not stored); "Hide this
 * ad" removes it and records a hide, and the next answer shows another campaign or none; a
 * question about a symptom gets none (`No-Fill-Reason: sensitive`).
 *
 * Each test is a browser of its own user agent: a hide keeps its campaign from that client (its
 * network and browser) on the app for 30 days, and must keep it from no other test's.
 */

const BROWSER = (name: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 AdContext/${name}-${Date.now().toString(36)}`;

/** Asks Quizly `question` in a new chat, and answers the ad request made for its answer. */
async function ask(page: Page, question: string): Promise<Response> {
  const answered = page.waitForResponse((r) => {
    const request = r.request();
    if (new URL(r.url()).pathname !== '/functions/v1/ads' || request.method() !== 'POST') return false;
    const body = request.postDataJSON() as { context?: { messages: { content: string }[] } };
    return body.context?.messages.some((m) => m.content === question) ?? false;
  });
  await page.getByLabel('Ask Quizly').fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
  return answered;
}

/** The ad under the newest answer. */
const lastAd = (page: Page) => page.locator('.demo-assistant').last().locator('.mz-ad');

async function newChat(page: Page): Promise<void> {
  await page.goto('/demo');
  await expect(page.locator('.mz-ad')).toHaveCount(3);
  await page.getByRole('button', { name: 'New chat' }).click();
  await expect(page.locator('.demo-assistant')).toHaveCount(0);
}

test.describe('ads that fit the conversation, in the demo chat', () => {
  for (const viewport of [
    { name: 'desktop', width: 1280, height: 900 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    test(`a note-taking question gets a fitting ad whose "Why this ad?" explains it, and "Hide this ad" hides its campaign (${viewport.name})`, async ({
      browser,
    }, testInfo) => {
      const context = await browser.newContext({ userAgent: BROWSER(`notes-${viewport.name}`), viewport });
      const page = await context.newPage();
      await newChat(page);

      const question = 'Which app should I use to organise my notes for revision?';
      const answer = await ask(page, question);
      expect(answer.status()).toBe(200);
      const sent = answer.request().postDataJSON() as { context: { messages: { role: string; content: string }[] } };
      expect(sent.context.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(new URL(answer.url()).search).toBe('');
      const ad = (await answer.json()) as { ad: { advertiser: string }; relevance: number; why: { matched: string[] } };
      expect(ad.ad.advertiser).toBe('Lumen Notes');
      expect(ad.relevance).toBeGreaterThanOrEqual(0.3);
      expect(ad.why.matched).toContain('organise my notes');

      const shown = lastAd(page);
      await expect(shown).toContainText('Lumen Notes');
      await shown.getByRole('button', { name: 'Why this ad?' }).click();
      const why = page.getByRole('dialog', { name: 'Why this ad?' });
      await expect(why).toBeVisible();
      await expect(why).toContainText('This ad is from Lumen Notes');
      await expect(why).toContainText(`It fits what this conversation is about: ${ad.why.matched.join(', ')}.`);
      await expect(why).toContainText('Your conversation was used to choose this ad and was not stored.');
      // Inside the window, whatever its width.
      const box = (await why.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
      expect(await graveViolations(page)).toEqual([]);
      await page.screenshot({ path: testInfo.outputPath(`why-this-ad-${viewport.name}.png`) });

      const hidden = page.waitForResponse((r) => new URL(r.url()).pathname === '/functions/v1/events' && (r.request().postData() ?? '').includes('"hide"'));
      await why.getByRole('button', { name: 'Hide this ad' }).click();
      await expect(why).toHaveCount(0);
      await expect(page.locator('.demo-assistant').last().getByText('Ad hidden')).toBeVisible();
      const recorded = (await (await hidden).json()) as { results: { id: string; status: string }[] };
      expect(recorded.results.filter((r) => r.id.endsWith('.hide')).map((r) => r.status)).toEqual(['recorded']);

      // The next answer about notes: another campaign, or none, never Lumen Notes again for this browser.
      const next = await ask(page, 'Any other tips to organise my notes?');
      if (next.status() === 200) expect(((await next.json()) as { ad: { advertiser: string } }).ad.advertiser).not.toBe('Lumen Notes');
      else expect(next.status()).toBe(204);
      await expect(page.locator('.demo-assistant')).toHaveCount(2);
      await expect(lastAd(page).filter({ hasText: 'Lumen Notes' })).toHaveCount(0);
      await context.close();
    });
  }

  test('a question about a symptom gets no ad', async ({ browser }) => {
    const context = await browser.newContext({ userAgent: BROWSER('symptom') });
    const page = await context.newPage();
    await newChat(page);
    const answer = await ask(page, 'My knee swells up after long runs, what should I do?');
    expect(answer.status()).toBe(204);
    expect(answer.headers()['no-fill-reason']).toBe('sensitive');
    await expect(page.locator('.demo-assistant')).toHaveCount(1);
    await expect(page.getByText('I am a quiz helper, not a doctor')).toBeVisible();
    await expect(page.getByTestId('sdk-events')).toContainText('no-fill');
    await expect(lastAd(page)).toHaveCount(0);
    await context.close();
  });
});
