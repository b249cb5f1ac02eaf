import { z } from 'zod';
import { sha256Hex } from '../../platform/crypto';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { ApiError } from '../../platform/http/errors';
import { usdToMicro } from '../../platform/kit/micro';
import {
  CONVERSION_REASONS,
  CONVERSION_STATUSES,
  conversionBody,
  type ConversionBody,
  type ConversionRequest,
  type ConversionTagRequest,
} from '../../schemas/conversions';
import { clickIdKey, verifyClickId } from './click-id';
import { CONVERSION_KEY_PATTERN, hashConversionKey } from './keys';

/**
 * Recording a conversion (migration 20261221000000_conversions): from the advertiser's server with
 * a conversions key (`POST /functions/v1/conversions`), or from its pages with its public tag id
 * (`/functions/v1/conversions/tag`). Here: who sends it, and whether the click id is one we
 * signed; public.conversion_record decides the rest in one statement (the click counted, the
 * advertiser's own, within the campaign's window, once per event id, once per click and name) and
 * counts a valid one in its campaign's daily figures. Nothing about the person is kept.
 */

/** The advertiser a conversions key authenticates. A revoked key is still named: its conversion is kept as invalid. */
export interface ConversionPrincipal {
  kind: 'advertiser';
  advertiserId: string;
  keyId: string;
  revoked: boolean;
}

export interface ConversionServices {
  database(): Promise<Database>;
  sdkSecret(): Promise<Buffer>;
  now(): number;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

const keyRow = z.object({ id: z.string(), advertiser_id: z.string(), revoked: z.boolean() });

/**
 * The advertiser of the request's conversions key, sent as `Authorization: Bearer ck_live_…` from
 * a server: a 401 `invalid_token` when it is missing, malformed or unknown, a 403 `forbidden` from a
 * web page (a request with `Origin`: the key is a secret). A revoked key is answered by the handler,
 * after its conversion is kept as invalid.
 */
export async function authenticateConversionKey(request: { headers: Headers }, services: { database(): Promise<Database> }): Promise<ConversionPrincipal> {
  const header = request.headers.get('authorization');
  if (header === null) {
    throw new ApiError(
      'invalid_token',
      'A conversions key is required: send it from your server as Authorization: Bearer ck_live_… (made in the advertiser console, under Conversions).',
    );
  }
  const key = BEARER.exec(header)?.[1];
  if (!key || !CONVERSION_KEY_PATTERN.test(key)) {
    throw new ApiError('invalid_token', 'The Authorization header does not hold a conversions key: send Bearer ck_live_ followed by 32 letters and digits.');
  }
  if (request.headers.has('origin')) {
    throw new ApiError(
      'forbidden',
      'A conversions key is a secret of your server: never send it from a web page. Pages report conversions with the conversion tag, which needs no key.',
    );
  }
  const [row] = await asService(await services.database()).query(
    sql`select id, advertiser_id, revoked_at is not null as revoked from public.conversion_keys where key_hash = ${hashConversionKey(key)}`,
    keyRow,
  );
  if (!row) {
    throw new ApiError('invalid_token', 'Unknown conversions key: check the key your server sends, or make one in the advertiser console.');
  }
  return { kind: 'advertiser', advertiserId: row.advertiser_id, keyId: row.id, revoked: row.revoked };
}

const outcomeRow = z.object({
  outcome: z.enum(CONVERSION_STATUSES),
  reason: z.enum(CONVERSION_REASONS).nullable(),
  conversion_id: z.string(),
});

interface Reported {
  advertiserId: string;
  source: 'api' | 'tag';
  keyId: string | null;
  keyRevoked: boolean;
  eventId: string;
  clickId: string;
  name: string;
  valueUsd: number | undefined;
  /** Null: now, on the database's clock (the tag's). */
  occurredAt: string | null;
}

async function record(reported: Reported, services: ConversionServices): Promise<ConversionBody> {
  const decision = verifyClickId(clickIdKey(await services.sdkSecret()), reported.clickId);
  const [row] = await asService(await services.database()).query(
    sql`select outcome, reason, conversion_id from public.conversion_record(
          ${reported.advertiserId}::uuid, ${reported.source}, ${reported.keyId}::uuid, ${reported.keyRevoked}, ${reported.eventId},
          ${decision}::uuid, ${decision !== null}, ${reported.name}, ${usdToMicro(reported.valueUsd ?? 0)}::bigint,
          ${reported.occurredAt}::timestamptz)`,
    outcomeRow,
  );
  if (!row) throw new Error('public.conversion_record answered nothing');
  return conversionBody.parse({ conversion: { id: row.conversion_id, event_id: reported.eventId, status: row.outcome, reason: row.reason } });
}

/** `POST /functions/v1/conversions`: a conversion from the advertiser's server. */
export async function recordConversion(principal: ConversionPrincipal, body: ConversionRequest, services: ConversionServices): Promise<ConversionBody> {
  const answer = await record(
    {
      advertiserId: principal.advertiserId,
      source: 'api',
      keyId: principal.keyId,
      keyRevoked: principal.revoked,
      eventId: body.event_id,
      clickId: body.click_id,
      name: body.name,
      valueUsd: body.value_usd,
      occurredAt: body.occurred_at,
    },
    services,
  );
  if (principal.revoked) {
    throw new ApiError(
      'forbidden',
      'This conversions key has been revoked: the conversion was kept as invalid (revoked_key). Make a new key in the advertiser console.',
    );
  }
  return answer;
}

const tagRow = z.object({ advertiser_id: z.string() });

/**
 * The id a conversion from the tag is kept under. The tag's ids are kept apart from the server's
 * (`tag:` before them): anyone can send the tag, and an id it sent must never take one the
 * advertiser's server will send. Without an id: one per click and name, so a thank-you page opened
 * again counts nothing more.
 */
export function tagEventId(clickId: string, name: string, given?: string): string {
  return given ? `tag:${given}` : `tag:${sha256Hex(`${clickId}\n${name}`).slice(0, 32)}`;
}

/** `/functions/v1/conversions/tag`: a conversion from the advertiser's page, named by its public tag id. */
export async function recordTagConversion(body: ConversionTagRequest, services: ConversionServices): Promise<ConversionBody> {
  const [tag] = await asService(await services.database()).query(sql`select advertiser_id from public.conversion_tags where tag = ${body.tag}`, tagRow);
  if (!tag) throw new ApiError('not_found', 'Unknown conversion tag: copy the tag again from the advertiser console, under Conversions.');
  return record(
    {
      advertiserId: tag.advertiser_id,
      source: 'tag',
      keyId: null,
      keyRevoked: false,
      eventId: tagEventId(body.click_id, body.name, body.event_id),
      clickId: body.click_id,
      name: body.name,
      valueUsd: body.value_usd,
      occurredAt: null,
    },
    services,
  );
}
