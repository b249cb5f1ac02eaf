import { z } from 'zod';
import type { Database } from '../platform/db/roles';
import { sql, type Sql } from '../platform/db/sql';
import { ApiError } from '../platform/http/errors';
import { EVENT_REASONS, EVENT_STATUSES, type EventsBody, type EventsRequest } from '../schemas/sdk';
import { asApp } from './access';
import { checkOrigin, type AppPrincipal, type SdkApp, type SdkDirectory } from './keys';
import { verifyDecisionToken, type DecisionTokenCheck } from './tokens';
import { addressHash, clientHash } from '../platform/http/client-ip';
import { env } from '../platform/env';
import { isKnownBot } from './traffic';

/**
 * `POST /functions/v1/events`: a batch of impressions and clicks, each with its own id and the
 * token of the ad it is about (content/docs/sdk-integration.md, Counting rules).
 *
 * Here: the tokens. Each must be one we signed, unexpired, of one app: the key's, or without a key
 * (a beacon) the app of the batch's first good token, whose origin rule then applies. An event
 * whose token fails is `rejected` and recorded nowhere. The rest go to `public.sdk_record_events`
 * in one round trip, as the app's SDK role, which applies the rules about the ad itself and
 * answers each event `recorded`, `duplicate` or `invalid` with its reason.
 */

export interface EventServices {
  database(): Promise<Database>;
  sdkSecret(): Promise<Buffer>;
  now(): number;
  readonly sdkDirectory: SdkDirectory;
}

export interface EventsCall {
  /** The key's app, or null for a request without `x-api-key`. */
  principal: AppPrincipal | null;
  headers: Headers;
  clientIp: string;
}

type Result = EventsBody['results'][number];

/**
 * The statement that records `events` (the rows `public.sdk_record_events` takes) as sent by this
 * client: its address, and its network and browser, hashed with the service's key (an impression
 * counts only from the client its ad was served to), whether it says it is a robot, and the
 * hourly caps on billable impressions.
 */
export function recordEventsCall(events: Record<string, unknown>[], key: Buffer, client: { headers: Headers; clientIp: string }): Sql {
  const userAgent = client.headers.get('user-agent');
  const { SDK_CLIENT_IMPRESSIONS_PER_HOUR, SDK_PUBLISHER_IMPRESSIONS_PER_HOUR } = env();
  return sql`select * from public.sdk_record_events(${JSON.stringify(events)}::jsonb, ${addressHash(key, client.clientIp)},
    ${clientHash(key, client.clientIp, userAgent)}, ${isKnownBot(userAgent)}, ${SDK_CLIENT_IMPRESSIONS_PER_HOUR}, ${SDK_PUBLISHER_IMPRESSIONS_PER_HOUR})`;
}

const recordedRow = z.object({ n: z.number().int(), outcome: z.enum(EVENT_STATUSES), reason: z.enum(EVENT_REASONS).nullable() });

export async function recordEvents(request: EventsRequest, call: EventsCall, services: EventServices): Promise<EventsBody> {
  const key = await services.sdkSecret();
  const now = services.now();
  const checks: DecisionTokenCheck[] = request.events.map((e) => verifyDecisionToken(key, e.token, now));

  const appId = call.principal?.appId ?? checks.find((c) => c.ok)?.claims.appId;
  let app: SdkApp | undefined = call.principal ?? undefined;
  if (!app && appId) {
    app = await services.sdkDirectory.app(() => services.database(), appId);
    if (app?.archived) throw new ApiError('forbidden', 'The app of these ads has been archived: its events are no longer recorded.');
    // The key's origin was checked with the key; a beacon's is checked against its tokens' app.
    if (app) checkOrigin(app, call.headers);
  }

  const results: Result[] = request.events.map((e) => ({ id: e.id, status: 'rejected' }));
  const toRecord: Record<string, unknown>[] = [];
  request.events.forEach((event, n) => {
    const check = checks[n]!;
    if (!check.ok) {
      results[n]!.reason = check.reason;
      return;
    }
    if (!app || check.claims.appId !== app.appId) {
      results[n]!.reason = 'wrong_app';
      return;
    }
    toRecord.push({
      n,
      id: event.id,
      kind: event.type,
      decision_id: check.claims.decisionId,
      visible_share: event.viewability?.visible_share ?? null,
      visible_seconds: event.viewability?.visible_seconds ?? null,
      area_px: event.viewability?.area_px ?? null,
    });
  });

  if (app && toRecord.length > 0) {
    const recorded = await asApp(await services.database(), app).query(recordEventsCall(toRecord, key, call));
    const rows = recorded.map((r) => recordedRow.parse(r));
    // The function answers in its own order (impressions first), each row with its position.
    for (const row of rows) results[row.n] = { id: request.events[row.n]!.id, status: row.outcome, ...(row.reason ? { reason: row.reason } : {}) };
  }

  const count = (status: Result['status']) => results.filter((r) => r.status === status).length;
  return {
    received: results.length,
    recorded: count('recorded'),
    duplicates: count('duplicate'),
    invalid: count('invalid'),
    rejected: count('rejected'),
    results,
  };
}
