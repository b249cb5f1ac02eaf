import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCreativeForm, updateCreativeForm } from '@/lib/ads/advertisers/forms';
import type { SignedInUser } from '@/lib/identity/auth/users';
import type { Queryable } from '@/lib/platform/db/engine';
import { lazyS3, LocalStorage, type ObjectStorage } from '@/lib/platform/storage';
import type { Services } from '@/lib/services';
import { newDraftAdvertiser } from '../helpers/advertisers';
import { makeServices } from '../helpers/services';
import { suiteDatabase, testEngines, UNLIMITED } from '../helpers/db';
import { gif, jpeg, mp4, paddedMp4, pdf, png, svg, webm } from '../helpers/media-files';
import { handlersOf } from '../helpers/routes';
import { rawAsService, rawAsUser } from '../helpers/roles';
import { startS3StandIn } from '../helpers/s3-stand-in';

/**
 * Creatives with images and videos, on every engine: an upload is checked by its bytes (type, size,
 * dimensions, duration) after the creative's words, stored under a random key in the object store
 * and served at /media/<key> with its content type, nosniff and immutable caching; the creative
 * points at it and goes to review. Every refusal (a wrong type, an oversized file, a video too
 * long, a landing page that is not https, a campaign that is not the advertiser's, a database
 * write refused) says why and leaves NOTHING stored: the store's objects are counted.
 */

const fixture = (name: string) => new Uint8Array(readFileSync(path.join(__dirname, '../../lib/ads/advertisers/fixtures', name)));

async function one<T>(q: Queryable, text: string, params: unknown[] = []): Promise<T> {
  const [row] = await q.query<{ v: T }>(text, params);
  return row!.v;
}

const file = (bytes: Uint8Array, name: string, type: string) => new File([bytes as BlobPart], name, { type });
/** A creative form as the console's sends it: its words, its hidden fields, and the files chosen (an empty file for a field left empty). */
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
  if (files.video || fields.format === 'floating_video') form.set('video', files.video ?? new File([], ''));
  return form;
}

for (const engine of testEngines()) {
  describe(`creative media on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    let dir: string;
    let storage: LocalStorage;
    let services: Services;
    let media: ReturnType<typeof handlersOf>;
    /** How many objects the store holds. */
    const stored = async () => (await readdir(path.join(dir, 'objects')).catch(() => [])).length;

    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'monetize-media-'));
      storage = new LocalStorage(dir);
      services = makeServices({ database: suite.db, rateLimiter: UNLIMITED(), storage });
      media = handlersOf('/media/[[...key]]', services);
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    /** A new advertiser (profile through the console's form) with one draft campaign buying every format. */
    const advertiser = () =>
      newDraftAdvertiser(suite.db, services, { label: 'Media', formats: ['sponsored_card', 'floating_video', 'tooltip', 'inline_text'] });
    const creative = (id: string) =>
      rawAsService(suite.db, (q) =>
        q.query<{
          status: string;
          image_url: string | null;
          video_url: string | null;
          width: number | null;
          height: number | null;
          duration_ms: number | null;
        }>('select status, image_url, video_url, width, height, duration_ms from public.creatives where id = $1', [id]),
      ).then((rows) => rows[0]!);
    const creativesOf = (campaign: string) =>
      rawAsService(suite.db, (q) => one<number>(q, 'select count(*)::int as v from public.creatives where campaign_id = $1', [campaign]));
    const keyOf = (url: string | null) => url!.replace(/^\/media\//, '');
    const get = (key: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
      media[method](new Request(`http://localhost:3000/media/${key}`, { method, headers }), { params: Promise.resolve({ key: [key] }) });

    describe('a valid upload', () => {
      it("stores a card's image, points the creative at it and serves it with its type and caching", async () => {
        const { user, campaign } = await advertiser();
        const before = await stored();
        const bytes = png(192, 108);
        const state = await addCreativeForm(
          creativeForm({ campaign_id: campaign, format: 'sponsored_card' }, { image: file(bytes, 'card.png', 'image/png') }),
          user,
          services,
        );
        expect(state).toMatchObject({ notice: expect.stringMatching(/reviewed before it is shown/), id: expect.any(String) });
        expect(await stored()).toBe(before + 1);
        const row = await creative(state.id!);
        expect(row).toMatchObject({ status: 'in_review', video_url: null, width: 192, height: 108, duration_ms: null });
        expect(row.image_url).toMatch(/^\/media\/[A-Za-z0-9_-]{22}\.png$/);

        const res = await get(keyOf(row.image_url));
        expect(res.status).toBe(200);
        expect(Object.fromEntries(res.headers)).toMatchObject({
          'content-type': 'image/png',
          'content-length': String(bytes.length),
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': 'cross-origin',
          'access-control-allow-origin': '*',
          'accept-ranges': 'bytes',
          etag: `"${keyOf(row.image_url)}"`,
        });
        expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);

        const head = await get(keyOf(row.image_url), {}, 'HEAD');
        expect(head.status).toBe(200);
        expect(head.headers.get('content-length')).toBe(String(bytes.length));
        expect(await head.text()).toBe('');
        const again = await get(keyOf(row.image_url), { 'if-none-match': `"${keyOf(row.image_url)}"` });
        expect(again.status).toBe(304);
      });

      it("stores a floating video and its poster, keeps the video's size and duration, and serves it in ranges", async () => {
        const { user, campaign } = await advertiser();
        const before = await stored();
        const video = fixture('h264-320x180-1s.mp4');
        const state = await addCreativeForm(
          creativeForm(
            { campaign_id: campaign, format: 'floating_video' },
            { video: file(video, 'clip.mp4', 'video/mp4'), image: file(jpeg(640, 360), 'poster.jpg', 'image/jpeg') },
          ),
          user,
          services,
        );
        expect(state.error).toBeUndefined();
        expect(await stored()).toBe(before + 2);
        const row = await creative(state.id!);
        expect(row).toMatchObject({ status: 'in_review', width: 320, height: 180, duration_ms: 1000 });
        expect(row.video_url).toMatch(/^\/media\/[A-Za-z0-9_-]{22}\.mp4$/);
        expect(row.image_url).toMatch(/\.jpg$/);

        const part = await get(keyOf(row.video_url), { range: 'bytes=0-99' });
        expect(part.status).toBe(206);
        expect(part.headers.get('content-type')).toBe('video/mp4');
        expect(part.headers.get('content-range')).toBe(`bytes 0-99/${video.length}`);
        expect(part.headers.get('content-length')).toBe('100');
        expect(new Uint8Array(await part.arrayBuffer())).toEqual(video.subarray(0, 100));
        const rest = await get(keyOf(row.video_url), { range: 'bytes=1000-' });
        expect(rest.status).toBe(206);
        expect(new Uint8Array(await rest.arrayBuffer())).toEqual(video.subarray(1000));
        // A range that starts at or past the end: 416, naming the size, in the envelope (never a 500, never the file).
        for (const range of [`bytes=${video.length}-`, `bytes=${video.length + 5}-${video.length + 10}`, 'bytes=999999999999999-']) {
          const past = await get(keyOf(row.video_url), { range });
          expect(past.status).toBe(416);
          expect(past.headers.get('content-range')).toBe(`bytes */${video.length}`);
          expect(past.headers.get('cache-control')).not.toMatch(/max-age/);
          expect(await past.json()).toMatchObject({ error: { status: 416, code: 'range_not_satisfiable' } });
        }
        // Any other Range (several, a suffix, backwards) is ignored: the whole file.
        for (const range of ['bytes=0-1,5-9', 'bytes=-100', 'bytes=9-3']) {
          const whole = await get(keyOf(row.video_url), { range });
          expect(whole.status).toBe(200);
          expect(new Uint8Array(await whole.arrayBuffer())).toEqual(video);
        }
        expect((await get(keyOf(row.image_url))).headers.get('content-type')).toBe('image/jpeg');
      });

      it('takes a WebM without a poster, and a tooltip with or without an image', async () => {
        const { user, campaign } = await advertiser();
        const before = await stored();
        const webmState = await addCreativeForm(
          creativeForm({ campaign_id: campaign, format: 'floating_video' }, { video: file(fixture('vp9-640x360-2s.webm'), 'loop.webm', 'video/webm') }),
          user,
          services,
        );
        expect(webmState.error).toBeUndefined();
        expect(await creative(webmState.id!)).toMatchObject({ image_url: null, width: 640, height: 360, duration_ms: 2000 });
        expect((await get(keyOf((await creative(webmState.id!)).video_url))).headers.get('content-type')).toBe('video/webm');
        const plain = await addCreativeForm(creativeForm({ campaign_id: campaign, format: 'tooltip', body: 'Short.' }), user, services);
        expect(await creative(plain.id!)).toMatchObject({ image_url: null, width: null });
        const pictured = await addCreativeForm(
          creativeForm({ campaign_id: campaign, format: 'tooltip', body: 'Short.' }, { image: file(gif(120, 120), 'icon.gif', 'image/gif') }),
          user,
          services,
        );
        expect(await creative(pictured.id!)).toMatchObject({ width: 120, height: 120 });
        expect(await stored()).toBe(before + 2);
      });
    });

    describe('a refused upload stores nothing', () => {
      let owner: { user: SignedInUser; campaign: string };
      beforeAll(async () => {
        owner = await advertiser();
      });
      const card = (image: File, fields: Record<string, string> = {}) =>
        creativeForm({ campaign_id: owner.campaign, format: 'sponsored_card', ...fields }, { image });
      const video = (clip: File) => creativeForm({ campaign_id: owner.campaign, format: 'floating_video' }, { video: clip });

      it.each([
        ['a PDF named .png', () => card(file(pdf(), 'card.png', 'image/png')), /The image is a PDF document, not a PNG, JPEG, WebP or GIF file/],
        [
          'an SVG renamed .png',
          () => card(file(svg(), 'card.png', 'image/png')),
          /The image is an SVG image, which is not accepted: an SVG file can carry script/,
        ],
        [
          'an image over 2 MB',
          () => card(file(png(192, 108, { padding: 2 * 1024 * 1024 + 10 }), 'big.png', 'image/png')),
          /The image is 2\.0 MB: an image takes at most 2 MB/,
        ],
        ['an image too narrow for the card', () => card(file(png(64, 64), 'small.png', 'image/png')), /64 px wide: the card’s image needs at least 96 px/],
        [
          'a video over 10 MB',
          () => video(file(paddedMp4(10 * 1024 * 1024 + 100), 'big.mp4', 'video/mp4')),
          /The video is 10\.0 MB: a video takes at most 10 MB/,
        ],
        [
          'a video longer than 30 s',
          () => video(file(mp4({ durationMs: 31_000 }), 'long.mp4', 'video/mp4')),
          /The video lasts 31\.0 s: a video lasts at most 30 s/,
        ],
        ['a WebM without a duration', () => video(file(webm({ durationMs: null }), 'rec.webm', 'video/webm')), /does not say how long it lasts/],
        ['an image as the video', () => video(file(png(640, 360), 'clip.mp4', 'video/mp4')), /The video is an image \(PNG\)/],
        [
          'a landing page that is not https',
          () => card(file(png(192, 108), 'card.png', 'image/png'), { landing_url: 'http://advertiser.example/offer' }),
          /The landing page must be an https:\/\/ address/,
        ],
        ['a card without its image', () => creativeForm({ campaign_id: owner.campaign, format: 'sponsored_card' }), /This format needs an image/],
        ['a floating video without its video', () => creativeForm({ campaign_id: owner.campaign, format: 'floating_video' }), /This format needs a video/],
        [
          'an image on a text-only format',
          () => creativeForm({ campaign_id: owner.campaign, format: 'inline_text', body: '' }, { image: file(png(192, 108), 'x.png', 'image/png') }),
          /This format shows no image/,
        ],
        [
          'a video on a card',
          () =>
            creativeForm(
              { campaign_id: owner.campaign, format: 'sponsored_card' },
              { image: file(png(192, 108), 'x.png', 'image/png'), video: file(mp4(), 'x.mp4', 'video/mp4') },
            ),
          /This format shows no video/,
        ],
      ])('%s', async (_, form, message) => {
        const before = await stored();
        const creativesBefore = await creativesOf(owner.campaign);
        const state = await addCreativeForm(form(), owner.user, services);
        expect(state.error).toMatch(message);
        // What was typed comes back, for the form to show again.
        expect(state.values).toMatchObject({ headline: 'Ship faster' });
        expect(await stored()).toBe(before);
        expect(await creativesOf(owner.campaign)).toBe(creativesBefore);
      });

      it("refuses media for another advertiser's campaign, and for another's creative", async () => {
        const stranger = await advertiser();
        const mine = await addCreativeForm(card(file(png(192, 108), 'card.png', 'image/png')), owner.user, services);
        expect(mine.error).toBeUndefined();
        const before = await stored();
        const add = await addCreativeForm(card(file(png(192, 108), 'card.png', 'image/png')), stranger.user, services);
        expect(add.error).toMatch(/That campaign does not exist/);
        const edit = creativeForm({ id: mine.id!, format: 'sponsored_card' }, { image: file(png(300, 200), 'new.png', 'image/png') });
        expect((await updateCreativeForm(edit, stranger.user, services)).error).toMatch(/That creative does not exist/);
        expect(await stored()).toBe(before);
        expect(await creative(mine.id!)).toMatchObject({ width: 192, height: 108 });
      });

      it('deletes what it stored when the database refuses the write', async () => {
        const before = await stored();
        // The campaign completes between the check and the write (a store that completes it as the file lands).
        const racing: ObjectStorage = {
          driver: 'local',
          put: async (key, bytes, type) => {
            await storage.put(key, bytes, type);
            await rawAsService(suite.db, (q) => q.query("update public.campaigns set status = 'completed' where id = $1", [campaign]));
          },
          putStream: (key, chunks, type) => storage.putStream(key, chunks, type),
          get: (key, range) => storage.get(key, range),
          delete: (key) => storage.delete(key),
          list: () => storage.list(),
        };
        const { user, campaign } = await advertiser();
        const state = await addCreativeForm(
          creativeForm({ campaign_id: campaign, format: 'sponsored_card' }, { image: file(png(192, 108), 'card.png', 'image/png') }),
          user,
          makeServices({ database: suite.db, storage: racing }),
        );
        expect(state.error).toMatch(/That campaign does not exist, is completed/);
        expect(await stored()).toBe(before);
      });

      it('deletes what it stored when a later file cannot be stored', async () => {
        const { user, campaign } = await advertiser();
        const before = await stored();
        let puts = 0;
        const failing: ObjectStorage = {
          driver: 'local',
          put: async (key, bytes, type) => {
            if (++puts === 2) throw new Error('the store is down');
            await storage.put(key, bytes, type);
          },
          putStream: (key, chunks, type) => storage.putStream(key, chunks, type),
          get: (key, range) => storage.get(key, range),
          delete: (key) => storage.delete(key),
          list: () => storage.list(),
        };
        const state = await addCreativeForm(
          creativeForm(
            { campaign_id: campaign, format: 'floating_video' },
            { image: file(png(640, 360), 'poster.png', 'image/png'), video: file(mp4(), 'clip.mp4', 'video/mp4') },
          ),
          user,
          makeServices({ database: suite.db, storage: failing }),
        );
        expect(state.error).toMatch(/could not be stored just now/);
        expect(await stored()).toBe(before);
        expect(await creativesOf(campaign)).toBe(0);
      });
    });

    describe('an edit', () => {
      it('with new media goes back to review, points at the new file and keeps the old one for ads already out', async () => {
        const { user, campaign } = await advertiser();
        const added = await addCreativeForm(
          creativeForm({ campaign_id: campaign, format: 'sponsored_card' }, { image: file(png(192, 108), 'card.png', 'image/png') }),
          user,
          services,
        );
        const first = await creative(added.id!);
        // The operator approves it.
        const staff = await rawAsService(suite.db, (q) => one<string>(q, "select id as v from public.users where email = 'operator@example.com'"));
        await rawAsUser(suite.db, { sub: staff, aal: 'aal2' }, (q) => q.query('select public.staff_creative_review($1, true, null)', [added.id]));
        expect((await creative(added.id!)).status).toBe('active');

        const before = await stored();
        const edit = creativeForm({ id: added.id!, format: 'sponsored_card' }, { image: file(jpeg(300, 200), 'new.jpg', 'image/jpeg') });
        expect(await updateCreativeForm(edit, user, services)).toMatchObject({ notice: expect.stringMatching(/review again/) });
        const second = await creative(added.id!);
        expect(second).toMatchObject({ status: 'in_review', width: 300, height: 200 });
        expect(second.image_url).not.toBe(first.image_url);
        expect(await stored()).toBe(before + 1);
        expect((await get(keyOf(first.image_url))).status).toBe(200);

        // Words only: the media stay.
        expect(await updateCreativeForm(creativeForm({ id: added.id!, format: 'sponsored_card', headline: 'New words' }), user, services)).toMatchObject({
          notice: expect.any(String),
        });
        expect(await creative(added.id!)).toMatchObject({ image_url: second.image_url, width: 300, height: 200 });
        // A card's image cannot be removed; a refused edit stores nothing.
        const remove = creativeForm({ id: added.id!, format: 'sponsored_card' });
        remove.set('remove_image', 'on');
        expect((await updateCreativeForm(remove, user, services)).error).toMatch(/needs an image/);
        const bad = creativeForm({ id: added.id!, format: 'sponsored_card' }, { image: file(svg(), 'new.png', 'image/png') });
        expect((await updateCreativeForm(bad, user, services)).error).toMatch(/SVG/);
        expect(await stored()).toBe(before + 1);
      });

      it("replaces a video's poster keeping the video's size, and removes a tooltip's optional image", async () => {
        const { user, campaign } = await advertiser();
        const added = await addCreativeForm(
          creativeForm(
            { campaign_id: campaign, format: 'floating_video' },
            { video: file(mp4({ width: 1280, height: 720, durationMs: 6000 }), 'v.mp4', 'video/mp4') },
          ),
          user,
          services,
        );
        const poster = creativeForm({ id: added.id!, format: 'floating_video' }, { image: file(png(1280, 720), 'poster.png', 'image/png') });
        expect((await updateCreativeForm(poster, user, services)).error).toBeUndefined();
        expect(await creative(added.id!)).toMatchObject({ image_url: expect.stringMatching(/\.png$/), width: 1280, height: 720, duration_ms: 6000 });

        const tip = await addCreativeForm(
          creativeForm({ campaign_id: campaign, format: 'tooltip', body: 'Hi.' }, { image: file(png(128, 128), 'i.png', 'image/png') }),
          user,
          services,
        );
        const remove = creativeForm({ id: tip.id!, format: 'tooltip', body: 'Hi.' });
        remove.set('remove_image', 'on');
        expect((await updateCreativeForm(remove, user, services)).error).toBeUndefined();
        expect(await creative(tip.id!)).toMatchObject({ image_url: null, width: null, height: null });
      });
    });

    describe('with the S3 store (a local stand-in of S3)', () => {
      it('stores the upload in the bucket and serves it from there, whole and in ranges', async () => {
        const standIn = await startS3StandIn();
        try {
          const s3 = lazyS3({
            bucket: standIn.bucket,
            region: standIn.region,
            endpoint: standIn.endpoint,
            forcePathStyle: true,
            credentials: standIn.credentials,
          });
          const viaS3 = makeServices({ database: suite.db, rateLimiter: UNLIMITED(), storage: s3 });
          const { user, campaign } = await advertiser();
          const video = fixture('vp9-640x360-2s.webm');
          const state = await addCreativeForm(
            creativeForm({ campaign_id: campaign, format: 'floating_video' }, { video: file(video, 'v.webm', 'video/webm') }),
            user,
            viaS3,
          );
          expect(state.error).toBeUndefined();
          const key = keyOf((await creative(state.id!)).video_url);
          expect(standIn.objects.get(key)).toMatchObject({ contentType: 'video/webm' });
          const route = handlersOf('/media/[[...key]]', viaS3);
          const whole = await route.GET(new Request(`http://localhost:3000/media/${key}`), { params: Promise.resolve({ key: [key] }) });
          expect(whole.status).toBe(200);
          expect(whole.headers.get('content-length')).toBe(String(video.length));
          expect(new Uint8Array(await whole.arrayBuffer())).toEqual(video);
          const part = await route.GET(new Request(`http://localhost:3000/media/${key}`, { headers: { range: 'bytes=10-19' } }), {
            params: Promise.resolve({ key: [key] }),
          });
          expect(part.status).toBe(206);
          expect(part.headers.get('content-range')).toBe(`bytes 10-19/${video.length}`);
          expect(new Uint8Array(await part.arrayBuffer())).toEqual(video.subarray(10, 20));
          const past = await route.GET(new Request(`http://localhost:3000/media/${key}`, { headers: { range: `bytes=${video.length}-` } }), {
            params: Promise.resolve({ key: [key] }),
          });
          expect(past.status).toBe(416);
          expect(past.headers.get('content-range')).toBe(`bytes */${video.length}`);
          const missing = await route.GET(new Request('http://localhost:3000/media/CCCCCCCCCCCCCCCCCCCCCC.webm'), {
            params: Promise.resolve({ key: ['CCCCCCCCCCCCCCCCCCCCCC.webm'] }),
          });
          expect(missing.status).toBe(404);
          // A refused upload sends nothing to the bucket.
          const puts = standIn.requests.filter((r) => r.method === 'PUT').length;
          const refused = await addCreativeForm(
            creativeForm({ campaign_id: campaign, format: 'floating_video' }, { video: file(mp4({ durationMs: 45_000 }), 'v.mp4', 'video/mp4') }),
            user,
            viaS3,
          );
          expect(refused.error).toMatch(/at most 30 s/);
          expect(standIn.requests.filter((r) => r.method === 'PUT').length).toBe(puts);
          expect(standIn.objects.size).toBe(1);
        } finally {
          await standIn.close();
        }
      });
    });

    describe('the media route', () => {
      it('answers 404 in the envelope for a key never stored, a key it could not have made, and any other path', async () => {
        for (const params of [
          ['AAAAAAAAAAAAAAAAAAAAAA.png'],
          ['..%2Fsecret.png'],
          ['x.png'],
          ['AAAAAAAAAAAAAAAAAAAAAA.svg'],
          ['AAAAAAAAAAAAAAAAAAAAAA.html'],
          ['a', 'b'],
          [],
        ]) {
          const res = await media.GET(new Request(`http://localhost:3000/media/${params.join('/')}`), { params: Promise.resolve({ key: params }) });
          expect(res.status, params.join('/')).toBe(404);
          expect(res.headers.get('content-type')).toBe('application/json');
          expect(res.headers.get('cache-control')).toBe('no-store');
          expect(await res.json()).toMatchObject({ error: { code: 'not_found' } });
        }
      });

      it('never serves a stored object under a type its key does not stand for', async () => {
        await storage.put('BBBBBBBBBBBBBBBBBBBBBB.png', new TextEncoder().encode('<script>alert(1)</script>'), 'text/html');
        expect((await get('BBBBBBBBBBBBBBBBBBBBBB.png')).status).toBe(404);
        await storage.delete('BBBBBBBBBBBBBBBBBBBBBB.png');
      });

      it('allows only GET and HEAD', async () => {
        const res = await media.POST(new Request('http://localhost:3000/media/AAAAAAAAAAAAAAAAAAAAAA.png', { method: 'POST' }), {
          params: Promise.resolve({ key: ['AAAAAAAAAAAAAAAAAAAAAA.png'] }),
        });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      });
    });
  });
}
