import { crc32, deflateSync } from 'node:zlib';

/**
 * Minimal image and video files built byte by byte, for the media checks
 * (lib/ads/advertisers/media.test.ts) and the upload tests (tests/integration/creative-media.test.ts):
 * each is a structurally whole file of its format, with exactly the headers the checks read, and
 * options to make it lie (sizes, durations, codecs) or to cut it short. They are not meant to
 * decode into a picture; the real encoder output in lib/ads/advertisers/fixtures/ is.
 */

const concat = (...parts: (Uint8Array | number[])[]) => {
  const arrays = parts.map((p) => (p instanceof Uint8Array ? p : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
};
const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const u16be = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u16le = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u24le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff];
const u32be = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const u32le = (n: number) => [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];

// ── Images ────────────────────────────────────────────────────────────────────────────────

function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const body = concat(ascii(type), data);
  return concat(u32be(data.length), body, u32be(crc32(body)));
}

/** A PNG of `width`×`height` (RGB), its pixels zero; `padding` bytes of an ancillary chunk make it as large as wanted. */
export function png(width: number, height: number, options: { padding?: number } = {}): Uint8Array {
  const ihdr = Uint8Array.from([...u32be(width), ...u32be(height), 8, 2, 0, 0, 0]);
  // Rows of zeros (filter byte and pixels), for sizes that are cheap; a stand-in stream otherwise.
  const raw = width * height <= 1_000_000 ? new Uint8Array((width * 3 + 1) * height) : new Uint8Array(16);
  return concat(
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    pngChunk('IHDR', ihdr),
    ...(options.padding ? [pngChunk('zzZz', new Uint8Array(options.padding))] : []),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', new Uint8Array()),
  );
}

/** A baseline JPEG's markers around a frame header of `width`×`height` (EXIF `orientation` if given). */
export function jpeg(width: number, height: number, options: { orientation?: number } = {}): Uint8Array {
  const exif = options.orientation
    ? (() => {
        // TIFF (big-endian): one IFD entry, Orientation (274), SHORT, count 1.
        const tiff = [
          ...ascii('MM'),
          0,
          42,
          ...u32be(8),
          ...u16be(1),
          ...u16be(274),
          ...u16be(3),
          ...u32be(1),
          ...u16be(options.orientation!),
          0,
          0,
          ...u32be(0),
        ];
        const payload = [...ascii('Exif'), 0, 0, ...tiff];
        return [0xff, 0xe1, ...u16be(payload.length + 2), ...payload];
      })()
    : [];
  const jfif = [0xff, 0xe0, ...u16be(16), ...ascii('JFIF'), 0, 1, 1, 0, 0, 1, 0, 1, 0, 0];
  const sof0 = [0xff, 0xc0, ...u16be(17), 8, ...u16be(height), ...u16be(width), 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  const sos = [0xff, 0xda, ...u16be(12), 3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3f, 0];
  return concat([0xff, 0xd8], exif.length ? exif : jfif, sof0, sos, [0x12, 0x34, 0x56, 0x78], [0xff, 0xd9]);
}

/** A GIF89a of `width`×`height`: a two-colour table, one image, the trailer. */
export function gif(width: number, height: number): Uint8Array {
  return concat(
    ascii('GIF89a'),
    [...u16le(width), ...u16le(height), 0x80, 0, 0],
    [0, 0, 0, 255, 255, 255],
    [0x2c, 0, 0, 0, 0, ...u16le(width), ...u16le(height), 0],
    [2, 2, 0x4c, 0x01, 0],
    [0x3b],
  );
}

/** A WebP of `width`×`height`: lossless (VP8L), lossy (VP8) or extended (VP8X around a VP8L). */
export function webp(width: number, height: number, kind: 'lossless' | 'lossy' | 'extended' = 'lossless'): Uint8Array {
  const chunk = (type: string, data: number[]) => concat(ascii(type), u32le(data.length), data, data.length % 2 ? [0] : []);
  const w = width - 1;
  const h = height - 1;
  const vp8l = chunk('VP8L', [0x2f, w & 0xff, ((w >> 8) & 0x3f) | ((h & 0x03) << 6), (h >> 2) & 0xff, (h >> 10) & 0x0f, 0, 0, 0]);
  const vp8 = chunk('VP8 ', [0x50, 0x02, 0x00, 0x9d, 0x01, 0x2a, ...u16le(width), ...u16le(height), 0, 0]);
  const body = kind === 'lossless' ? vp8l : kind === 'lossy' ? vp8 : concat(chunk('VP8X', [0x10, 0, 0, 0, ...u24le(width - 1), ...u24le(height - 1)]), vp8l);
  return concat(ascii('RIFF'), u32le(4 + body.length), ascii('WEBP'), body);
}

// ── Videos ────────────────────────────────────────────────────────────────────────────────

function box(type: string, ...payload: (Uint8Array | number[])[]): Uint8Array {
  const body = concat(...payload);
  return concat(u32be(body.length + 8), ascii(type), body);
}

export interface Mp4Options {
  width?: number;
  height?: number;
  durationMs?: number;
  timescale?: number;
  /** The sample entry's codec: `avc1` (H.264) by default. */
  codec?: string;
  /** A quarter turn in the track's matrix (a phone's portrait video). */
  quarterTurn?: boolean;
  /** The track's handler: `vide` by default (`soun`: sound only). */
  handler?: string;
  /** Bytes of media data. */
  mediaBytes?: number;
  /** mvhd version 1 (64-bit times). */
  version1?: boolean;
}

/** An MP4: ftyp, moov (mvhd, one track with tkhd, hdlr and an stsd entry), mdat. */
export function mp4(options: Mp4Options = {}): Uint8Array {
  const { width = 640, height = 360, durationMs = 5000, timescale = 1000, codec = 'avc1', handler = 'vide', mediaBytes = 64 } = options;
  const duration = Math.round((durationMs / 1000) * timescale);
  const matrix = options.quarterTurn ? [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000] : [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000];
  const mvhd = options.version1
    ? box(
        'mvhd',
        [1, 0, 0, 0],
        new Uint8Array(16),
        u32be(timescale),
        [0, 0, 0, 0, ...u32be(duration)],
        u32be(0x10000),
        [1, 0],
        new Uint8Array(10),
        ...matrix.map(u32be),
        new Uint8Array(24),
        u32be(2),
      )
    : box(
        'mvhd',
        [0, 0, 0, 0],
        u32be(0),
        u32be(0),
        u32be(timescale),
        u32be(duration),
        u32be(0x10000),
        [1, 0],
        new Uint8Array(10),
        ...matrix.map(u32be),
        new Uint8Array(24),
        u32be(2),
      );
  const tkhd = box(
    'tkhd',
    [0, 0, 0, 3],
    u32be(0),
    u32be(0),
    u32be(1),
    u32be(0),
    u32be(duration),
    new Uint8Array(8),
    [0, 0, 0, 0, 0, 0, 0, 0],
    ...matrix.map(u32be),
    u32be(width * 65536),
    u32be(height * 65536),
  );
  const hdlr = box('hdlr', [0, 0, 0, 0], u32be(0), ascii(handler), new Uint8Array(12), ascii('VideoHandler'), [0]);
  const entry = box(
    codec,
    new Uint8Array(6),
    u16be(1),
    new Uint8Array(16),
    u16be(width),
    u16be(height),
    u32be(0x480000),
    u32be(0x480000),
    u32be(0),
    u16be(1),
    new Uint8Array(32),
    u16be(24),
    u16be(0xffff),
  );
  const stsd = box('stsd', [0, 0, 0, 0], u32be(1), entry);
  const trak = box(
    'trak',
    tkhd,
    box('mdia', box('mdhd', [0, 0, 0, 0], u32be(0), u32be(0), u32be(timescale), u32be(duration), [0x55, 0xc4, 0, 0]), hdlr, box('minf', box('stbl', stsd))),
  );
  return concat(box('ftyp', ascii('isom'), u32be(0x200), ascii('isomiso2avc1mp41')), box('moov', mvhd, trak), box('mdat', new Uint8Array(mediaBytes)));
}

/** An EBML element: its id's bytes, then its size as an 8-byte variable-length integer, then its payload. */
function ebml(id: number[], ...payload: (Uint8Array | number[])[]): Uint8Array {
  const body = concat(...payload);
  const n = body.length;
  return concat(id, [0x01, 0, 0, 0, ...u32be(n)], body);
}
const ebmlUint = (id: number[], n: number) => ebml(id, u32be(n));
const ebmlFloat = (id: number[], x: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, x);
  return ebml(id, b);
};

export interface WebmOptions {
  width?: number;
  height?: number;
  /** Null: no Duration element (a live recording's). */
  durationMs?: number | null;
  codec?: string;
  /** Nanoseconds per tick (1,000,000 by default: milliseconds). */
  timecodeScale?: number;
  /** TrackType: 1 video, 2 audio. */
  trackType?: number;
  docType?: string;
}

/** A WebM: the EBML header, a Segment with Info (scale, duration), Tracks (one entry with its Video size) and a Cluster. */
export function webm(options: WebmOptions = {}): Uint8Array {
  const { width = 640, height = 360, durationMs = 5000, codec = 'V_VP9', timecodeScale = 1_000_000, trackType = 1, docType = 'webm' } = options;
  const header = ebml(
    [0x1a, 0x45, 0xdf, 0xa3],
    ebmlUint([0x42, 0x86], 1),
    ebml([0x42, 0x82], ascii(docType)),
    ebmlUint([0x42, 0x87], 4),
    ebmlUint([0x42, 0x85], 2),
  );
  const info = ebml(
    [0x15, 0x49, 0xa9, 0x66],
    ebmlUint([0x2a, 0xd7, 0xb1], timecodeScale),
    ...(durationMs === null ? [] : [ebmlFloat([0x44, 0x89], (durationMs * 1_000_000) / timecodeScale)]),
    ebml([0x4d, 0x80], ascii('hand-built')),
  );
  const video = ebml([0xe0], ebmlUint([0xb0], width), ebmlUint([0xba], height));
  const tracks = ebml([0x16, 0x54, 0xae, 0x6b], ebml([0xae], ebmlUint([0xd7], 1), ebmlUint([0x83], trackType), ebml([0x86], ascii(codec)), video));
  const cluster = ebml([0x1f, 0x43, 0xb6, 0x75], ebmlUint([0xe7], 0), ebml([0xa3], [0x81, 0, 0, 0x80], new Uint8Array(32)));
  return concat(header, ebml([0x18, 0x53, 0x80, 0x67], info, tracks, cluster));
}

/** `file` with a box (`free`) or padding added so that it is `bytes` long: a file over a size limit that is otherwise valid. */
export function paddedMp4(bytes: number): Uint8Array {
  const base = mp4();
  return concat(base, box('free', new Uint8Array(bytes - base.length - 8)));
}

/** `file` with `extra` after its end (a PNG's IEND, a GIF's trailer, a JPEG's end marker): a polyglot, or a padded upload. */
export function appended(file: Uint8Array, extra: string | number[]): Uint8Array {
  return concat(file, typeof extra === 'string' ? ascii(extra) : extra);
}

/**
 * A JPEG (as `jpeg`) whose coded data holds what a real one does: a stuffed `FF 00`, restart
 * markers, and an `FF D9` inside an EXIF-like APP1 segment (a thumbnail's end), none of which is
 * its end.
 */
export function jpegWithMarkersInside(width: number, height: number): Uint8Array {
  const base = jpeg(width, height);
  const app1 = [0xff, 0xe1, ...u16be(8), ...ascii('Exif'), 0xff, 0xd9];
  // After SOI; then the scan's data, which `jpeg` ends with 12 34 56 78 FF D9.
  return concat(base.subarray(0, 2), app1, base.subarray(2, base.length - 6), [0x12, 0xff, 0x00, 0x34, 0xff, 0xd0, 0x56, 0xff, 0xd1, 0x78], [0xff, 0xd9]);
}

/** A PDF's first bytes. */
export const pdf = () => ascii('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

/** An SVG that carries script. */
export const svg = () =>
  ascii('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><script>alert(document.cookie)</script></svg>\n');
