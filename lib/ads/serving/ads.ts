import { z } from 'zod';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { ApiError } from '../../platform/http/errors';
import { issuer } from '../../identity/oauth/resources';
import { NO_FILL_REASONS, VIEWABILITY_RULES, type AdBody, type NoFillReason } from '../../schemas/sdk';
import type { PlacementFormat } from '../../schemas/account';
import { asApp } from '../../identity/keys/access';
import type { AppPrincipal } from '../../identity/keys/directory';
import { DECISION_TOKEN_TTL_SECONDS, signDecisionToken } from './tokens';
import { clientHash, networkHash, normalizeIp } from '../../platform/http/client-ip';
import { env } from '../../platform/env';
import { readConversation, type ContextMessage } from '../relevance/conversation';
import { verdict } from '../relevance/decide';
import type { Relevant } from '../relevance/market';
import { readMarket } from './market';
import type { MarketCache } from './market-cache';
import { servedCreative } from './creative';

/**
 * `GET` and `POST /functions/v1/ads`: one ad for one placement of the key's app, or nothing and
 * why (`No-Fill-Reason`).
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
 * archived placements never fill; campaigns the app blocked never fill it.
 *
 * With a conversation (the `POST`), it is read here first, against the market kept in memory
 * (./market.ts): a sensitive one, or one naming a topic the app excluded, gets no ad; otherwise
 * the campaigns that fit go to the decision as ids, relevances and matched hints, with the
 * market's version, and the draw is among those at the placement's `min_relevance`, by budget
 * times relevance². The text goes no further than this function.
 */

export interface AdRequest {
  placementId: string;
  sessionId?: string;
  keywords: readonly string[];
  /** The conversation the ad will sit beside (POST): read for this decision only, never kept. */
  context?: { messages: readonly ContextMessage[] };
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
  no_fill_reason: z.enum(NO_FILL_REASONS).nullable(),
  relevance: z.coerce.number().nullable(),
  matched_hints: z.array(z.string()).nullable(),
  stale: z.boolean(),
});
type Served = z.output<typeof served>;

export interface AdServices {
  database(): Promise<Database>;
  sdkSecret(): Promise<Buffer>;
  now(): number;
  readonly caches: { readonly adMarket: MarketCache };
}

/** The ad, or why nothing fills; throws the 404 of a placement the app does not have. */
export type AdAnswer = { ad: AdBody } | { ad: null; reason: NoFillReason };

/** How many times a request reads a market that moved under it before it gives up (503): each read is of the newest. */
const MARKET_READS = 3;

/** The end user's client an ad is decided for: its address and its `User-Agent`. */
export interface AskingClient {
  ip: string;
  userAgent: string | null;
}

/**
 * Who the ad is for. A browser or an app asking with its publishable key is the client itself. An
 * app's server asking with its server key names the end user's client (`client` in the body),
 * and must: the decision is bound to that client as if its browser had asked, so the ad's
 * impression counts only from it, and its network's frequency caps count the ad. A publishable
 * key cannot name one: anyone can read it in a page, and a page cannot speak for another client.
 */
export function askingClient(app: Pick<AppPrincipal, 'keyKind'>, named: { ip: string; user_agent: string } | undefined, sender: AskingClient): AskingClient {
  if (app.keyKind === 'server') {
    if (!named) {
      throw new ApiError(
        'invalid_request',
        "A request with a server key names the end user's client: send client.ip and client.user_agent as your server received them, so that the ad's impression can count when their browser sends it.",
      );
    }
    return { ip: normalizeIp(named.ip), userAgent: named.user_agent };
  }
  if (named) {
    throw new ApiError(
      'forbidden',
      "Only a server key may name the client: with a publishable key the client is whoever sends the request. Leave out client, or ask from your server with the app's server key.",
    );
  }
  return sender;
}

/** The ad, or why nothing fills (module comment); throws the 404 of a placement the app does not have. */
export async function serveAd(app: AppPrincipal, request: AdRequest, client: AskingClient, services: AdServices): Promise<AdAnswer> {
  const key = await services.sdkSecret();
  const asker = clientHash(key, client.ip, client.userAgent);
  const network = networkHash(key, client.ip);
  const session = asApp(await services.database(), app);
  const decide = async (context: ContextArguments) => {
    const call = sql`select * from public.sdk_serve_ad(${request.placementId}::uuid, ${request.sessionId}, ${request.keywords}::text[], ${app.keyId}::uuid,
      ${asker}, ${network}, ${env().SDK_NETWORK_FREQUENCY_FACTOR}::integer, ${context.version}::bigint, ${context.verdict}, ${context.candidates}::uuid[],
      ${context.relevance}::numeric[], ${context.matched}::jsonb)`;
    return served.parse((await session.query(call))[0]);
  };
  let row: Served;
  if (!request.context) {
    row = await decide(NO_CONTEXT);
  } else {
    // The conversation is read here, once, for this decision, and dropped with the request.
    const conversation = readConversation(request.context.messages);
    for (let reads = 1; ; reads++) {
      const at = await services.caches.adMarket.get(async () => readMarket(await services.database()));
      // Only figures and the advertisers' own hints go on from here. A sensitive conversation
      // gets no ad whatever the market: no version to check.
      const v = verdict(conversation, at.market(), app.appId);
      row = await decide(
        v.ok
          ? { version: at.version, verdict: null, ...candidates(v.fits) }
          : { ...NO_CONTEXT, version: v.reason === 'sensitive' ? null : at.version, verdict: v.reason },
      );
      if (!row.stale) break;
      services.caches.adMarket.stale(at.version);
      if (reads === MARKET_READS) throw new ApiError('unavailable', 'The campaigns changed while this request was decided; try again.', { 'retry-after': '1' });
    }
  }
  if (!row.found) throw new ApiError('not_found', 'No placement with this id belongs to the app of this key.');
  if (!row.creative_id) return { ad: null, reason: row.no_fill_reason ?? 'no_eligible_campaign' };
  const expiresAt = Math.floor(services.now() / 1000) + DECISION_TOKEN_TTL_SECONDS;
  const token = signDecisionToken(key, { decisionId: row.decision_id!, appId: app.appId, expiresAt });
  const format = row.format as PlacementFormat;
  return {
    ad: {
      decision_id: row.decision_id!,
      placement_id: request.placementId,
      format,
      ad: servedCreative(format, {
        id: row.creative_id,
        advertiser: row.advertiser!,
        headline: row.headline!,
        body: row.body!,
        cta: row.cta!,
        image_url: absolute(row.image_url),
        video_url: absolute(row.video_url),
      }),
      click_url: `${issuer()}/functions/v1/click?token=${encodeURIComponent(token)}`,
      token,
      expires_at: new Date(expiresAt * 1000).toISOString(),
      viewability: viewabilityRule(format),
      ...(row.relevance === null ? {} : { relevance: row.relevance, why: { matched: row.matched_hints ?? [] } }),
    },
  };
}

/** What the decision is told of a conversation: never its text. */
interface ContextArguments {
  version: number | null;
  verdict: 'sensitive' | 'blocked' | null;
  candidates: string[] | null;
  relevance: string[] | null;
  matched: string | null;
}

const NO_CONTEXT: ContextArguments = { version: null, verdict: null, candidates: null, relevance: null, matched: null };

/** The campaigns that fit at all, as the decision's arrays, in step. */
function candidates(fits: readonly Relevant[]): Pick<ContextArguments, 'candidates' | 'relevance' | 'matched'> {
  return { candidates: fits.map((f) => f.id), relevance: fits.map((f) => f.relevance.toFixed(3)), matched: JSON.stringify(fits.map((f) => f.matched)) };
}

/**
 * The Media Rating Council's rule for the format: 50% for 1 s, or 50% for 2 s of video; a
 * sponsored card of 242,500 px or more needs 30%. Text formats are never that large: their area
 * is no evidence (public.sdk_viewable). A sponsored follow-up is one short question: all of it,
 * for 1 s.
 */
export function viewabilityRule(format: PlacementFormat): AdBody['viewability'] {
  if (format === 'floating_video') return { ...VIEWABILITY_RULES.video };
  if (format === 'sponsored_card') return { ...VIEWABILITY_RULES.display, large_ad: { ...VIEWABILITY_RULES.large_display } };
  if (format === 'sponsored_follow_up') return { ...VIEWABILITY_RULES.whole_text };
  return { ...VIEWABILITY_RULES.display };
}

/** Media of the demo advertisers are paths on this service. */
function absolute(url: string | null): string | null {
  return url?.startsWith('/') ? `${issuer()}${url}` : url;
}
