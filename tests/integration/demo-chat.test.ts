import { describe, expect, it } from 'vitest';
import { demoChat } from '@/lib/demo/chat';
import { DEMO_SERVER_KEY_SECRET } from '@/lib/demo/page';
import { demoChatRoute } from '@/lib/routes/demo';
import { AD_DATA_PREFIX } from '@/packages/server/src/index';
import { eventsBody } from '@/lib/schemas/sdk';
import { suiteDatabase, testEngines } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { rawAsService } from '../helpers/roles';
import { sdk, servedSecondsAgo } from '../helpers/sdk';
import { bound } from '../helpers/services';

/**
 * The demo chat's server route (POST /api/demo/chat, lib/demo/chat.ts) on every engine: it streams its
 * canned answer and appends the ad it asked for with the demo app's server key (sealed in the
 * database, never in the clear) for the asking browser, whose impression then counts; a symptom
 * gets no ad; without the server key the answer still streams; a body that is not a conversation
 * is a 400.
 */

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 DemoChat';

for (const engine of testEngines()) {
  describe(`the demo chat's server on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });

    /** The service's own routes, answered in process, as the demo's server reaches them over HTTP. */
    const inProcess: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      const headers = new Headers(request.headers);
      headers.set('x-forwarded-for', '127.0.0.1');
      return handlersOf(new URL(request.url).pathname as '/functions/v1/ads', suite.services).POST(new Request(request, { headers }), {
        params: Promise.resolve({}),
      });
    };
    const chat = async (question: string, ip: string) => {
      const res = await demoChat(
        { messages: [{ role: 'user', content: question }] },
        { ip, userAgent: BROWSER },
        { database: () => suite.services.database(), fetch: inProcess },
      );
      return { res, text: await res.text() };
    };
    type StreamedAd = { decision_id: string; token: string; format: string; ad: { advertiser: string; headline: string; action?: string } };
    /** Every ad appended to an answer, in the order they came. */
    const adsIn = (text: string): StreamedAd[] =>
      text
        .split(AD_DATA_PREFIX)
        .slice(1)
        .map((part) => JSON.parse(Buffer.from(part.slice(0, part.indexOf(' -->')), 'base64url').toString('utf8')) as StreamedAd);
    const pageKey = async () =>
      (await rawAsService(suite.db, (q) => q.query<{ value: string }>("select value from public.service_secrets where name = 'demo_page_key'")))[0]!.value;
    const events = async (ip: string, sent: { id: string; type: string; token: string; viewability?: object }[]) => {
      const { body } = await sdk('/functions/v1/events', {
        body: { events: sent },
        headers: { 'x-api-key': await pageKey(), 'user-agent': BROWSER },
        ip,
        services: suite.services,
      });
      return eventsBody.parse(body).results.map((r) => r.status);
    };
    const VIEWED = { visible_share: 1, visible_seconds: 1.1 };

    it('streams the answer, then the inline ad and the sponsored follow-up its server asked for this browser, which the browser then counts', async () => {
      const { res, text } = await chat('What is a good way to keep my meeting notes in one place?', '203.0.113.90');
      expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(text.startsWith('Good notes make good quizzes')).toBe(true);
      const [ad, followUp, ...more] = adsIn(text);
      expect(more).toEqual([]);
      expect(ad).toMatchObject({ format: 'inline_text', ad: { advertiser: 'Lumen Notes' } });
      expect(followUp).toMatchObject({
        format: 'sponsored_follow_up',
        ad: { advertiser: 'Lumen Notes', headline: 'How can I turn my notes into a revision plan?', action: 'ask' },
      });
      await servedSecondsAgo(suite.db, 2);
      expect(
        await events('203.0.113.90', [
          { id: 'demo-chat-impression', type: 'impression', token: ad!.token, viewability: VIEWED },
          { id: 'demo-chat-follow-up', type: 'impression', token: followUp!.token, viewability: VIEWED },
        ]),
      ).toEqual(['recorded', 'recorded']);
    });

    it('counts a click on the follow-up once, as the SDK sends it when the question is asked, and only after the whole question was in view', async () => {
      const { text } = await chat('How should I organise my lecture notes?', '203.0.113.93');
      const followUp = adsIn(text).find((a) => a.format === 'sponsored_follow_up')!;
      expect(followUp.ad.action).toBe('ask');
      await servedSecondsAgo(suite.db, 2);
      // Part of the question in view is not the follow-up's rule: not an impression, and so no click.
      expect(
        await events('203.0.113.93', [
          { id: 'partly', type: 'impression', token: followUp.token, viewability: { visible_share: 0.9, visible_seconds: 3 } },
          { id: 'early-click', type: 'click', token: followUp.token },
        ]),
      ).toEqual(['invalid', 'invalid']);
      const click = { id: `${followUp.token.slice(0, 8)}.click`, type: 'click', token: followUp.token };
      expect(await events('203.0.113.93', [{ id: 'whole', type: 'impression', token: followUp.token, viewability: VIEWED }, click])).toEqual([
        'recorded',
        'recorded',
      ]);
      // Clicked again, sent again, or clicked through its link: still one click.
      expect(await events('203.0.113.93', [click, { ...click, id: 'second-click' }])).toEqual(['duplicate', 'invalid']);
      // A decision holds one click: the first, which the later ones are refused for.
      const [decision] = await rawAsService(suite.db, (q) =>
        q.query<{ click: string | null }>('select click_event_id as click from public.ad_decisions where id = $1', [followUp.decision_id]),
      );
      expect(decision!.click).toBe(click.id);
    });

    it('keeps the server key sealed: the database holds no server key in the clear', async () => {
      const [secret] = await rawAsService(suite.db, (q) =>
        q.query<{ value: string }>('select value from public.service_secrets where name = $1', [DEMO_SERVER_KEY_SECRET]),
      );
      expect(secret!.value).not.toMatch(/sk_(live|test)_/);
      const [key] = await rawAsService(suite.db, (q) =>
        q.query<{ kind: string; status: string }>("select kind, status from public.api_keys where name = 'Quizly demo server'"),
      );
      expect(key).toEqual({ kind: 'server', status: 'active' });
    });

    it('appends no ad to an answer about a symptom', async () => {
      const { text } = await chat('My knee swells up after long runs, what should I do?', '203.0.113.91');
      expect(text).toBe('I am a quiz helper, not a doctor: for a health worry, please ask a doctor or a pharmacist.');
    });

    it('answers through the route: a conversation streams, anything else is a 400 in the envelope', async () => {
      const route = bound(demoChatRoute, suite.services);
      const post = (body: string) =>
        route.POST(
          new Request('http://localhost:3000/api/demo/chat', {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.92' },
          }),
          {
            params: Promise.resolve({}),
          },
        );
      for (const bad of [
        '{',
        '{}',
        JSON.stringify({ messages: [] }),
        JSON.stringify({ messages: [{ role: 'assistant', content: 'Hi' }] }),
        JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(2001) }] }),
      ]) {
        const res = await post(bad);
        expect(res.status, bad.slice(0, 40)).toBe(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
      }
      const res = await post(JSON.stringify({ messages: [{ role: 'user', content: 'Photosynthesis, please' }] }));
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      // No service to reach from here (the route asks the service over HTTP): the answer streams without an ad.
      expect(await res.text()).toMatch(/^A warm-up for fractions|^Here is a five-question quiz|^Flashcards|^Three questions/);
    });

    it('streams the answer without an ad when the server key is gone (a database seeded before it)', async () => {
      await rawAsService(suite.db, (q) => q.query('delete from public.service_secrets where name = $1', [DEMO_SERVER_KEY_SECRET]));
      const { text } = await chat('What is a good way to keep my meeting notes in one place?', '203.0.113.93');
      expect(text.startsWith('Good notes make good quizzes')).toBe(true);
      expect(text).not.toContain(AD_DATA_PREFIX);
    });
  });
}
