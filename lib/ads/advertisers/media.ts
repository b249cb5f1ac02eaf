import { imageSize } from 'image-size';
import { IMAGE_RULES, MEDIA_RULES, type ImageRole, type ImageType, type VideoType } from './schemas';

/**
 * An advertiser's uploaded image or video, checked by its bytes before anything is stored: its
 * name and the type the browser claimed are never read, so an SVG or a PDF renamed `.png` is what
 * it is. Pure: bytes in, a verdict out (with the message the form shows), no I/O.
 *
 * - What a file is comes from its first bytes (magic numbers).
 * - Images: PNG, JPEG, WebP, GIF. Their dimensions come from `image-size` (a small, dependency-free
 *   and widely used reader of image headers, which also reads a JPEG's EXIF orientation); that the
 *   file is whole, from our own walk of each format's structure (PNG chunks, GIF blocks, WebP's
 *   RIFF chunks, a JPEG's segments to its end marker), so a file cut short or padded with a lying
 *   header is refused, and so is one with bytes after its end (a PNG's IEND, a GIF's trailer, the
 *   RIFF size of a WebP, a JPEG's end-of-image marker, where only whitespace or NUL padding may
 *   follow): what we serve as an image is that image and nothing appended to it.
 * - Videos: MP4 with H.264 (ISO-BMFF: `moov/mvhd`'s duration and timescale, the video track's
 *   `tkhd` width and height, its rotation, and its `stsd` codec) and WebM with VP8 or VP9 (EBML:
 *   Segment/Info's Duration in TimecodeScale units, Tracks/TrackEntry/Video's PixelWidth and
 *   PixelHeight, and CodecID). These few fields are read by a bounded walk of our own below: the
 *   libraries that read both containers are whole media toolkits (mediabunny, mp4box.js), the
 *   small EBML readers are stream decoders, and what is needed here is a few dozen boxes and
 *   elements whose sizes are checked against the file at every step.
 *
 * Every limit is in MEDIA_RULES and IMAGE_RULES (./schemas.ts), which the console and the docs show.
 */

/** Where a stored file is served (the route /media/[[...key]], lib/routes/media.ts): the URL a creative keeps. */
export function mediaPath(key: string): string {
  return `/media/${key}`;
}

export type MediaVerdict<T> = { ok: true; media: T } | { ok: false; error: string };

export interface CheckedImage {
  kind: 'image';
  type: ImageType;
  contentType: string;
  extension: string;
  /** As displayed: a JPEG's EXIF rotation applied. */
  width: number;
  height: number;
  bytes: number;
}

export interface CheckedVideo {
  kind: 'video';
  type: VideoType;
  contentType: string;
  extension: string;
  /** As displayed: an MP4 track's rotation applied. */
  width: number;
  height: number;
  durationMs: number;
  /** `avc1`, `V_VP9`, …: the container's name for it. */
  codec: string;
  bytes: number;
}

/** What the first bytes say a file is: one we accept, or a kind we name in the refusal. */
export type Sniffed = ImageType | VideoType | 'svg' | 'pdf' | 'html' | 'heif' | 'quicktime' | 'matroska' | 'bmp' | 'tiff' | 'unknown';

const NAMES: Record<Exclude<Sniffed, ImageType | VideoType | 'unknown'>, string> = {
  svg: 'an SVG image',
  pdf: 'a PDF document',
  html: 'a text or HTML file',
  heif: 'an AVIF or HEIC image',
  quicktime: 'a QuickTime (MOV) video',
  matroska: 'a Matroska (MKV) video',
  bmp: 'a BMP image',
  tiff: 'a TIFF image',
};

const ascii = (b: Uint8Array, start: number, end: number) => String.fromCharCode(...b.subarray(start, Math.min(end, b.length)));
const startsWith = (b: Uint8Array, bytes: number[], at = 0) => bytes.every((x, i) => b[at + i] === x);

/** What `b` is, by its first bytes. */
export function sniff(b: Uint8Array): Sniffed {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a') return 'gif';
  if (ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP') return 'webp';
  if (ascii(b, 4, 8) === 'ftyp') {
    const brand = ascii(b, 8, 12);
    if (/^(avif|avis|heic|heix|hevc|heim|heis|mif1|msf1)$/.test(brand)) return 'heif';
    if (brand === 'qt  ') return 'quicktime';
    return 'mp4';
  }
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) {
    // An EBML header cut short is read as WebM, so the refusal says it is cut short.
    const docType = ebmlDocType(b);
    return docType === 'webm' || docType === null ? 'webm' : 'matroska';
  }
  if (ascii(b, 0, 5) === '%PDF-') return 'pdf';
  if (ascii(b, 0, 2) === 'BM') return 'bmp';
  if (ascii(b, 0, 4) === 'II*\0' || ascii(b, 0, 4) === 'MM\0*') return 'tiff';
  // Markup: SVG (which can carry script, so it is named as such), or any other text.
  const head = new TextDecoder('utf-8', { fatal: false })
    .decode(b.subarray(0, 4096))
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (head.startsWith('<')) return /<svg[\s>]/i.test(head) ? 'svg' : 'html';
  return 'unknown';
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const limitMb = (bytes: number) => `${bytes / 1024 / 1024} MB`;
const refuse = (error: string): { ok: false; error: string } => ({ ok: false, error });

function isImageType(t: Sniffed): t is ImageType {
  return t in MEDIA_RULES.image.types;
}
function isVideoType(t: Sniffed): t is VideoType {
  return t in MEDIA_RULES.video.types;
}

const IMAGE_TYPES_SAID = 'a PNG, JPEG, WebP or GIF file';
const VIDEO_TYPES_SAID = 'an MP4 (H.264) or WebM (VP8 or VP9) file';

/** What the refusal of a file of the wrong kind says. */
function wrongKind(found: Sniffed, what: 'image' | 'video'): string {
  const wanted = what === 'image' ? IMAGE_TYPES_SAID : VIDEO_TYPES_SAID;
  if (found === 'svg') return `The ${what} is an SVG image, which is not accepted: an SVG file can carry script. Export it as PNG or WebP and upload that.`;
  if (isImageType(found)) return `The ${what} is an image (${MEDIA_RULES.image.types[found].name}): upload ${wanted}.`;
  if (isVideoType(found)) return `The ${what} is a video: upload ${wanted}.`;
  if (found === 'unknown') return `The ${what} is not ${wanted} (whatever its name says).`;
  return `The ${what} is ${NAMES[found]}, not ${wanted}: export it as one of those and upload that.`;
}

// ── Images ─────────────────────────────────────────────────────────────────────────────────

/** An uploaded image for `role`: its type, dimensions and size checked, or why it is refused. */
export function checkImage(bytes: Uint8Array, role: ImageRole): MediaVerdict<CheckedImage> {
  const limits = MEDIA_RULES.image;
  if (bytes.length === 0) return refuse('The image file is empty.');
  if (bytes.length > limits.maxBytes) return refuse(`The image is ${mb(bytes.length)}: an image takes at most ${limitMb(limits.maxBytes)}.`);
  const type = sniff(bytes);
  if (!isImageType(type)) return refuse(wrongKind(type, 'image'));
  const name = limits.types[type].name;
  const damaged = `The image is not a whole ${name} file: it is cut short or damaged. Export it again and upload that.`;
  if (!IMAGE_STRUCTURE[type](bytes)) return refuse(damaged);
  let width: number;
  let height: number;
  try {
    const size = imageSize(bytes);
    if (size.type !== (type === 'jpeg' ? 'jpg' : type)) return refuse(damaged);
    // EXIF orientations 5 to 8 turn the picture a quarter: it is drawn with its sides swapped.
    const turned = (size.orientation ?? 1) >= 5;
    width = turned ? size.height : size.width;
    height = turned ? size.width : size.height;
  } catch {
    return refuse(damaged);
  }
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) return refuse(damaged);
  if (width > limits.maxSide || height > limits.maxSide)
    return refuse(`The image is ${width}×${height} px: an image takes at most ${limits.maxSide} px on a side.`);
  const rules = IMAGE_RULES[role];
  const what = role === 'poster' ? 'the video’s stand-in image' : role === 'card' ? 'the card’s image' : 'the tooltip’s image';
  if (width < rules.minWidth) return refuse(`The image is ${width} px wide: ${what} needs at least ${rules.minWidth} px.`);
  const aspect = width / height;
  if (aspect < rules.minAspect || aspect > rules.maxAspect) return refuse(`The image is ${width}×${height} px: ${what} must be ${rules.shape}.`);
  const t = limits.types[type];
  return { ok: true, media: { kind: 'image', type, contentType: t.contentType, extension: t.extension, width, height, bytes: bytes.length } };
}

/** Whether each format's structure is whole: every part inside the file, and its end where it should be. */
const IMAGE_STRUCTURE: Record<ImageType, (b: Uint8Array) => boolean> = { png: pngIsWhole, jpeg: jpegIsWhole, gif: gifIsWhole, webp: webpIsWhole };

/** PNG: IHDR first, then chunks (length, type, data, CRC) each inside the file, an IDAT, and IEND last. */
function pngIsWhole(b: Uint8Array): boolean {
  const v = view(b);
  let at = 8;
  let first = true;
  let sawData = false;
  while (at + 12 <= b.length) {
    const length = v.getUint32(at);
    const type = ascii(b, at + 4, at + 8);
    if (first && (type !== 'IHDR' || length !== 13)) return false;
    first = false;
    if (at + 12 + length > b.length) return false;
    if (type === 'IDAT') sawData = true;
    if (type === 'IEND') return sawData && at + 12 + length === b.length;
    at += 12 + length;
  }
  return false;
}

/**
 * JPEG: its segments walked from the start-of-image marker, each inside the file, the coded data
 * after each start-of-scan read to the next marker (a stuffed `FF 00` and the restart markers are
 * part of it), up to the first end-of-image marker; after it, at most whitespace or NUL padding,
 * which some writers add. (An EXIF thumbnail's own markers are inside its APP1 segment, skipped
 * whole.) image-size finds the frame header.
 */
function jpegIsWhole(b: Uint8Array): boolean {
  const restart = (m: number | undefined) => m !== undefined && m >= 0xd0 && m <= 0xd7;
  if (b[0] !== 0xff || b[1] !== 0xd8) return false;
  let at = 2;
  while (at < b.length) {
    if (b[at] !== 0xff) return false;
    while (b[at] === 0xff) at++; // fill bytes before a marker
    const marker = b[at++];
    if (marker === undefined) return false;
    if (marker === 0xd9) {
      for (; at < b.length; at++) if (b[at] !== 0x00 && b[at] !== 0x0a && b[at] !== 0x0d && b[at] !== 0x20) return false;
      return true;
    }
    if (restart(marker) || marker === 0x01) continue; // markers without a length
    if (at + 2 > b.length) return false;
    const length = (b[at]! << 8) | b[at + 1]!;
    if (length < 2 || at + length > b.length) return false;
    at += length;
    if (marker !== 0xda) continue;
    // Coded data, to the next marker.
    while (at < b.length) {
      if (b[at] === 0xff && (b[at + 1] === 0x00 || restart(b[at + 1]))) at += 2;
      else if (b[at] === 0xff && at + 1 < b.length) break;
      else at++;
    }
  }
  return false;
}

/** GIF: the screen descriptor, its colour table, then extensions and images block by block, to the trailer, the last byte. */
function gifIsWhole(b: Uint8Array): boolean {
  if (b.length < 14) return false;
  let at = 13;
  if (b[10]! & 0x80) at += 3 * 2 ** ((b[10]! & 0x07) + 1);
  /** Sub-blocks (a length byte, then that many bytes) up to the empty one; the offset after it, or -1. */
  const subBlocks = (from: number): number => {
    let p = from;
    while (p < b.length) {
      const n = b[p]!;
      if (n === 0) return p + 1;
      p += n + 1;
    }
    return -1;
  };
  let images = 0;
  while (at < b.length) {
    const block = b[at];
    if (block === 0x3b) return images > 0 && at + 1 === b.length;
    if (block === 0x21) {
      at = subBlocks(at + 2);
    } else if (block === 0x2c) {
      if (at + 10 > b.length) return false;
      const packed = b[at + 9]!;
      at += 10;
      if (packed & 0x80) at += 3 * 2 ** ((packed & 0x07) + 1);
      at = subBlocks(at + 1); // after the LZW minimum code size
      images++;
    } else {
      return false;
    }
    if (at < 0) return false;
  }
  return false;
}

/** WebP: the RIFF size the file's, and every chunk inside it, with an image chunk among them. */
function webpIsWhole(b: Uint8Array): boolean {
  if (b.length < 20) return false;
  const v = view(b);
  const end = 8 + v.getUint32(4, true);
  if (end !== b.length) return false;
  let at = 12;
  let sawImage = false;
  while (at + 8 <= end) {
    const type = ascii(b, at, at + 4);
    const size = v.getUint32(at + 4, true);
    if (at + 8 + size > end) return false;
    if (type === 'VP8 ' || type === 'VP8L' || type === 'ANMF') sawImage = true;
    at += 8 + size + (size % 2);
  }
  return sawImage && at >= end;
}

// ── Videos ─────────────────────────────────────────────────────────────────────────────────

/** What a container says of its video. */
interface VideoFacts {
  width: number;
  height: number;
  /** Null when the file does not say. */
  durationMs: number | null;
  codec: string;
}

/** Why a container could not be read: cut short, or not what it claims to be. */
class Unreadable extends Error {}

/** An uploaded video: its type, codec, duration, dimensions and size checked, or why it is refused. */
export function checkVideo(bytes: Uint8Array): MediaVerdict<CheckedVideo> {
  const limits = MEDIA_RULES.video;
  if (bytes.length === 0) return refuse('The video file is empty.');
  if (bytes.length > limits.maxBytes) return refuse(`The video is ${mb(bytes.length)}: a video takes at most ${limitMb(limits.maxBytes)}.`);
  const type = sniff(bytes);
  if (!isVideoType(type)) return refuse(wrongKind(type, 'video'));
  let facts: VideoFacts | string;
  try {
    facts = type === 'mp4' ? readMp4(bytes) : readWebm(bytes);
  } catch (err) {
    if (!(err instanceof Unreadable) && !(err instanceof RangeError)) throw err;
    return refuse(`The video is not a whole ${limits.types[type].name} file: it is cut short or damaged. Export it again and upload that.`);
  }
  if (typeof facts === 'string') return refuse(facts);
  const { width, height, durationMs, codec } = facts;
  if (durationMs === null)
    return refuse('The video does not say how long it lasts (a recording saved straight from a browser often does not): export it again from a video editor.');
  if (durationMs > limits.maxDurationMs)
    return refuse(`The video lasts ${(durationMs / 1000).toFixed(1)} s: a video lasts at most ${limits.maxDurationMs / 1000} s (it loops).`);
  if (durationMs < limits.minDurationMs) return refuse(`The video lasts ${(durationMs / 1000).toFixed(1)} s: a video lasts at least 1 s.`);
  if (width < limits.minWidth) return refuse(`The video is ${width} px wide: a video needs at least ${limits.minWidth} px (320×180).`);
  if (width > limits.maxWidth || height > limits.maxHeight)
    return refuse(`The video is ${width}×${height} px: a video takes at most ${limits.maxWidth}×${limits.maxHeight} px.`);
  if (Math.abs(width / height / limits.aspect - 1) > limits.aspectTolerance)
    return refuse(`The video is ${width}×${height} px: it must be 16:9 (such as 640×360 or 1280×720), as the SDK draws it.`);
  const t = limits.types[type];
  return {
    ok: true,
    media: {
      kind: 'video',
      type,
      contentType: t.contentType,
      extension: t.extension,
      width,
      height,
      durationMs: Math.round(durationMs),
      codec,
      bytes: bytes.length,
    },
  };
}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

// ISO-BMFF (MP4) ────────────────────────────────────────────────────────────────────────────

interface Box {
  type: string;
  /** Where its payload starts and ends. */
  start: number;
  end: number;
}

/** The boxes between `from` and `to`, each checked to lie inside them. */
function boxes(b: Uint8Array, from: number, to: number): Box[] {
  const v = view(b);
  const found: Box[] = [];
  let at = from;
  while (at < to) {
    if (at + 8 > to) throw new Unreadable('a box header past its parent');
    let size = v.getUint32(at);
    const type = ascii(b, at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) throw new Unreadable('a large box header past its parent');
      const large = v.getBigUint64(at + 8);
      if (large > BigInt(to - at)) throw new Unreadable('a box past its parent');
      size = Number(large);
      header = 16;
    } else if (size === 0) {
      size = to - at; // to the end
    }
    if (size < header || at + size > to) throw new Unreadable('a box past its parent');
    found.push({ type, start: at + header, end: at + size });
    at += size;
  }
  return found;
}

const child = (b: Uint8Array, parent: Box, type: string) => boxes(b, parent.start, parent.end).find((x) => x.type === type);

/** An MP4's video: the movie's duration, and its video track's size, rotation and codec. */
function readMp4(b: Uint8Array): VideoFacts | string {
  const v = view(b);
  const top = boxes(b, 0, b.length);
  const moov = top.find((x) => x.type === 'moov');
  if (!moov) throw new Unreadable('no moov');
  if (!top.some((x) => x.type === 'mdat' && x.end > x.start) && !top.some((x) => x.type === 'moof')) throw new Unreadable('no media data');

  const inMoov = boxes(b, moov.start, moov.end);
  const mvhd = inMoov.find((x) => x.type === 'mvhd');
  if (!mvhd) throw new Unreadable('no mvhd');
  const version = b[mvhd.start];
  if (mvhd.end - mvhd.start < (version === 1 ? 32 : 20)) throw new Unreadable('short mvhd');
  const timescale = version === 1 ? v.getUint32(mvhd.start + 20) : v.getUint32(mvhd.start + 12);
  let duration = version === 1 ? Number(v.getBigUint64(mvhd.start + 24)) : v.getUint32(mvhd.start + 16);
  if (timescale === 0) throw new Unreadable('no timescale');
  const unknown = (d: number) => d === 0 || d === 0xffffffff || d >= Number.MAX_SAFE_INTEGER;
  if (unknown(duration)) {
    // A fragmented MP4 may say its whole length in mvex/mehd.
    const mvex = inMoov.find((x) => x.type === 'mvex');
    const mehd = mvex && child(b, mvex, 'mehd');
    if (mehd && mehd.end - mehd.start >= 8)
      duration = b[mehd.start] === 1 && mehd.end - mehd.start >= 12 ? Number(v.getBigUint64(mehd.start + 4)) : v.getUint32(mehd.start + 4);
  }
  const durationMs = unknown(duration) ? null : (duration / timescale) * 1000;

  for (const trak of inMoov.filter((x) => x.type === 'trak')) {
    const mdia = child(b, trak, 'mdia');
    const hdlr = mdia && child(b, mdia, 'hdlr');
    if (!hdlr || hdlr.end - hdlr.start < 12 || ascii(b, hdlr.start + 8, hdlr.start + 12) !== 'vide') continue;
    const minf = child(b, mdia, 'minf');
    const stbl = minf && child(b, minf, 'stbl');
    const stsd = stbl && child(b, stbl, 'stsd');
    const tkhd = child(b, trak, 'tkhd');
    if (!stsd || !tkhd) throw new Unreadable('a video track without its description');
    if (stsd.end - stsd.start < 16 || v.getUint32(stsd.start + 4) < 1) throw new Unreadable('no sample description');
    const entry = stsd.start + 8;
    const entrySize = v.getUint32(entry);
    if (entrySize < 36 || entry + entrySize > stsd.end) throw new Unreadable('a sample description past its box');
    const codec = ascii(b, entry + 4, entry + 8);
    if (codec !== 'avc1' && codec !== 'avc3') return mp4Codec(codec);
    // tkhd: the matrix and the 16.16 width and height after the version's times and ids.
    const tv = b[tkhd.start];
    const matrix = tkhd.start + (tv === 1 ? 52 : 40);
    if (matrix + 44 > tkhd.end) throw new Unreadable('short tkhd');
    let width = Math.round(v.getUint32(matrix + 36) / 65536);
    let height = Math.round(v.getUint32(matrix + 40) / 65536);
    if (width === 0 || height === 0) {
      // No presentation size: the sample entry's coded size.
      width = v.getUint16(entry + 32);
      height = v.getUint16(entry + 34);
    }
    if (width === 0 || height === 0) throw new Unreadable('no size');
    // A quarter turn (phones' portrait videos: a = d = 0) shows the sides swapped.
    if (v.getInt32(matrix) === 0 && v.getInt32(matrix + 16) === 0) [width, height] = [height, width];
    return { width, height, durationMs, codec };
  }
  return 'The video has no video track (is it sound only?): upload a video.';
}

function mp4Codec(codec: string): string {
  const named: Record<string, string> = {
    hvc1: 'H.265 (HEVC)',
    hev1: 'H.265 (HEVC)',
    av01: 'AV1',
    vp09: 'VP9',
    mp4v: 'MPEG-4 Part 2',
    encv: 'an encrypted codec',
  };
  return `The video is an MP4 in ${named[codec] ?? `another codec (${codec.trim() || 'unnamed'})`}, which not every browser plays: export it as MP4 with H.264, or as WebM.`;
}

// EBML (WebM) ──────────────────────────────────────────────────────────────────────────────

interface Element {
  id: number;
  start: number;
  /** Where its payload ends; null for an element of unknown size (a live recording's Segment or Cluster). */
  end: number | null;
  /** Where the next element starts when the size is known. */
  next: number;
}

/** The element at `at`: its id (marker bits kept, as the spec writes ids), and its payload's bounds. */
function element(b: Uint8Array, at: number, limit: number): Element {
  const idLength = vintLength(b, at, 4);
  let id = 0;
  for (let i = 0; i < idLength; i++) id = id * 256 + b[at + i]!;
  const sizeAt = at + idLength;
  const sizeLength = vintLength(b, sizeAt, 8);
  let size = b[sizeAt]! & (0xff >> sizeLength);
  let allOnes = size === 0xff >> sizeLength;
  for (let i = 1; i < sizeLength; i++) {
    const byte = b[sizeAt + i]!;
    size = size * 256 + byte;
    allOnes &&= byte === 0xff;
  }
  const start = sizeAt + sizeLength;
  if (start > limit) throw new Unreadable('an element header past its parent');
  if (allOnes) return { id, start, end: null, next: limit };
  if (start + size > limit) throw new Unreadable('an element past its parent');
  return { id, start, end: start + size, next: start + size };
}

/** A variable-length integer's length in bytes, from its first byte's leading zeros. */
function vintLength(b: Uint8Array, at: number, max: number): number {
  if (at >= b.length) throw new Unreadable('cut short');
  const first = b[at]!;
  for (let n = 1; n <= max; n++) if (first & (0x80 >> (n - 1))) return at + n <= b.length ? n : fail('cut short');
  return fail('not a variable-length integer');
}

function fail(why: string): never {
  throw new Unreadable(why);
}

/** The children of [from, to): each must fit; an element of unknown size ends the walk (it runs to `to`). */
function* children(b: Uint8Array, from: number, to: number): Generator<Element> {
  let at = from;
  while (at < to) {
    const e = element(b, at, to);
    yield e;
    if (e.end === null) return;
    at = e.next;
  }
}

const EBML = 0x1a45dfa3;
const DOC_TYPE = 0x4282;
const SEGMENT = 0x18538067;
const INFO = 0x1549a966;
const TIMECODE_SCALE = 0x2ad7b1;
const DURATION = 0x4489;
const TRACKS = 0x1654ae6b;
const TRACK_ENTRY = 0xae;
const TRACK_TYPE = 0x83;
const CODEC_ID = 0x86;
const VIDEO = 0xe0;
const PIXEL_WIDTH = 0xb0;
const PIXEL_HEIGHT = 0xba;
const CLUSTER = 0x1f43b675;

function uint(b: Uint8Array, e: Element): number {
  const end = e.end ?? fail('a number of unknown size');
  if (end - e.start > 8) fail('a number too long');
  let n = 0;
  for (let i = e.start; i < end; i++) n = n * 256 + b[i]!;
  return n;
}

function float(b: Uint8Array, e: Element): number {
  const length = (e.end ?? 0) - e.start;
  if (length === 4) return view(b).getFloat32(e.start);
  if (length === 8) return view(b).getFloat64(e.start);
  return fail('a float of another size');
}

const text = (b: Uint8Array, e: Element) => ascii(b, e.start, e.end ?? e.start).replace(/\0+$/, '');

/** The EBML header's DocType (`webm`, `matroska`: the spec's default), or null when the header is cut short. */
function ebmlDocType(b: Uint8Array): string | null {
  try {
    const header = element(b, 0, b.length);
    for (const e of children(b, header.start, header.end ?? b.length)) if (e.id === DOC_TYPE) return text(b, e);
    return 'matroska';
  } catch {
    return null;
  }
}

/** A WebM's video: Info's duration (in TimecodeScale units) and the video track's size and codec. */
function readWebm(b: Uint8Array): VideoFacts | string {
  const header = element(b, 0, b.length);
  if (header.id !== EBML || header.end === null) fail('no EBML header');
  const segment = element(b, header.end, b.length);
  if (segment.id !== SEGMENT) fail('no Segment');
  const segmentEnd = segment.end ?? b.length;
  let scale = 1_000_000;
  let duration: number | null = null;
  let track: { width: number; height: number; codec: string } | null = null;
  let sawCluster = false;
  for (const e of children(b, segment.start, segmentEnd)) {
    if (e.id === CLUSTER) {
      sawCluster = true;
      if (e.end === null) break; // a live recording's cluster runs to the end
    } else if (e.id === INFO && e.end !== null) {
      for (const f of children(b, e.start, e.end)) {
        if (f.id === TIMECODE_SCALE) scale = uint(b, f);
        else if (f.id === DURATION) duration = float(b, f);
      }
    } else if (e.id === TRACKS && e.end !== null && !track) {
      for (const entry of children(b, e.start, e.end)) {
        if (entry.id !== TRACK_ENTRY || entry.end === null) continue;
        let type = 0;
        let codec = '';
        let width = 0;
        let height = 0;
        for (const f of children(b, entry.start, entry.end)) {
          if (f.id === TRACK_TYPE) type = uint(b, f);
          else if (f.id === CODEC_ID) codec = text(b, f);
          else if (f.id === VIDEO && f.end !== null) {
            for (const g of children(b, f.start, f.end)) {
              if (g.id === PIXEL_WIDTH) width = uint(b, g);
              else if (g.id === PIXEL_HEIGHT) height = uint(b, g);
            }
          }
        }
        if (type !== 1) continue;
        if (codec !== 'V_VP8' && codec !== 'V_VP9') {
          return `The video is a WebM in ${codec === 'V_AV1' ? 'AV1' : `another codec (${codec || 'unnamed'})`}, which not every browser plays: export it as WebM with VP8 or VP9, or as MP4 with H.264.`;
        }
        if (width === 0 || height === 0) fail('a video track without its size');
        track = { width, height, codec };
        break;
      }
    }
  }
  if (!sawCluster) fail('no media data');
  if (!track) return 'The video has no video track (is it sound only?): upload a video.';
  if (scale === 0 || (duration !== null && !(Number.isFinite(duration) && duration > 0))) duration = null;
  return { ...track, durationMs: duration === null ? null : (duration * scale) / 1_000_000 };
}
