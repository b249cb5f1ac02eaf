import { expect, test, type Page, type Request } from '@playwright/test';
import { graveViolations } from './helpers/axe';

/**
 * The demo chat answers from its server route (POST /api/demo/chat), in Chromium, on the production
 * build: the answer streams, the demo's server asks for the ad beside it with the app's server
 * key and this browser as the client (POST /functions/v1/ads, never from the page), and the ad
 * arrives as the answer's last chunk, which the browser SDK shows (`findAd`, `client.show`) and
 * counts once it has been viewable. A question about note-taking gets a fitting ad with its "Why
 * this ad?" (the advertiser, the hints that matched, the conversation not stored); "Hide this ad"
 * removes it and records a hide, and the next answer shows another campaign or none; a question
 * about a symptom gets none.
 *
 * Each test is a browser of its own user agent: a hide keeps its campaign from that client (its
 * network and browser) on the app for 30 days, and must keep it from no other test's.
 */

const BROWSER = (name: string) =>
  `Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 AdContext/${name}-${Date.now().toString(36)}`;
/**
 * Asks Quizly `question` and waits until its answer has streamed in whole (the Send button is
 * enabled again); answers the chat's request. The streamed text itself is not read here: Chromium
 * does not always keep the body of a response the page read as a stream. What it carried is what
 * the page shows; its markdown is held by tests/integration/demo-chat.test.ts.
 */
async function ask(page: Page, question: string): Promise<Request> {
  const answered = page.waitForResponse((r) => {
    if (new URL(r.url()).pathname !== '/api/demo/chat' || r.request().method() !== 'POST') return false;
    const body = r.request().postDataJSON() as { messages: { content: string }[] };
    return body.messages.at(-1)?.content === question;
  });
  await page.getByLabel('Ask Quizly').fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
  const response = await answered;
  expect(response.status()).toBe(200);
  await expect(page.getByRole('button', { name: 'Send' })).toBeEnabled();
  return response.request();
}

/** The decision token of the ad shown under the newest answer, from its link to its click URL. */
async function shownToken(page: Page): Promise<string> {
  const href = (await lastAd(page).locator('a[href*="/functions/v1/click"]').first().getAttribute('href'))!;
  return new URL(href).searchParams.get('token')!;
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
  test('the streamed answer ends with the ad its server asked for, which the SDK shows and counts once viewable', async ({ browser }) => {
    const context = await browser.newContext({ userAgent: BROWSER('stream') });
    const page = await context.newPage();
    const fromPage: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/functions/v1/ads') fromPage.push(r.method());
    });
    await newChat(page);
    fromPage.length = 0;

    const request = await ask(page, 'What is a good way to keep my meeting notes in one place?');
    // The page sent its conversation to its own server, and asked the service for nothing.
    expect((request.postDataJSON() as { messages: { role: string }[] }).messages.map((m) => m.role)).toEqual(['user']);
    expect(fromPage).toEqual([]);

    // The answer, then the ad its server asked for, shown by the SDK: none of the ad's markdown shows.
    const answer = page.locator('.demo-assistant').last();
    await expect(answer).toContainText('Good notes make good quizzes');
    await expect(answer.locator('.mz-ad')).toContainText('Lumen Notes');
    await expect(answer.locator('.mz-ad')).toContainText('Sponsored');
    await expect(answer).not.toContainText('**Sponsored**');
    await expect(answer).not.toContainText('monetize-ad');
    // Counted by this browser, the client the server named, once it has been in view.
    const token = await shownToken(page);
    const impression = await page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/functions/v1/events' && (r.request().postData() ?? '').includes(token),
    );
    const sent = impression.request().postDataJSON() as { events: { id: string; type: string; token: string }[] };
    const mine = sent.events.filter((e) => e.token === token);
    expect(mine.map((e) => e.type)).toEqual(['impression']);
    const results = (await impression.json()) as { results: { id: string; status: string }[] };
    expect(results.results.find((r) => r.id === mine[0]!.id)?.status).toBe('recorded');
    await context.close();
  });

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

      await ask(page, 'Which app should I use to organise my notes for revision?');
      const shown = lastAd(page);
      await expect(shown).toContainText('Lumen Notes');
      await shown.getByRole('button', { name: 'Why this ad?' }).click();
      const why = page.getByRole('dialog', { name: 'Why this ad?' });
      await expect(why).toBeVisible();
      await expect(why).toContainText('This ad is from Lumen Notes');
      await expect(why).toContainText('It fits what this conversation is about: ');
      await expect(why).toContainText('organise my notes');
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
      await ask(page, 'Any other tips to organise my notes?');
      await expect(page.locator('.demo-assistant')).toHaveCount(2);
      await expect(lastAd(page).filter({ hasText: 'Lumen Notes' })).toHaveCount(0);
      await context.close();
    });
  }

  test('the sponsored follow-up under the answer is counted once in view, and a click on it asks it and counts once', async ({ browser }) => {
    const context = await browser.newContext({ userAgent: BROWSER('follow-up'), viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await newChat(page);
    await ask(page, 'What is a good way to keep my meeting notes in one place?');

    // Under the newest answer, outside it: labelled, the question, its advertiser.
    const followUp = page.locator('.demo-follow-up .mz-ad');
    const question = 'How can I turn my notes into a revision plan?';
    await expect(followUp).toBeVisible();
    await expect(followUp).toContainText('Sponsored');
    await expect(followUp).toContainText(question);
    await expect(followUp).toContainText('Lumen Notes');
    await expect(page.locator('.demo-assistant').last().locator('.mz-ad')).toHaveCount(1);
    // Within a phone's width.
    const box = (await followUp.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);

    const link = followUp.getByRole('link', { name: question });
    const token = new URL((await link.getAttribute('href'))!).searchParams.get('token')!;
    const eventsWith = (kind: string) => (r: { url(): string; request(): Request }) =>
      new URL(r.url()).pathname === '/functions/v1/events' &&
      ((r.request().postDataJSON() as { events?: { type: string; token: string }[] } | null)?.events ?? []).some((e) => e.type === kind && e.token === token);
    // Its impression, once the whole question has been in view for a second.
    const impression = await page.waitForResponse(eventsWith('impression'));
    expect(((await impression.json()) as { results: { status: string }[] }).results.map((r) => r.status)).toContain('recorded');

    // A click asks the question in the chat (no new tab) and sends its click, which is recorded.
    const clicked = page.waitForResponse(eventsWith('click'));
    const asked = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/demo/chat' && r.postData()?.includes(question) === true);
    const pages = context.pages().length;
    await link.click();
    await asked;
    const click = await clicked;
    const sent = (click.request().postDataJSON() as { events: { id: string; type: string; token: string }[] }).events.filter((e) => e.type === 'click');
    expect(sent).toHaveLength(1);
    expect(((await click.json()) as { results: { id: string; status: string }[] }).results.find((r) => r.id === sent[0]!.id)?.status).toBe('recorded');
    await expect(page.locator('.demo-user').last()).toHaveText(question);
    expect(context.pages()).toHaveLength(pages);

    // Counted once: the same click again is a duplicate, another click of the same ad is refused, and so is its link.
    const again = async (id: string) => {
      const res = await page.request.post('/functions/v1/events', {
        headers: { 'x-api-key': (click.request().headers()['x-api-key'] ?? '') as string, 'content-type': 'application/json' },
        data: { events: [{ id, type: 'click', token }] },
      });
      return ((await res.json()) as { results: { status: string; reason?: string }[] }).results[0];
    };
    expect(await again(sent[0]!.id)).toMatchObject({ status: 'duplicate' });
    expect(await again(`${sent[0]!.id}-again`)).toMatchObject({ status: 'invalid', reason: 'already_counted' });
    await context.close();
  });

  test('a question about a symptom gets no ad', async ({ browser }) => {
    const context = await browser.newContext({ userAgent: BROWSER('symptom') });
    const page = await context.newPage();
    await newChat(page);
    await ask(page, 'My knee swells up after long runs, what should I do?');
    await expect(page.locator('.demo-assistant')).toHaveCount(1);
    await expect(page.getByText('I am a quiz helper, not a doctor')).toBeVisible();
    await expect(lastAd(page)).toHaveCount(0);
    await context.close();
  });
});
