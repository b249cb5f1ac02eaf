import { z } from 'zod';
import { ApiError } from '../../platform/http/errors';
import { sql } from '../../platform/db/sql';
import { asApp } from '../../identity/keys/access';
import { recordEventsCall, senderOfEvents, type EventServices } from './events';
import { verifyDecisionToken } from './tokens';
import { clickIdKey, signClickId, withClickId } from '../conversions/click-id';

/**
 * `GET /functions/v1/click?token=…`, an ad's click URL: records the click and answers where to
 * send the browser, which is the landing URL of the creative the decision served, read from the
 * database, and never anything the request says (no open redirect).
 *
 * The token authenticates the click. The click is recorded under the id `redirect:<decision>`,
 * so opening the link again is a duplicate, and by the same rules as `POST /functions/v1/events`
 * (after its impression, once per address and ad in 3 hours). An expired token, or an app
 * archived since, still redirects, without recording anything: the person wanted the page.
 *
 * The landing URL gains the click's id, `mclid` (../conversions/click-id.ts), which the
 * advertiser sends back with a conversion: whether the click counted is decided then, from the
 * decision, so opening the link again lands with the same id.
 */

const landing = z.object({ landing_url: z.string() });

export async function followClick(token: string, call: { headers: Headers; clientIp: string }, services: EventServices): Promise<string> {
  const key = await services.sdkSecret();
  const check = verifyDecisionToken(key, token, services.now());
  if (!check.ok && check.reason === 'invalid_token') throw new ApiError('not_found', 'This ad link is not valid: it was not made by this service.');
  const claims = check.claims!;
  const app = await services.sdkDirectory.app(() => services.database(), claims.appId);
  if (!app) throw new ApiError('not_found', 'The ad of this link no longer exists.');

  const find = sql`select cr.landing_url from public.ad_decisions d join public.creatives cr on cr.id = d.creative_id where d.id = ${claims.decisionId}::uuid`;
  const statements = [find];
  if (check.ok && !app.archived) {
    const event = { n: 0, id: `redirect:${claims.decisionId}`, kind: 'click', decision_id: claims.decisionId };
    statements.push(recordEventsCall([event], senderOfEvents(key, call)));
  }
  const [found] = await asApp(await services.database(), app).script(...statements);
  const row = found?.[0];
  if (!row) throw new ApiError('not_found', 'The ad of this link no longer exists.');
  return withClickId(landing.parse(row).landing_url, signClickId(clickIdKey(key), claims.decisionId));
}
