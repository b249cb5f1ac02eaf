import { MEDIA_RULES } from '../ads/advertisers/schemas';
import { ApiError } from '../platform/http/errors';
import { isObjectKey, RangeNotSatisfiable, type ByteRange } from '../platform/storage';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/**
 * GET /media/<key>: a stored file (an advertiser's image or video, lib/ads/advertisers/forms.ts) as it
 * was stored, from the process's object store (lib/platform/storage/).
 *
 * - Only a key the store could have made is looked up (random, with the extension of a type
 *   validated on upload), and only served with the content type that extension stands for: this
 *   origin never answers HTML, script or SVG from here. Anything else is a 404 in the envelope.
 * - Cached for good (`immutable`, a year), with an ETag: a key is never reused (privately only
 *   when the request carried a credential, as the kernel does for every route).
 * - `nosniff`; `Cross-Origin-Resource-Policy: cross-origin`, so a publisher's page that isolates
 *   itself (COEP `require-corp`) may still embed it; `Access-Control-Allow-Origin: *` from the
 *   kernel (cors `public`). An `<img>` or `<video>` on another origin needs neither, but a page may
 *   fetch or draw it.
 * - Byte ranges (one `bytes=a-b` or `bytes=a-`: what video elements ask, and what Safari needs to
 *   play a video at all): 206 with `Content-Range`. A range that starts at or past the end is a
 *   416 whose `Content-Range` gives the file's size (RFC 9110, 15.5.17), so a player learns it;
 *   any other Range (several, a suffix, one written backwards) is ignored and the whole file
 *   answered. Every error here is the API's JSON envelope.
 * - `Content-Length` is set on every answer, but Next (16.4) drops it from whatever a route handler
 *   answers (`FORBIDDEN_HEADERS` in next/dist/server/send-response.js) and streams the body
 *   chunked, so on the wire the length is only in a 206's `Content-Range` (and HTTP/2, what a CDN
 *   speaks to browsers, frames bodies without either).
 */

const SERVED_TYPES: Record<string, string> = Object.fromEntries(
  [...Object.values(MEDIA_RULES.image.types), ...Object.values(MEDIA_RULES.video.types)].map((t) => [t.extension, t.contentType]),
);
const CACHE = 'public, max-age=31536000, immutable';

/** One satisfiable-looking range, or undefined: no Range, or one we do not serve in parts. */
function byteRange(header: string | null): ByteRange | undefined {
  const m = header ? /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = m[2] ? Number(m[2]) : undefined;
  return end === undefined || end >= start ? { start, end } : undefined;
}

export const mediaRoute = defineRoute(ROUTES['/media/[[...key]]'], {
  GET: async ({ request, params, services }) => {
    const segments = params.key;
    const key = Array.isArray(segments) && segments.length === 1 ? segments[0]! : '';
    const contentType = SERVED_TYPES[key.slice(key.lastIndexOf('.') + 1)];
    if (!isObjectKey(key) || !contentType) throw new ApiError('not_found', 'No file is stored at this address.');
    const etag = `"${key}"`;
    // A request that carried a credential (a token, an SDK key) is answered for it alone: no shared cache keeps it.
    const credentialed = request.headers.has('authorization') || request.headers.has('x-api-key');
    const common = {
      'Cache-Control': credentialed ? CACHE.replace('public', 'private') : CACHE,
      ETag: etag,
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'Accept-Ranges': 'bytes',
    };
    if (
      request.headers
        .get('if-none-match')
        ?.split(',')
        .some((t) => t.trim() === etag)
    )
      return new Response(null, { status: 304, headers: common });
    let object;
    try {
      object = await services.storage.get(key, byteRange(request.headers.get('range')));
    } catch (err) {
      if (!(err instanceof RangeNotSatisfiable)) throw err;
      // An error, so not cached as the file is (the kernel stores only answers under 400).
      throw new ApiError('range_not_satisfiable', `The range starts past the file's end: it has ${err.size} bytes.`, {
        'Accept-Ranges': 'bytes',
        'Content-Range': `bytes */${err.size}`,
      });
    }
    if (!object || object.contentType !== contentType) {
      if (object?.body instanceof ReadableStream) await object.body.cancel();
      throw new ApiError('not_found', 'No file is stored at this address.');
    }
    const { size, range } = object;
    // A HEAD answer has no body: let go of the stored one unread.
    if (request.method === 'HEAD' && object.body instanceof ReadableStream) await object.body.cancel();
    const body = request.method === 'HEAD' ? null : object.body;
    const headers = { ...common, 'Content-Type': contentType };
    if (!range) return new Response(body as BodyInit, { status: 200, headers: { ...headers, 'Content-Length': String(size) } });
    return new Response(body as BodyInit, {
      status: 206,
      headers: { ...headers, 'Content-Length': String(range.end - range.start + 1), 'Content-Range': `bytes ${range.start}-${range.end}/${size}` },
    });
  },
});
