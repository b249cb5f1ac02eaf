import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextConfig } from '@/next.config';
import { CREATIVE_OUTCOMES } from '@/lib/ads/advertisers/creative-upload';
import { CREATIVE_UPLOAD_MAX_BYTES, MEDIA_RULES } from '@/lib/ads/advertisers/schemas';
import { sessionCookie } from '@/lib/identity/auth/signin';
import type { SignedInUser } from '@/lib/identity/auth/users';
import { ACTIONS_PER_ACCOUNT_AND_ADDRESS, createActionLimiters } from '@/lib/platform/kit/action-limit';
import type { Queryable } from '@/lib/platform/db/engine';
import { LocalStorage } from '@/lib/platform/storage';
import type { Services } from '@/lib/services';
import { newDraftAdvertiser } from '../helpers/advertisers';
import { makeServices } from '../helpers/services';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { paddedMp4, png } from '../helpers/media-files';
import { handlersOf } from '../helpers/routes';
import { rawAsService } from '../helpers/roles';

/**
 * The creative form's route, POST /dashboard/ads/creatives/upload (lib/ads/advertisers/creative-upload.ts;
 * issue 39: every server action accepted 13 MB bodies because this form was one). Server actions
 * now take at most 1 MB (next.config.ts); this route alone takes the largest image and video
 * together, refuses more (413) by the declared length and by what arrives, and gives itself what
 * Next gives an action: our own page's Origin, the console's session, the consoles' budget of
 * forms. Then it runs the creative form as the actions did. On every engine.
 */

const MB = 1024 * 1024;
const URL = 'http://localhost:3000/dashboard/ads/creatives/upload';
const OURS = { host: 'localhost:3000', origin: 'http://localhost:3000', 'x-forwarded-for': '203.0.113.40' };

async function one<T>(q: Queryable, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(text, params);
  return row!.v;
}

const file = (bytes: Uint8Array, name: string, type: string) => new File([bytes as BlobPart], name, { type });

/** The creative form as the console's sends it: its words, hidden fields and files (an empty file for a field left empty). */
function creativeForm(fields: Record<string, string>, files: { image?: File; video?: File } = {}): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries({
    headline: 'Ship faster',
    body: 'Deploys in seconds.',
    cta: 'Try it',
    landing_url: 'https://advertiser.example/offer',
    ...fields,
  }))
    form.set(k, v);
  form.set('image', files.image ?? new File([], '', { type: 'application/octet-stream' }));
  if (fields.format === 'floating_video') form.set('video', files.video ?? new File([], ''));
  return form;
}

for (const engine of testEngines()) {
  describe(`the creative upload route on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let dir: string;
    let services: Services;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'monetize-upload-'));
      services = makeServices({ database: suite.db, rateLimiter: UNLIMITED(), storage: new LocalStorage(dir), actionLimits: createActionLimiters() });
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    /** A new advertiser with a draft campaign buying floating videos and inline text, and their session cookie. */
    const advertiser = async (): Promise<{ user: SignedInUser; campaign: string; cookie: string }> => {
      const { user, campaign } = await newDraftAdvertiser(suite.db, services, { label: 'Upload', formats: ['floating_video', 'inline_text'] });
      const session = await sessionCookie(user, services);
      return { user, campaign, cookie: `${session.name}=${session.value}` };
    };

    const upload = () => handlersOf('/dashboard/ads/creatives/upload', services).POST;
    /** The form posted as the console's fetch posts it (our origin, JSON asked for), with `headers` over those. */
    const post = (body: BodyInit, headers: Record<string, string>) =>
      upload()(new Request(URL, { method: 'POST', body, headers: { ...OURS, accept: 'application/json', ...headers } }));
    const creativesOf = (campaign: string) =>
      rawAsService(suite.db, (q) => one<number>(q, 'select count(*)::int as v from public.creatives where campaign_id = $1', [campaign]));

    it('takes a 10 MB video and a 2 MB image in one form, and runs the creative form as the action did', async () => {
      const { campaign, cookie } = await advertiser();
      const video = file(paddedMp4(MEDIA_RULES.video.maxBytes), 'clip.mp4', 'video/mp4');
      // A padding chunk's length, type and checksum take 12 bytes besides it.
      const image = file(png(640, 360, { padding: MEDIA_RULES.image.maxBytes - png(640, 360).byteLength - 12 }), 'poster.png', 'image/png');
      expect([video.size, image.size]).toEqual([10 * MB, 2 * MB]);
      const res = await post(creativeForm({ campaign_id: campaign, format: 'floating_video' }, { video, image }), { cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const state = (await res.json()) as { notice: string; id: string };
      expect(state).toEqual({ notice: CREATIVE_OUTCOMES.added, id: expect.any(String) });
      const row = await rawAsService(suite.db, (q) =>
        q.query<{ video_url: string; image_url: string; status: string }>('select video_url, image_url, status from public.creatives where id = $1', [
          state.id,
        ]),
      );
      expect(row[0]).toMatchObject({ status: 'in_review', video_url: expect.stringMatching(/\.mp4$/), image_url: expect.stringMatching(/\.png$/) });

      // An edit (the form names the creative) runs the edit, with its message.
      const edited = await post(creativeForm({ campaign_id: campaign, format: 'floating_video', id: state.id, headline: 'Ship even faster' }), { cookie });
      expect(await edited.json()).toEqual({ notice: CREATIVE_OUTCOMES.saved });
      // A refusal of the form is the form's state, as the action answered it: the message and what was typed.
      const refused = await post(creativeForm({ campaign_id: campaign, format: 'floating_video' }), { cookie });
      expect(refused.status).toBe(200);
      expect(await refused.json()).toMatchObject({
        error: expect.stringMatching(/needs a video/),
        values: expect.objectContaining({ headline: 'Ship faster' }),
      });
    });

    it('refuses 13 MB with 413, by the declared length before anything else and by what arrives, and stores nothing', async () => {
      const { campaign, cookie } = await advertiser();
      const before = await creativesOf(campaign);
      // 13 MB of form: a video over its limit and an image, more than the route reads.
      const form = creativeForm(
        { campaign_id: campaign, format: 'floating_video' },
        { video: file(paddedMp4(11 * MB), 'clip.mp4', 'video/mp4'), image: file(png(640, 360, { padding: 2 * MB - 400 }), 'poster.png', 'image/png') },
      );
      const body = new Uint8Array(await new Response(form).arrayBuffer());
      const type = new Response(form).headers.get('content-type')!;
      expect(body.byteLength).toBeGreaterThan(13 * MB - 1);
      // Without a Content-Length (streamed): refused once more than 12.5 MB has arrived.
      const streamed = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < body.byteLength; at += MB) controller.enqueue(body.slice(at, at + MB));
          controller.close();
        },
      });
      const res = await upload()(
        new Request(URL, {
          method: 'POST',
          body: streamed,
          duplex: 'half',
          headers: { ...OURS, accept: 'application/json', cookie, 'content-type': type },
        } as RequestInit),
      );
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: { code: 'payload_too_large', message: expect.stringMatching(/larger than 12\.5 MB/) } });
      // A Content-Length over the limit is refused first, session or not.
      const declared = await post('x', { 'content-length': String(13 * MB), 'content-type': type });
      expect(declared.status).toBe(413);
      expect(await creativesOf(campaign)).toBe(before);
      expect(CREATIVE_UPLOAD_MAX_BYTES).toBe(12.5 * MB);
    });

    it('refuses a post from another site, or without Origin, and one without a session', async () => {
      const { campaign, cookie } = await advertiser();
      const form = () => creativeForm({ campaign_id: campaign, format: 'inline_text' });
      for (const origin of ['https://evil.example', 'null', 'http://localhost:3001']) {
        const res = await post(form(), { cookie, origin });
        expect(res.status, origin).toBe(403);
        expect(await res.json()).toMatchObject({ error: { code: 'forbidden', message: expect.stringMatching(/another site/) } });
      }
      const bare = await upload()(
        new Request(URL, {
          method: 'POST',
          body: form(),
          headers: { host: OURS.host, 'x-forwarded-for': OURS['x-forwarded-for'], cookie, accept: 'application/json' },
        }),
      );
      expect(bare.status).toBe(403);
      // Signed out: the console's fetch reads why; a browser without JavaScript goes to sign in.
      const signedOut = await post(form(), {});
      expect(signedOut.status).toBe(403);
      expect(await signedOut.json()).toMatchObject({ error: { message: expect.stringMatching(/signed out/) } });
      const browser = await post(form(), { accept: 'text/html' });
      expect(browser.status).toBe(303);
      expect(browser.headers.get('location')).toBe('/signin?callbackUrl=%2Fdashboard%2Fads');
      const fromPage = await post(form(), { accept: 'text/html', referer: `http://localhost:3000/dashboard/ads/campaigns/${campaign}` });
      expect(fromPage.headers.get('location')).toBe(`/signin?${new URLSearchParams({ callbackUrl: `/dashboard/ads/campaigns/${campaign}` })}`);
      // A page of another site is never where the browser is sent back to.
      const elsewhere = await post(form(), { accept: 'text/html', referer: `https://evil.example/dashboard/ads/campaigns/${campaign}` });
      expect(elsewhere.headers.get('location')).toBe('/signin?callbackUrl=%2Fdashboard%2Fads');
      expect(await creativesOf(campaign)).toBe(0);
    });

    it("sends a browser without JavaScript back to the campaign's page, which says what became of the form", async () => {
      const { campaign, cookie } = await advertiser();
      const added = await post(creativeForm({ campaign_id: campaign, format: 'inline_text', body: '' }), { cookie, accept: 'text/html,*/*' });
      expect(added.status).toBe(303);
      expect(added.headers.get('location')).toBe(`/dashboard/ads/campaigns/${campaign}?creative=added#creatives`);
      const refused = await post(creativeForm({ campaign_id: campaign, format: 'inline_text', headline: '' }), { cookie, accept: 'text/html,*/*' });
      expect(refused.headers.get('location')).toBe(`/dashboard/ads/campaigns/${campaign}?creative=refused#creatives`);
      expect(await creativesOf(campaign)).toBe(1);
    });

    it("takes a unit of the consoles' budget of forms for each post, and past it refuses as an action does, reading nothing", async () => {
      const { campaign, cookie } = await advertiser();
      // Forms the creative form refuses (no headline) still take their unit, as an action's do.
      const form = () => creativeForm({ campaign_id: campaign, format: 'inline_text', headline: '' });
      for (let i = 0; i < ACTIONS_PER_ACCOUNT_AND_ADDRESS; i++) {
        const state = (await (await post(form(), { cookie })).json()) as { error: string };
        expect(state.error).toEqual(expect.any(String));
        expect(state.error).not.toMatch(/too many forms/);
      }
      const valid = () => creativeForm({ campaign_id: campaign, format: 'inline_text', body: '' });
      const res = await post(valid(), { cookie });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        error: expect.stringMatching(/^You sent too many forms in a short time, so this one was not saved: wait \d+ seconds? and send it again\.$/),
      });
      // Without JavaScript, back to the page the form was sent from, which says so.
      const page = `http://localhost:3000/dashboard/ads/campaigns/${campaign}`;
      const browser = await post(form(), { cookie, accept: 'text/html', referer: page });
      expect(browser.headers.get('location')).toBe(`/dashboard/ads/campaigns/${campaign}?creative=limited#creatives`);
      expect(await creativesOf(campaign)).toBe(0);
      // Another address has its own budget.
      expect(await (await post(valid(), { cookie, 'x-forwarded-for': '198.51.100.40' })).json()).toEqual({
        notice: CREATIVE_OUTCOMES.added,
        id: expect.any(String),
      });
    });

    it('refuses a body that is not a multipart form', async () => {
      const { cookie } = await advertiser();
      const res = await post(JSON.stringify({ headline: 'x' }), { cookie, 'content-type': 'application/json' });
      expect(res.status).toBe(415);
    });

    it('takes a sponsored follow-up as a question of at most 80 characters whose click asks it or visits, and nothing else', async () => {
      const { campaign, cookie } = await newDraftAdvertiser(suite.db, services, { label: 'Follow-up', formats: ['sponsored_follow_up'] }).then(
        async ({ campaign, user }) => {
          const session = await sessionCookie(user, services);
          return { campaign, cookie: `${session.name}=${session.value}` };
        },
      );
      const followUp = (fields: Record<string, string>) =>
        post(creativeForm({ campaign_id: campaign, format: 'sponsored_follow_up', body: '', cta: 'ask', ...fields }), { cookie }).then(
          (r) => r.json() as Promise<{ error?: string; notice?: string; id?: string }>,
        );
      const question = 'How can I turn my notes into a revision plan for the exams in June this year?';
      expect(question.length).toBeLessThanOrEqual(80);
      expect((await followUp({ headline: `${question} Now!` })).error).toMatch(/at most 80 characters/);
      expect((await followUp({ headline: question, body: 'More words' })).error).toMatch(/no text besides its headline/);
      for (const cta of ['Learn more', 'ASK']) expect((await followUp({ headline: question, cta })).error).toMatch(/what a click on the question does/);
      expect((await followUp({ headline: question, cta: '' })).error).toMatch(/call to action/);
      expect(await creativesOf(campaign)).toBe(0);

      const asked = await followUp({ headline: question });
      const visited = await followUp({ headline: question, cta: 'visit' });
      expect([asked.notice, visited.notice]).toEqual([CREATIVE_OUTCOMES.added, CREATIVE_OUTCOMES.added]);
      const rows = await rawAsService(suite.db, (q) =>
        q.query<{ cta: string; image_url: string | null }>('select cta, image_url from public.creatives where campaign_id = $1 order by cta', [campaign]),
      );
      expect(rows).toEqual([
        { cta: 'ask', image_url: null },
        { cta: 'visit', image_url: null },
      ]);
      // The database holds the same rule, whoever writes the row.
      await expect(
        rawAsService(suite.db, (q) =>
          q.query(
            "insert into public.creatives (campaign_id, format, headline, cta, landing_url) values ($1, 'sponsored_follow_up', 'Why?', 'Learn more', 'https://a.example/')",
            [campaign],
          ),
        ),
      ).rejects.toThrow(/creatives_follow_up_action/);
    });
  });
}

describe('the server actions’ body limit', () => {
  it('is 1 MB: only the creative upload route takes more', () => {
    expect(nextConfig.experimental?.serverActions?.bodySizeLimit).toBe('1mb');
    // The proxy, which would hold a body up to this size, does not run for the upload route (tests/integration/security-headers.test.ts).
    expect(nextConfig.experimental?.proxyClientMaxBodySize).toBeUndefined();
  });
});
