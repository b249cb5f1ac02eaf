import { z } from 'zod';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { ApiError } from '../../platform/http/errors';
import { issuer } from '../../identity/oauth/resources';
import { VIEWABILITY_RULES, type AdBody } from '../../schemas/sdk';
import type { PlacementFormat } from '../../schemas/account';
import { asApp } from '../../identity/keys/access';
import type { AppPrincipal } from '../../identity/keys/directory';
import { DECISION_TOKEN_TTL_SECONDS, signDecisionToken } from './tokens';
import { clientHash, networkHash } from '../../platform/http/client-ip';
import { env } from '../../platform/env';

/**
 * `GET /functions/v1/ads`: one ad for one placement of the key's app, or nothing.
 *
 * The decision is `public.sdk_serve_ad` (supabase/schemas/functions/public.sdk_serve_ad.sql), run as the app's SDK role in
 * one round trip: the placement (another app's is invisible, so it is a 404 here), the eligible
 * creatives of its format (campaign active and running, paced budget left today counting the ads
 * it has served and not yet billed, under the frequency cap of the client's network), one draw weighted by
 * budget, and the decision row, written whether or not anything filled, so that every request
 * counts in the fill rate. The decision remembers who asked (`clientHash`): its impression is
 * billable only from that client. It also remembers the client's network (`networkHash`), which
 * the frequency cap counts by, whatever user agent is sent, with an allowance for a network that
 * several people share (`SDK_NETWORK_FREQUENCY_FACTOR` times the campaign's cap). Paused and
 * archived placements never fill.
 */

export interface AdRequest {
  placementId: string;
  sessionId?: string;
  keywords: readonly string[];
}

const served = z.object({
  found: z.boolean(),
  decision_id: z.string().nullable(),
  format: z.string().nullable(),
  creative_id: z.string().nullable(),
  advertiser: z.string().nullable(),
  headline: z.string().nullable(),
  body: z.string().nullable(),
  cta: z.string().nullable(),
  image_url: z.string().nullable(),
  video_url: z.string().nullable(),
});

export interface AdServices {
  database(): Promise<Database>;
  sdkSecret(): Promise<Buffer>;
  now(): number;
}

/** The ad, or null when nothing fills; throws the 404 of a placement the app does not have. */
export async function serveAd(
  app: AppPrincipal,
  request: AdRequest,
  client: { headers: Headers; clientIp: string },
  services: AdServices,
): Promise<AdBody | null> {
  const key = await services.sdkSecret();
  const asker = clientHash(key, client.clientIp, client.headers.get('user-agent'));
  const network = networkHash(key, client.clientIp);
  const call = sql`select * from public.sdk_serve_ad(${request.placementId}::uuid, ${request.sessionId}, ${request.keywords}::text[], ${app.keyId}::uuid, ${asker},
    ${network}, ${env().SDK_NETWORK_FREQUENCY_FACTOR}::integer)`;
  const rows = await asApp(await services.database(), app).query(call);
  const row = served.parse(rows[0]);
  if (!row.found) throw new ApiError('not_found', 'No placement with this id belongs to the app of this key.');
  if (!row.creative_id) return null;
  const expiresAt = Math.floor(services.now() / 1000) + DECISION_TOKEN_TTL_SECONDS;
  const token = signDecisionToken(key, { decisionId: row.decision_id!, appId: app.appId, expiresAt });
  const format = row.format as PlacementFormat;
  return {
    decision_id: row.decision_id!,
    placement_id: request.placementId,
    format,
    ad: {
      id: row.creative_id,
      advertiser: row.advertiser!,
      headline: row.headline!,
      body: row.body!,
      cta: row.cta!,
      image_url: absolute(row.image_url),
      video_url: absolute(row.video_url),
      label: 'Sponsored',
    },
    click_url: `${issuer()}/functions/v1/click?token=${encodeURIComponent(token)}`,
    token,
    expires_at: new Date(expiresAt * 1000).toISOString(),
    viewability: viewabilityRule(format),
  };
}

/**
 * The Media Rating Council's rule for the format: 50% for 1 s, or 50% for 2 s of video; a
 * sponsored card of 242,500 px or more needs 30%. Text formats are never that large: their area
 * is no evidence (public.sdk_viewable).
 */
export function viewabilityRule(format: PlacementFormat): AdBody['viewability'] {
  if (format === 'floating_video') return { ...VIEWABILITY_RULES.video };
  if (format === 'sponsored_card') return { ...VIEWABILITY_RULES.display, large_ad: { ...VIEWABILITY_RULES.large_display } };
  return { ...VIEWABILITY_RULES.display };
}

/** Media of the demo advertisers are paths on this service. */
function absolute(url: string | null): string | null {
  return url?.startsWith('/') ? `${issuer()}${url}` : url;
}
