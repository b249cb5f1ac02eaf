import { z } from 'zod';
import { KEY_ENVIRONMENTS, KEY_KINDS, PLACEMENT_FORMATS } from './account';

/** The SDK surface (`/functions/v1/*`): its answers, as content/docs/sdk-integration.md shows them. */

/** `GET /functions/v1/validate-key`: the key is valid, and this is its app. */
export const validateKeyBody = z.object({
  valid: z.literal(true),
  app: z.object({
    id: z.string(),
    name: z.string(),
  }),
  key: z.object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(KEY_KINDS).describe('`publishable` (sent in `x-api-key`) or `server` (a secret, sent as `Authorization: Bearer` from a server).'),
    environment: z.enum(KEY_ENVIRONMENTS).describe('A label only: both kinds of key serve live traffic.'),
    masked_key: z.string().describe('The prefix and the last 4 characters only.'),
  }),
});

export type ValidateKeyBody = z.output<typeof validateKeyBody>;

// ── Ads ──────────────────────────────────────────────────────────────────────────────────────

/** A client-made id: letters, digits, `-`, `_`, `.` and `:`. */
const clientId = (max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_.:-]+$/, 'use letters, digits and - _ . : only')
    .min(1)
    .max(max);

/** `GET /functions/v1/ads`: which placement, and what the SDK knows of the session and its context. */
export const adsQuery = z.object({
  placement_id: z.uuid({ message: 'a placement id (a UUID) is required' }).describe("The placement to fill, one of the key's app."),
  session_id: clientId(64)
    .min(8)
    .optional()
    .describe('A random id the SDK keeps for the visit (8 to 64 characters). Campaigns cap how often one session sees them.'),
  keywords: z
    .string()
    .max(200)
    .regex(/^[a-z0-9 -]+(,[a-z0-9 -]+)*$/, 'comma-separated words of lowercase letters, digits, spaces and -')
    .optional()
    .transform((v) =>
      v
        ? [
            ...new Set(
              v
                .split(',')
                .map((w) => w.trim())
                .filter(Boolean),
            ),
          ].slice(0, 10)
        : [],
    )
    .describe('Up to 10 comma-separated words about the page or conversation; ads matching them are preferred.'),
});

/** What a conversation sent with an ad request may hold: the latest messages, in all at most this many characters. */
export const CONTEXT_LIMITS = { messages: 6, characters: 4000 } as const;

const contextMessage = z.object({
  role: z.enum(['user', 'assistant']).describe('Who wrote the message: the user or the AI.'),
  content: z.string().min(1, 'a message needs some text').describe('The message as shown, in plain text.'),
});

/**
 * `POST /functions/v1/ads`: the same request as the `GET`, with the conversation the ad will sit
 * beside. The conversation decides this one ad and is dropped: it is never written to the
 * database, a log or a report (content/docs/ad-decision.md).
 */
export const adsRequest = z.object({
  placement_id: adsQuery.shape.placement_id,
  session_id: adsQuery.shape.session_id,
  keywords: z
    .array(z.string().regex(/^[a-z0-9 -]{1,40}$/, 'each keyword: 1 to 40 lowercase letters, digits, spaces and -'))
    .max(10, 'at most 10 keywords')
    .default([])
    .transform((k) => [...new Set(k.map((w) => w.trim()).filter(Boolean))])
    .describe('Up to 10 words about the page or conversation; ads matching them are preferred.'),
  context: z
    .object({
      messages: z
        .array(contextMessage)
        .min(1, 'at least one message')
        .max(CONTEXT_LIMITS.messages, `at most ${CONTEXT_LIMITS.messages} messages: send the latest ones`)
        .refine(
          (m) => m.reduce((n, x) => n + x.content.length, 0) <= CONTEXT_LIMITS.characters,
          `at most ${CONTEXT_LIMITS.characters.toLocaleString('en-US')} characters in all: send the latest messages, or their ends`,
        )
        .describe('The latest messages of the conversation, oldest first.'),
    })
    .optional()
    .describe(
      `The conversation the ad will sit beside: at most ${CONTEXT_LIMITS.messages} messages and ${CONTEXT_LIMITS.characters.toLocaleString('en-US')} characters. With it, only campaigns whose hints fit it at the placement's min_relevance are drawn, and sensitive conversations get no ad.`,
    ),
  client: z
    .object({
      ip: z.union([z.ipv4(), z.ipv6()], "client.ip: the end user's IPv4 or IPv6 address, as your server received it"),
      user_agent: z
        .string("client.user_agent: the end user's User-Agent header, as your server received it")
        .min(1, "client.user_agent: the end user's User-Agent header, as your server received it")
        .max(1000, 'client.user_agent: at most 1,000 characters'),
    })
    .optional()
    .describe(
      "With a server key only, and then required: the end user's client (its address and `User-Agent`), as your server received them. The decision is bound to it as if that browser had asked: the ad's impression counts only when the browser SDK sends it from that client, and the frequency caps count that client's network.",
    ),
});
export type AdsRequest = z.output<typeof adsRequest>;

export const VIEWABILITY_RULES = {
  display: { min_visible_share: 0.5, min_seconds: 1 },
  large_display: { min_visible_share: 0.3, min_seconds: 1, min_area_px: 242_500 },
  video: { min_visible_share: 0.5, min_seconds: 2 },
  whole_text: { min_visible_share: 1, min_seconds: 1 },
} as const;

const viewabilityRule = z.object({
  min_visible_share: z.number().describe("The share of the ad's pixels that must be in view."),
  min_seconds: z.number().describe('For how many continuous seconds (of playback, for video).'),
});

/** `GET /functions/v1/ads` 200: the ad, how to count it, and where its clicks go. */
export const adBody = z.object({
  decision_id: z.string().describe("This ad request's decision: its impression and its click count once."),
  placement_id: z.string(),
  format: z.enum(PLACEMENT_FORMATS),
  ad: z.object({
    id: z.string().describe('The creative.'),
    advertiser: z.string(),
    headline: z.string(),
    body: z.string(),
    cta: z.string().describe("The call to action, for the ad's button or link."),
    image_url: z.string().nullable(),
    video_url: z.string().nullable(),
    label: z.literal('Sponsored').describe('Show it with the ad.'),
    action: z
      .enum(['ask', 'visit'])
      .optional()
      .describe(
        'For a sponsored follow-up only: what a click does. `ask`: the page asks the question in its chat (and sends the click as an event); `visit`: it opens `click_url`.',
      ),
  }),
  click_url: z.string().describe('Open this on a click: it counts the click and redirects to the advertiser.'),
  token: z.string().describe("Send it with the ad's impression and click (POST /functions/v1/events)."),
  expires_at: z.string().describe('Events for this ad are accepted until then.'),
  viewability: viewabilityRule
    .extend({ large_ad: viewabilityRule.extend({ min_area_px: z.number() }).optional() })
    .describe("When the impression may be sent: the Media Rating Council's rule for the format."),
  relevance: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("With a conversation: how well the campaign fits it, 0 to 1 (three decimals), at or above the placement's min_relevance."),
  why: z
    .object({ matched: z.array(z.string()).describe("The advertiser's context hints found in the conversation, those that count most first.") })
    .optional()
    .describe('With a conversation: why this ad, for the "Why this ad?" control.'),
});
export type AdBody = z.output<typeof adBody>;

// ── Events ───────────────────────────────────────────────────────────────────────────────────

/**
 * What an event says of an ad: it was seen (billed), clicked, or hidden by the user ("Hide this
 * ad": counted in both sides' reports, never billed, and the campaign is not shown again to that
 * client on that app for 30 days).
 */
export const EVENT_KINDS = ['impression', 'click', 'hide'] as const;

/**
 * Why an ad request got no ad: the `No-Fill-Reason` header of its 204, kept on its decision and
 * counted per placement and day. The conversation was sensitive; it named a topic the app
 * excluded, or every campaign that fitted is one the app blocked; no campaign fitted at the
 * placement's `min_relevance`; none could fill now (none running for the format, budgets spent,
 * frequency caps reached); or the placement is paused or archived.
 */
export const NO_FILL_REASONS = ['sensitive', 'below_relevance', 'blocked', 'no_eligible_campaign', 'placement_inactive'] as const;
export type NoFillReason = (typeof NO_FILL_REASONS)[number];
export const MAX_EVENTS_PER_BATCH = 100;

const viewability = z.object({
  visible_share: z.number().min(0).max(1).describe("The share of the ad's pixels that was in view."),
  visible_seconds: z.number().min(0).max(86_400).describe('For how many continuous seconds, in a visible and focused tab.'),
  area_px: z.number().int().min(0).max(100_000_000).optional().describe("The ad's size in CSS pixels (width × height)."),
});
export type Viewability = z.output<typeof viewability>;

export const adEvent = z.object({
  id: clientId(100).describe('Your id for the event: sending it again changes nothing.'),
  type: z.enum(EVENT_KINDS).describe('impression (the ad was seen: billed), click, or hide (the user hid the ad: counted, never billed).'),
  token: z.string().min(1).max(300).describe('The token of the ad it is about.'),
  viewability: viewability.optional().describe('For an impression: what the SDK measured.'),
});

/** `POST /functions/v1/events`, as JSON or as the `text/plain` body `navigator.sendBeacon` sends. */
export const eventsRequest = z.object({
  events: z.array(adEvent).min(1).max(MAX_EVENTS_PER_BATCH),
});
export type EventsRequest = z.output<typeof eventsRequest>;

export const EVENT_STATUSES = ['recorded', 'duplicate', 'invalid', 'rejected'] as const;

/**
 * Who decides a reason, for one kind of event:
 * - `token`: Node, from the event's token, before any SQL (lib/ads/serving/tokens.ts and events.ts): the event is `rejected`;
 * - `decision`: public.sdk_record_events, when the token names no ad that was served;
 * - `rule`: public.sdk_event_reason, from the facts of the one event;
 * - `batch`: public.sdk_record_events, among a batch's impressions that passed every rule (the hourly caps, then the budget).
 */
export type EventReasonCheck = 'token' | 'decision' | 'rule' | 'batch';

/**
 * Every reason an event is not counted, in the one order of the checks: an event's reason is the first of these that applies
 * to it. Each with who decides it for an impression and for a click (null: never for that kind). The one list: the API's
 * (`EVENT_REASONS`) is made of it, public.sdk_event_reason checks its `rule`s in this order, and the counting rules of
 * content/docs/sdk-integration.md name them in it; tests/integration/event-reasons.test.ts holds the three to it. A click's
 * 3-hour rule comes last: sdk_record_events looks it up, under a lock, only for a click nothing else refuses. A hide is
 * refused only for its token, a robot, another client than the ad's, or a second hide of one ad: it bills nothing.
 */
export const EVENT_REASON_CHECKS = [
  { reason: 'invalid_token', impression: 'token', click: 'token', hide: 'token' },
  { reason: 'expired_token', impression: 'token', click: 'token', hide: 'token' },
  { reason: 'wrong_app', impression: 'token', click: 'token', hide: 'token' },
  { reason: 'unknown_decision', impression: 'decision', click: 'decision', hide: 'decision' },
  { reason: 'bot', impression: 'rule', click: 'rule', hide: 'rule' },
  { reason: 'other_client', impression: 'rule', click: null, hide: 'rule' },
  { reason: 'too_soon', impression: 'rule', click: null, hide: null },
  { reason: 'too_late', impression: 'rule', click: null, hide: null },
  { reason: 'impossible_evidence', impression: 'rule', click: null, hide: null },
  { reason: 'not_viewable', impression: 'rule', click: null, hide: null },
  { reason: 'already_counted', impression: 'rule', click: 'rule', hide: 'rule' },
  { reason: 'no_impression', impression: null, click: 'rule', hide: null },
  { reason: 'campaign_ended', impression: 'rule', click: 'rule', hide: null },
  { reason: 'client_limit', impression: 'batch', click: null, hide: null },
  { reason: 'publisher_limit', impression: 'batch', click: null, hide: null },
  { reason: 'over_budget', impression: 'batch', click: 'rule', hide: null },
  { reason: 'repeat_click', impression: null, click: 'rule', hide: null },
] as const satisfies readonly ({ reason: string } & Record<(typeof EVENT_KINDS)[number], EventReasonCheck | null>)[];

export const EVENT_REASONS = EVENT_REASON_CHECKS.map((c) => c.reason);
export type EventReason = (typeof EVENT_REASONS)[number];

export const eventsBody = z.object({
  received: z.number().int(),
  recorded: z.number().int().describe('Counted: billed, for impressions.'),
  duplicates: z.number().int().describe('Sent before: nothing changed.'),
  invalid: z.number().int().describe('Recorded as invalid traffic, never billed.'),
  rejected: z.number().int().describe('Refused without being recorded (a token we did not sign, expired, or of another app).'),
  results: z.array(
    z.object({
      id: z.string(),
      status: z.enum(EVENT_STATUSES),
      reason: z.enum(EVENT_REASONS).optional(),
    }),
  ),
});
export type EventsBody = z.output<typeof eventsBody>;

/** `GET /functions/v1/click?token=`: the ad's click URL. */
export const clickQuery = z.object({ token: z.string().min(1).max(300) });

// ── Consented data ───────────────────────────────────────────────────────────────────────────

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL can store: no NUL, and no half of a surrogate pair (JSON carries one, jsonb refuses it). */
export function storable(text: string): boolean {
  return !text.includes('\0') && !LONE_SURROGATE.test(text);
}

/** Whether every string in a JSON value (keys included) is storable. */
function storableJson(value: unknown): boolean {
  if (typeof value === 'string') return storable(value);
  if (Array.isArray(value)) return value.every(storableJson);
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => storable(k) && storableJson(v));
  return true;
}

/** An RFC 3339 time a database can hold: from 1970 to 9999, any offset (stored in UTC). */
const instant = z.iso.datetime({ offset: true }).refine((v) => {
  const year = new Date(v).getUTCFullYear();
  return year >= 1970 && year <= 9999;
}, 'a time from 1970 to 9999');

export const DATA_PURPOSES = ['ai_interactions', 'ux_sessions'] as const;
export const DATA_KINDS = ['ai_interaction', 'ux_session'] as const;
export const PURPOSE_OF_KIND = { ai_interaction: 'ai_interactions', ux_session: 'ux_sessions' } as const;

const subjectId = z.string().regex(/^[0-9a-f]{64}$/, 'a subject id is the SHA-256 of your user id, as 64 lowercase hex digits: never the id or email itself');

/** How far ahead of the service's clock a `consented_at` may be: a device's clock runs a little fast. */
export const CONSENT_CLOCK_SKEW_MINUTES = 5;
/** How far back a `consented_at` may be: a consent is recorded when it is given, or soon after (an app that was offline). */
export const CONSENT_MAX_AGE_DAYS = 30;

/** The `x-consent-proof` header: the proof the subject's first consent answered. */
export const consentProofHeader = z
  .string()
  .regex(/^cp_[A-Za-z0-9_-]{43}$/)
  .describe(
    "The subject's consent proof, as its first consent answered it (`consent_proof`). Required to read, withdraw or change an existing subject's consent and to submit its data; without it, or with a wrong one, the answer is that of a subject without a consent.",
  );

export const consentRequest = z.object({
  subject_id: subjectId,
  purposes: z.array(z.enum(DATA_PURPOSES)).min(1).max(DATA_PURPOSES.length),
  policy_version: z.string().min(1).max(64).refine(storable, 'text without NUL characters').describe('The version of your privacy policy the user agreed to.'),
  consented_at: instant
    .optional()
    .describe(
      `When the user agreed: at most ${CONSENT_MAX_AGE_DAYS} days ago and no later than ${CONSENT_CLOCK_SKEW_MINUTES} minutes after the service's clock; now when left out.`,
    ),
});

export const consentQuery = z.object({ subject_id: subjectId });

export const consentBody = z.object({
  subject_id: z.string().describe('The subject id you sent.'),
  purposes: z.array(z.enum(DATA_PURPOSES)),
  policy_version: z.string(),
  consented_at: z.string(),
  recorded_at: z.string(),
});

/** `POST /functions/v1/consents` 200: the consent, and the proof its owner keeps. */
export const recordedConsentBody = consentBody.extend({
  consent_proof: z
    .string()
    .describe(
      "The subject's consent proof: keep it with the user (the SDK keeps it in the browser's localStorage) and send it in `x-consent-proof` to read, withdraw or change this consent and to submit data. It is made with the subject's first consent and stays the same after; the service keeps only its hash and cannot show it again.",
    ),
});

export const withdrawalBody = z.object({
  subject_id: z.string(),
  withdrawn: z.boolean().describe('False when there was no current consent to withdraw.'),
  deleted_records: z
    .number()
    .int()
    .describe("The subject's records deleted: all of them, sold or not. Data buyers that licensed any are sent a deletion notice."),
});

export const MAX_DATA_RECORDS = 50;
/** The largest `POST /functions/v1/data` body: 50 records of the largest kind, and room for the envelope. */
export const MAX_DATA_BODY_BYTES = 1024 * 1024;
export const MAX_RECORD_BYTES = { ai_interaction: 16 * 1024, ux_session: 20 * 1024 } as const;

const aiInteraction = z.object({
  prompt: z.string().min(1).max(8000),
  response: z.string().min(1).max(8000),
  model: z.string().max(100).optional(),
  occurred_at: instant.optional(),
});

const uxSession = z.object({
  started_at: instant,
  duration_seconds: z.number().min(0).max(86_400),
  events: z
    .array(z.object({ t: z.number().min(0), type: z.string().min(1).max(40), target: z.string().max(200).optional() }).strict())
    .min(1)
    .max(500),
});

const recordId = clientId(100).describe(
  "Your id for the record, unique per subject and kind: sending it again stores it once, and another subject's ids never collide with it.",
);

/** A record as stored: the fields its kind defines (others are dropped), within its size, no NUL. */
function recordsOf<T extends z.ZodType>(kind: (typeof DATA_KINDS)[number], data: T) {
  return z
    .array(
      z.object({ id: recordId, data }).superRefine((r, ctx) => {
        const data = (r as { data: unknown }).data;
        const json = JSON.stringify(data);
        if (!storableJson(data)) ctx.addIssue({ code: 'custom', path: ['data'], message: 'text must not contain NUL characters or unpaired surrogates' });
        else if (Buffer.byteLength(json) > MAX_RECORD_BYTES[kind]) {
          ctx.addIssue({ code: 'custom', path: ['data'], message: `a ${kind} record is at most ${MAX_RECORD_BYTES[kind]} bytes of JSON` });
        }
      }),
    )
    .min(1)
    .max(MAX_DATA_RECORDS);
}

export const dataRequest = z.discriminatedUnion('kind', [
  z.object({ subject_id: subjectId, kind: z.literal('ai_interaction'), records: recordsOf('ai_interaction', aiInteraction) }),
  z.object({ subject_id: subjectId, kind: z.literal('ux_session'), records: recordsOf('ux_session', uxSession) }),
]);
export type DataRequest = z.output<typeof dataRequest>;

export const dataBody = z.object({
  received: z.number().int(),
  stored: z.number().int(),
  duplicates: z.number().int().describe('Records whose id this subject stored before for this kind: kept as they were.'),
});
