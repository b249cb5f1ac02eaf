import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { appended, gif, jpeg, jpegWithMarkersInside, mp4, paddedMp4, pdf, png, svg, webm, webp } from '@/tests/helpers/media-files';
import { checkImage, checkVideo, sniff } from './media';

/**
 * The media checks (./media.ts): each file judged by its bytes, with a message for every refusal.
 * Files are built byte by byte (tests/helpers/media-files.ts), plus real encoder output
 * (./fixtures/, and the demo advertisers' WebM loops in public/ads/).
 */

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./fixtures/${name}`, import.meta.url)));
const demoWebm = () => new Uint8Array(readFileSync(new URL('../../../public/ads/fernway.webm', import.meta.url)));
const cut = (b: Uint8Array, keep: number) => b.subarray(0, keep < 0 ? b.length + keep : keep);
const error = (verdict: { ok: boolean; error?: string }) => (verdict.ok ? 'accepted' : verdict.error);

describe('what a file is, by its bytes', () => {
  it.each([
    ['png', png(10, 10)],
    ['jpeg', jpeg(10, 10)],
    ['gif', gif(10, 10)],
    ['webp', webp(10, 10)],
    ['mp4', mp4()],
    ['webm', webm()],
    ['svg', svg()],
    ['pdf', pdf()],
    ['html', new TextEncoder().encode('<!doctype html><p>hi')],
    ['matroska', webm({ docType: 'matroska' })],
    ['unknown', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])],
  ] as const)('%s', (kind, bytes) => expect(sniff(bytes)).toBe(kind));

  it('finds SVG behind a byte-order mark, whitespace or an XML declaration', () => {
    expect(sniff(new TextEncoder().encode('\uFEFF  \n<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('svg');
  });
});

describe('images', () => {
  it.each([
    ['PNG', png(192, 108), { type: 'png', contentType: 'image/png', extension: 'png' }],
    ['JPEG', jpeg(300, 250), { type: 'jpeg', contentType: 'image/jpeg', extension: 'jpg' }],
    ['GIF', gif(96, 96), { type: 'gif', contentType: 'image/gif', extension: 'gif' }],
    ['lossless WebP', webp(200, 100), { type: 'webp', contentType: 'image/webp', extension: 'webp' }],
    ['lossy WebP', webp(200, 100, 'lossy'), { type: 'webp', width: 200, height: 100 }],
    ['extended WebP', webp(160, 90, 'extended'), { type: 'webp', width: 160, height: 90 }],
  ])('accepts a %s for the card, with its dimensions', (_, bytes, expected) => {
    const verdict = checkImage(bytes, 'card');
    expect(verdict, error(verdict)).toMatchObject({ ok: true, media: { kind: 'image', ...expected } });
  });

  it('reads the size from the header, whatever the file is called or claims', () => {
    expect(checkImage(png(192, 108), 'card')).toMatchObject({ media: { width: 192, height: 108 } });
    expect(checkImage(jpeg(300, 250), 'card')).toMatchObject({ media: { width: 300, height: 250 } });
  });

  it('swaps the sides of a JPEG its EXIF turns a quarter, as browsers draw it', () => {
    expect(checkImage(jpeg(300, 200, { orientation: 6 }), 'tooltip')).toMatchObject({ media: { width: 200, height: 300 } });
    expect(checkImage(jpeg(300, 200, { orientation: 3 }), 'tooltip')).toMatchObject({ media: { width: 300, height: 200 } });
  });

  it('refuses SVG, saying why, even named .png', () => {
    expect(error(checkImage(svg(), 'card'))).toMatch(/SVG image, which is not accepted: an SVG file can carry script/);
  });

  it.each([
    ['a PDF', pdf(), /is a PDF document, not a PNG, JPEG, WebP or GIF file/],
    ['a video', mp4(), /is a video: upload a PNG, JPEG, WebP or GIF file/],
    ['an HTML page', new TextEncoder().encode('<html><body>hi</body></html>'), /text or HTML file/],
    ['random bytes', new Uint8Array(64).fill(7), /is not a PNG, JPEG, WebP or GIF file \(whatever its name says\)/],
    ['nothing', new Uint8Array(), /The image file is empty/],
  ])('refuses %s as an image', (_, bytes, message) => {
    expect(error(checkImage(bytes, 'card'))).toMatch(message);
  });

  it('refuses an image over 2 MB before reading it', () => {
    const big = png(200, 100, { padding: 2 * 1024 * 1024 });
    expect(error(checkImage(big, 'card'))).toMatch(/^The image is 2\.0 MB: an image takes at most 2 MB\.$/);
    expect(checkImage(png(200, 100, { padding: 2 * 1024 * 1024 - 1000 }), 'card').ok).toBe(true);
  });

  it.each([
    ['narrower than the card draws it', png(80, 80), 'card', /80 px wide: the card’s image needs at least 96 px/],
    ['too tall for the card', png(100, 300), 'card', /100×300 px: the card’s image must be between 1:2 \(tall\) and 2:1 \(wide\)/],
    ['too wide for the card', png(600, 100), 'card', /must be between 1:2/],
    ['a poster that is not 16:9', png(640, 480), 'poster', /the video’s stand-in image must be 16:9/],
    ['a poster narrower than the video', png(160, 90), 'poster', /160 px wide: the video’s stand-in image needs at least 320 px/],
    ['larger than 4096 px on a side', png(5000, 2500), 'card', /5000×2500 px: an image takes at most 4096 px on a side/],
  ] as const)('refuses an image %s', (_, bytes, role, message) => {
    expect(error(checkImage(bytes, role))).toMatch(message);
  });

  it('accepts a 16:9 poster', () => {
    expect(checkImage(png(640, 360), 'poster').ok).toBe(true);
  });

  describe('refuses files cut short or lying about themselves', () => {
    const damaged = /is not a whole (PNG|JPEG|GIF|WebP) file: it is cut short or damaged/;
    it.each([
      ['a PNG without its end', cut(png(192, 108), -12)],
      ['a PNG cut inside its data', cut(png(192, 108), 60)],
      ['a PNG of its signature only', cut(png(192, 108), 8)],
      ['a PNG whose first chunk is not its header', Uint8Array.from([...png(192, 108).subarray(0, 12), 0x58, 0x58, 0x58, 0x58, ...png(192, 108).subarray(16)])],
      ['a JPEG without its end marker', cut(jpeg(192, 108), -2)],
      ['a JPEG with no frame header', Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xd9])],
      ['a GIF without its trailer', cut(gif(192, 108), -1)],
      ['a GIF cut in its colour table', cut(gif(192, 108), 15)],
      ['a WebP whose RIFF size is past the file', cut(webp(192, 108), -4)],
      ['a WebP with no image chunk', Uint8Array.from([...new TextEncoder().encode('RIFF'), 12, 0, 0, 0, ...new TextEncoder().encode('WEBPJUNK'), 0, 0, 0, 0])],
    ])('%s', (_, bytes) => expect(error(checkImage(bytes, 'card'))).toMatch(damaged));

    it.each([
      ['a PNG with bytes after its IEND', appended(png(192, 108), '<script>alert(1)</script>')],
      ['a PNG with one byte after its IEND', appended(png(192, 108), [0])],
      ['a GIF with bytes after its trailer', appended(gif(192, 108), '<html>')],
      ['a GIF with a second trailer', appended(gif(192, 108), [0x3b])],
      ['a WebP with bytes past its RIFF size', appended(webp(192, 108), 'PK\x03\x04')],
      ['a JPEG with a file after its end marker', appended(jpeg(192, 108), 'PK\x03\x04 a zip')],
      ['a JPEG with a file after its end marker that ends with another', appended(jpeg(192, 108), [...new TextEncoder().encode('<html>'), 0xff, 0xd9])],
    ])('%s: padded, so not the image it claims to be', (_, bytes) => expect(error(checkImage(bytes, 'card'))).toMatch(damaged));

    it('takes a JPEG with whitespace or NUL padding after its end, and one with markers inside its data or segments', () => {
      expect(checkImage(appended(jpeg(192, 108), [0, 0, 0x0d, 0x0a, 0x20]), 'card')).toMatchObject({ ok: true });
      expect(checkImage(jpegWithMarkersInside(192, 108), 'card')).toMatchObject({ ok: true, media: { width: 192, height: 108 } });
    });

    it('a PNG whose header claims no pixels', () => {
      expect(error(checkImage(png(0, 0), 'card'))).toMatch(damaged);
    });
  });
});

describe('videos', () => {
  it('accepts an H.264 MP4 with its duration and size', () => {
    expect(checkVideo(mp4({ width: 1280, height: 720, durationMs: 15_000 }))).toEqual({
      ok: true,
      media: {
        kind: 'video',
        type: 'mp4',
        contentType: 'video/mp4',
        extension: 'mp4',
        width: 1280,
        height: 720,
        durationMs: 15_000,
        codec: 'avc1',
        bytes: expect.any(Number),
      },
    });
  });

  it('reads 64-bit movie headers, and any timescale', () => {
    expect(checkVideo(mp4({ version1: true, timescale: 90_000, durationMs: 12_500 }))).toMatchObject({ ok: true, media: { durationMs: 12_500 } });
  });

  it('accepts a VP9 or VP8 WebM, in its TimecodeScale', () => {
    expect(checkVideo(webm({ width: 854, height: 480, durationMs: 29_000 }))).toMatchObject({
      ok: true,
      media: { type: 'webm', contentType: 'video/webm', extension: 'webm', width: 854, height: 480, durationMs: 29_000, codec: 'V_VP9' },
    });
    expect(checkVideo(webm({ codec: 'V_VP8', timecodeScale: 100_000, durationMs: 4000 }))).toMatchObject({ ok: true, media: { durationMs: 4000 } });
  });

  it('accepts real encoder output: ffmpeg’s H.264 MP4 and VP9 WebM, and the demo’s VP8 loops', () => {
    expect(checkVideo(fixture('h264-320x180-1s.mp4'))).toMatchObject({ ok: true, media: { width: 320, height: 180, durationMs: 1000, codec: 'avc1' } });
    expect(checkVideo(fixture('vp9-640x360-2s.webm'))).toMatchObject({ ok: true, media: { width: 640, height: 360, durationMs: 2000, codec: 'V_VP9' } });
    expect(checkVideo(demoWebm())).toMatchObject({ ok: true, media: { width: 480, height: 270, durationMs: 4000, codec: 'V_VP8' } });
  });

  it.each([
    ['over 10 MB', paddedMp4(10 * 1024 * 1024 + 1), /^The video is 10\.0 MB: a video takes at most 10 MB\.$/],
    ['longer than 30 s', mp4({ durationMs: 30_500 }), /^The video lasts 30\.5 s: a video lasts at most 30 s \(it loops\)\.$/],
    ['a WebM longer than 30 s', webm({ durationMs: 45_000 }), /lasts 45\.0 s/],
    ['shorter than a second', mp4({ durationMs: 400 }), /lasts 0\.4 s: a video lasts at least 1 s/],
    ['4:3', mp4({ width: 640, height: 480 }), /640×480 px: it must be 16:9/],
    ['turned a quarter (portrait)', mp4({ quarterTurn: true }), /360×640 px: it must be 16:9/],
    ['narrower than 320 px', webm({ width: 256, height: 144 }), /256 px wide: a video needs at least 320 px/],
    ['larger than 4K', mp4({ width: 7680, height: 4320 }), /7680×4320 px: a video takes at most 3840×2160 px/],
    ['an MP4 in HEVC', mp4({ codec: 'hvc1' }), /an MP4 in H\.265 \(HEVC\), which not every browser plays/],
    ['a WebM in AV1', webm({ codec: 'V_AV1' }), /a WebM in AV1, which not every browser plays/],
    ['sound only', mp4({ handler: 'soun' }), /has no video track/],
    ['a WebM of sound only', webm({ trackType: 2, codec: 'A_OPUS' }), /has no video track/],
    ['without a duration (a browser recording)', webm({ durationMs: null }), /does not say how long it lasts/],
    ['an MKV', webm({ docType: 'matroska' }), /is a Matroska \(MKV\) video, not an MP4 \(H\.264\) or WebM/],
    ['an image', png(640, 360), /is an image \(PNG\): upload an MP4 \(H\.264\) or WebM/],
    ['an SVG', svg(), /SVG image, which is not accepted/],
    ['a PDF', pdf(), /is a PDF document, not an MP4/],
    ['nothing', new Uint8Array(), /The video file is empty/],
  ])('refuses a video %s', (_, bytes, message) => {
    expect(error(checkVideo(bytes))).toMatch(message);
  });

  describe('refuses videos cut short or lying about themselves', () => {
    const damaged = /is not a whole (MP4 \(H\.264\)|WebM \(VP8 or VP9\)) file: it is cut short or damaged/;
    const real = fixture('h264-320x180-1s.mp4');
    it.each([
      ['an MP4 cut in its media data', cut(mp4(), -10)],
      ['an MP4 cut in its movie header', cut(mp4(), 60)],
      ['real H.264 cut short', cut(real, Math.floor(real.length * 0.7))],
      ['an MP4 of its ftyp alone', cut(mp4(), 32)],
      [
        'an MP4 whose box claims more than the file holds',
        (() => {
          const b = mp4();
          new DataView(b.buffer).setUint32(32, 1_000_000);
          return b;
        })(),
      ],
      ['an MP4 without media data', mp4({ mediaBytes: 0 })],
      ['a WebM cut in its cluster', cut(webm(), -5)],
      ['a WebM cut in its header', cut(webm(), 20)],
      ['real VP8 cut short', cut(demoWebm(), 4000)],
    ])('%s', (_, bytes) => expect(error(checkVideo(bytes))).toMatch(damaged));
  });
});
