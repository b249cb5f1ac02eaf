import { json } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';
import { recordConversion, recordTagConversion } from '../ads/conversions/record';

/**
 * What advertisers send back (`/functions/v1/conversions*`): a conversion from their server, with
 * a conversions key, or from their pages, with the conversion tag. The work is in
 * lib/ads/conversions/.
 */

/** A 1×1 transparent GIF: what an image tag is answered. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** POST /functions/v1/conversions: from the advertiser's server. */
export const conversionsRoute = defineRoute(ROUTES['/functions/v1/conversions'], {
  POST: async ({ principal, body, services }) => json(await recordConversion(principal, body, services)),
});

/** /functions/v1/conversions/tag: from the advertiser's pages, by script (POST) or image (GET). */
export const conversionTagRoute = defineRoute(ROUTES['/functions/v1/conversions/tag'], {
  POST: async ({ body, services }) => json(await recordTagConversion(body, services)),
  GET: async ({ query, services }) => {
    await recordTagConversion(query, services);
    return new Response(new Uint8Array(PIXEL), { status: 200, headers: { 'content-type': 'image/gif', 'content-length': String(PIXEL.length) } });
  },
});
