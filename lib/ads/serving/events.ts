import { z } from 'zod';
import type { Database } from '../../platform/db/roles';
import { sql, type Sql } from '../../platform/db/sql';
import { ApiError } from '../../platform/http/errors';
import { EVENT_REASONS, EVENT_STATUSES, type EventsBody, type EventsRequest } from '../../schemas/sdk';
import { asApp } from '../../identity/keys/access';
import { checkOrigin, type AppPrincipal, type SdkApp, type SdkDirectory } from '../../identity/keys/directory';
import { DECISION_TOKEN_TTL_SECONDS, verifyDecisionToken, type DecisionTokenCheck } from './tokens';
import { addressHash, clientHash, networkHash } from '../../platform/http/client-ip';
import type { RateLimiter } from '../../platform/http/rate-limit';
import { isKnownBot } from './traffic';

/**
 * `POST /functions/v1/events`: a batch of impressions and clicks, each with its own id and the
 * token of the ad it is about (content/docs/sdk-integration.md, Counting rules).
 *
 * Here: the tokens. Each must be one we signed, unexpired, of one app: the key's, or without a key
 * (a beacon) the app of the batch's first good token, whose origin rule then applies. An event
 * whose token fails is `rejected` and recorded nowhere. The rest go to `public.sdk_record_events`
 * in one round trip, as the app's SDK role, which applies the rules about the ad itself and
 * answers each event `recorded`, `duplicate` or `invalid` with its reason. Every reason, in the
 * order the checks run and with who checks it, is EVENT_REASON_CHECKS (lib/schemas/sdk.ts).
 *
 * A hide may come long after its ad: a chat keeps an answer, and its ad, on screen for hours. Its
 * token is good for HIDE_WITHIN_DAYS after the ad was served, as long as its decision is kept
 * (public.roll_up_ad_traffic), rather than the hour of an impression's.
 */

/** How long after its ad a hide is taken: the 35 days the ad's decision is kept. */
export const HIDE_WITHIN_DAYS = 35;

/** An event's token, checked: a hide's within HIDE_WITHIN_DAYS of its ad, any other's within its hour. */
function checkToken(key: Buffer, event: EventsRequest['events'][number], now: number): DecisionTokenCheck {
  const check = verifyDecisionToken(key, event.token, now);
  if (event.type !== 'hide' || check.ok || check.reason !== 'expired_token' || !check.claims) return check;
  const servedAt = (check.claims.expiresAt - DECISION_TOKEN_TTL_SECONDS) * 1000;
  return now < servedAt + HIDE_WITHIN_DAYS * 86_400_000 ? { ok: true, claims: check.claims } : check;
}

export interface EventServices {
  database(): Promise<Database>;
  sdkSecret(): Promise<Buffer>;
  now(): number;
  readonly sdkDirectory: SdkDirectory;
  readonly impressionLimits: ImpressionLimits;
}

/**
 * The hourly caps on billable impressions (content/docs/sdk-integration.md, Counting rules): per
 * network and publisher (`SDK_NETWORK_IMPRESSIONS_PER_HOUR`), and per publisher
 * (`SDK_PUBLISHER_IMPRESSIONS_PER_HOUR`). Per network (`networkHash`: the /24 or /64), not per
 * network and user agent: the user agent is whatever the caller sends, and one address naming a
 * new one per ad had a new budget per ad. Counted as the rate limits are, in this process or in
 * Upstash for every instance, and not in PostgreSQL: a counter row every batch of a publisher
 * updates would make its batches wait on each other (ARCHITECTURE.md, Spend checked at billing).
 */
export interface ImpressionLimits {
  network: RateLimiter;
  publisher: RateLimiter;
}

/** Takes up to `wanted` units of `key`'s budget: all when they fit, else what is left. */
async function takeUpTo(limiter: RateLimiter, key: string, wanted: number): Promise<number> {
  if (wanted <= 0) return 0;
  if ((await limiter.consume(key, wanted)).allowed) return wanted;
  const left = Math.min(wanted, (await limiter.consume(key, 0)).remaining);
  return left > 0 && (await limiter.consume(key, left)).allowed ? left : 0;
}

/** How many of a batch's impressions the hourly caps allow, and how to give back what was not billed. */
async function allowImpressions(limits: ImpressionLimits, publisher: string, network: string, impressions: number) {
  const networkKey = `${publisher}:${network}`;
  const fromNetwork = await takeUpTo(limits.network, networkKey, impressions);
  const forPublisher = await takeUpTo(limits.publisher, publisher, fromNetwork);
  return {
    /** What the network's cap allows (`client_limit` past it, as the API has always named it). */
    client: fromNetwork,
    publisher: forPublisher,
    /** The caps count billed impressions: what was taken and not billed goes back. */
    async settle(billed: number): Promise<void> {
      if (fromNetwork > billed) await limits.network.refund(networkKey, fromNetwork - billed);
      if (forPublisher > billed) await limits.publisher.refund(publisher, forPublisher - billed);
    },
  };
}

export interface EventsCall {
  /** The key's app, or null for a request without `x-api-key`. */
  principal: AppPrincipal | null;
  headers: Headers;
  clientIp: string;
}

type Result = EventsBody['results'][number];

/**
 * Who sends events, as the rules know them: its address, its network and browser (`clientHash`:
 * an impression counts only from the client its ad was served to), its network alone
 * (`networkHash`: what the hourly cap counts by), hashed with the service's key, and whether it
 * says it is a robot. Made once per request.
 */
export interface Sender {
  address: string;
  client: string;
  network: string;
  bot: boolean;
}

export function senderOfEvents(key: Buffer, call: { headers: Headers; clientIp: string }): Sender {
  const userAgent = call.headers.get('user-agent');
  return {
    address: addressHash(key, call.clientIp),
    client: clientHash(key, call.clientIp, userAgent),
    network: networkHash(key, call.clientIp),
    bot: isKnownBot(userAgent),
  };
}

/**
 * The statement that records `events` (the rows `public.sdk_record_events` takes) from `sender`,
 * with how many impressions the hourly caps allow.
 */
export function recordEventsCall(
  events: Record<string, unknown>[],
  sender: Sender,
  allowed: { client: number; publisher: number } = { client: 0, publisher: 0 },
): Sql {
  return sql`select * from public.sdk_record_events(${JSON.stringify(events)}::jsonb, ${sender.address}, ${sender.client}, ${sender.bot},
    ${allowed.client}, ${allowed.publisher})`;
}

const recordedRow = z.object({ n: z.number().int(), outcome: z.enum(EVENT_STATUSES), reason: z.enum(EVENT_REASONS).nullable() });

export async function recordEvents(request: EventsRequest, call: EventsCall, services: EventServices): Promise<EventsBody> {
  const key = await services.sdkSecret();
  const now = services.now();
  const checks: DecisionTokenCheck[] = request.events.map((e) => checkToken(key, e, now));

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
    const impressions = toRecord.filter((e) => e.kind === 'impression').length;
    const sender = senderOfEvents(key, call);
    const allowed = await allowImpressions(services.impressionLimits, app.userId, sender.network, impressions);
    let billed = 0;
    try {
      const recorded = await asApp(await services.database(), app).query(recordEventsCall(toRecord, sender, allowed));
      const rows = recorded.map((r) => recordedRow.parse(r));
      // The function answers in its own order (impressions first), each row with its position.
      for (const row of rows) {
        results[row.n] = { id: request.events[row.n]!.id, status: row.outcome, ...(row.reason ? { reason: row.reason } : {}) };
        if (row.outcome === 'recorded' && request.events[row.n]!.type === 'impression') billed++;
      }
    } finally {
      await allowed.settle(billed);
    }
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
