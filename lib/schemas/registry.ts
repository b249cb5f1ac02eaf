import { z } from 'zod';
import { demoChatRequest } from './demo';
import type { DeclarableMethod, OperationDeclaration as AnyOperation, RouteDeclaration as AnyRoute } from '../platform/http/declaration';
import type { ResourceName } from './oauth';
import {
  apiKeysBody,
  apiKeysQuery,
  appsBody,
  appsQuery,
  campaignsBody,
  campaignsQuery,
  dailyBody,
  dailyQuery,
  earningsBody,
  earningsQuery,
  licensesBody,
  licensesQuery,
  profileBody,
  type Scope,
} from './account';
import { indexBody } from './api';
import { askQuery, askRequest } from './ask';
import { batchBody, batchRequest, idempotencyKeyHeader } from './batch';
import { apiErrorBody } from './common';
import { CREATIVE_UPLOAD_MAX_BYTES } from './advertising';
import { consentDecisionForm, registrationRequest, tokenForm } from './oauth';
import { pagesBody, pagesQuery } from './pages';
import { pricingBody, pricingQuery } from './pricing';
import { searchBody, searchQuery } from './search';
import {
  adBody,
  adsQuery,
  adsRequest,
  NO_FILL_REASONS,
  clickQuery,
  CONSENT_CLOCK_SKEW_MINUTES,
  CONSENT_MAX_AGE_DAYS,
  consentBody,
  consentProofHeader,
  consentQuery,
  consentRequest,
  dataBody,
  dataRequest,
  eventsBody,
  eventsRequest,
  MAX_DATA_BODY_BYTES,
  recordedConsentBody,
  validateKeyBody,
  withdrawalBody,
} from './sdk';
import { conversionBody, conversionRequest, conversionTagQuery, conversionTagRequest } from './conversions';

/**
 * Every route of the service, declared once: one entry per route file under app/, keyed by its
 * path. An entry says how the route is reached (credential, scope, query and body schemas), how
 * it answers (error shape, CORS, rate limit, cache, deprecation) and how it is documented. The
 * code that answers lives in a module of lib/routes/, bound to its entry by `defineRoute`.
 *
 * Everything else that lists routes reads this table: the OpenAPI document, the endpoint lists
 * of `GET /api/v1`, the batch allowlist, the scopes of the MCP account tools, the paths the
 * markdown-twin rewrite leaves alone, and the shared bad-credential test matrix
 * (tests/integration/registry.test.ts proves each equals what the table says).
 */

/**
 * The credentials a route may declare, and the kernel's credential step for each: what it
 * checks and what the handler is given. The kernel checks a credential before the query and
 * body are read, so a caller without a valid one learns nothing about the parameters (401
 * before 400). A new kind (a console session, say) is a new case here and in `Principals`, and
 * every route that declares it gets the same checks (lib/routes/credentials.ts).
 *
 * - `none`: anyone.
 * - `bearer`: an access token for `resource` (or the sandbox token); with `scope`, a token
 *   without it is a 403 `insufficient_scope`.
 * - `optional-bearer`: no credential is fine, but one that is sent must be valid.
 * - `forwarded-bearer`: the kernel checks nothing; the handler hands `Authorization` on to
 *   the operations it runs (the batch endpoint), and each of those checks it.
 * - `api-key`: an app's publishable SDK key in `x-api-key` (the SDK surface, `/functions/v1/*`).
 *   Missing, malformed or unknown is a 401 `invalid_token`; a revoked key, or a key of an
 *   archived app, is a 403 `forbidden`. A key also has a budget of its own, on top of the
 *   address's (content/docs/rate-limits.md).
 * - `app-key`: as `api-key`, or the app's secret server key as `Authorization: Bearer sk_…`,
 *   from a server: a request with `Origin` is a 403 `forbidden` (content/docs/server-side.md).
 * - `optional-api-key`: an SDK key when the request has `x-api-key`; without one, the handler
 *   authenticates by other means (decision tokens).
 * - `conversion-key`: an advertiser's conversions key as `Authorization: Bearer ck_live_…`, from
 *   a server. Missing, malformed or unknown is a 401 `invalid_token`; a request with `Origin` is a
 *   403 `forbidden`. A revoked key reaches the handler, which keeps the conversion as invalid and
 *   answers 403 `forbidden` (lib/ads/conversions/record.ts).
 */
export type Credential =
  | { kind: 'none' }
  | { kind: 'bearer'; resource: ResourceName; scope?: Scope }
  | { kind: 'optional-bearer'; resource: ResourceName }
  | { kind: 'forwarded-bearer'; resource: ResourceName }
  | { kind: 'api-key' }
  | { kind: 'app-key' }
  | { kind: 'optional-api-key' }
  | { kind: 'conversion-key' };

/** A declaration of this service: its credentials are the ones above. */
export type OperationDeclaration = AnyOperation<Credential>;
export type RouteDeclaration = AnyRoute<Credential>;

/** The REST API: the error envelope, `API-Version`, rate limited, readable from any origin. */
const REST = { errors: 'api', rateLimit: true, cors: 'public', apiVersion: true } as const;
/**
 * The SDK surface, called by publishers' apps, web pages included: as the REST API, except that
 * a browser's origin must be one the key's app allows (lib/identity/keys/directory.ts), and the CORS headers say
 * so per app. The preflight allows `X-Api-Key` from any origin: it cannot know the app yet.
 */
const SDK = { ...REST, cors: 'sdk' } as const;
/** An ad request's 204, and the header that says why. */
const NO_FILL = 'Nothing fills this request: render nothing. `No-Fill-Reason` says why.';
const NO_FILL_HEADERS = {
  'No-Fill-Reason': `One of ${NO_FILL_REASONS.map((r) => `\`${r}\``).join(', ')}: the conversation was sensitive; it named a topic the app excluded, or the app blocked every campaign that fitted; no campaign fitted at the placement's min_relevance; none may fill now (none running for the format, budgets spent, frequency caps reached); the placement is paused or archived.`,
};
/** Agent surfaces (MCP, A2A, /ask): rate limited like the API, without its version header. */
const AGENT = { errors: 'api', rateLimit: true, cors: 'public', apiVersion: false } as const;
/** OAuth endpoints answer RFC 6749 errors (`{error, error_description}`). */
const OAUTH = { errors: 'oauth', rateLimit: false, cors: 'public', apiVersion: false } as const;
/** Public documents for crawlers and language models. */
const SITE = { errors: 'api', rateLimit: false, cors: 'public', apiVersion: false } as const;

const NONE = { kind: 'none' } as const;
const API_KEY = { kind: 'api-key' } as const satisfies Credential;
const APP_KEY = { kind: 'app-key' } as const satisfies Credential;
const API_KEY_OR_TOKENS = { kind: 'optional-api-key' } as const satisfies Credential;
const CONVERSION_KEY = { kind: 'conversion-key' } as const satisfies Credential;
const bearer = (resource: ResourceName, scope?: Scope) => ({ kind: 'bearer', resource, scope }) as const satisfies Credential;

const DOCS_CACHE = 'public, max-age=300';

/** The consent proof a subject's first consent answered, sent to act on the subject (lib/data/subjects.ts). */
const CONSENT_PROOF = { name: 'x-consent-proof', schema: consentProofHeader, description: consentProofHeader.description! };

const ACCOUNT_200 = 'The data of the user who approved the token (sandbox data for `svc_sandbox`).';
const ACCOUNT_502 = { description: 'The account data could not be loaded (`account_unavailable`): authorize again.', schema: apiErrorBody };

/** An account read: the user's own data through row-level security, or the sandbox's. */
function accountRead(options: { scope: Scope; operationId: string; summary: string; description?: string; body: z.ZodType; mcpTool: string }) {
  return {
    credential: bearer('api', options.scope),
    batch: true,
    mcpTool: options.mcpTool,
    doc: {
      operationId: options.operationId,
      summary: options.summary,
      ...(options.description ? { description: options.description } : {}),
      tags: ['Account'],
      responses: { 200: { description: ACCOUNT_200, schema: options.body }, 502: ACCOUNT_502 },
    },
  } as const satisfies OperationDeclaration;
}

function declare<T extends Record<string, Omit<RouteDeclaration, 'path'>>>(routes: T): { [P in keyof T & string]: T[P] & { path: P } } {
  return Object.fromEntries(Object.entries(routes).map(([path, route]) => [path, { ...route, path }])) as never;
}

export const ROUTES = declare({
  // ── REST: /api/v1 ──────────────────────────────────────────────────────────────────────────
  '/api/v1': {
    ...REST,
    methods: {
      GET: {
        credential: { kind: 'optional-bearer', resource: 'api' },
        cache: DOCS_CACHE,
        doc: {
          operationId: 'getIndex',
          summary: 'What the API offers, and what the presented token is',
          tags: ['Public'],
          responses: {
            200: { description: 'The index; `token` describes the presented token.', schema: indexBody },
            401: {
              description: 'The presented token is invalid. The body is an Error and still lists the public endpoints.',
              schema: indexBody.required({ error: true }),
              headers: { 'WWW-Authenticate': 'A Bearer challenge with `resource_metadata`.' },
            },
          },
        },
      },
    },
  },
  '/api/v1/search': {
    ...REST,
    methods: {
      GET: {
        credential: NONE,
        query: searchQuery,
        cache: DOCS_CACHE,
        batch: true,
        doc: {
          operationId: 'searchDocs',
          summary: 'Search the docs and product pages',
          tags: ['Public'],
          responses: { 200: { description: 'Matching pages, best first.', schema: searchBody } },
        },
      },
    },
  },
  '/api/v1/pricing': {
    ...REST,
    methods: {
      GET: {
        credential: NONE,
        query: pricingQuery,
        cache: 'public, max-age=60',
        batch: true,
        doc: {
          operationId: 'getPricing',
          summary: 'Current pricing',
          description:
            '`audience` narrows the optional fields: `publisher` adds `min_payout_usd`; `advertiser` adds `advertiser_cpm_usd`; `data_buyer` adds `dataset_prices_usd` and `exclusive_license_multiplier`; `all` (default) adds all of them.',
          tags: ['Public'],
          responses: {
            200: { description: 'The live values, or the defaults with `live: false` when they could not be read.', schema: pricingBody },
          },
        },
      },
    },
  },
  '/api/v1/pages': {
    ...REST,
    methods: {
      GET: {
        credential: NONE,
        query: pagesQuery,
        cache: DOCS_CACHE,
        batch: true,
        doc: {
          operationId: 'listPages',
          summary: 'List the public pages and their markdown twins',
          tags: ['Public'],
          responses: { 200: { description: 'One page of the list.', schema: pagesBody } },
        },
      },
    },
  },
  '/api/v1/openapi.json': {
    ...REST,
    methods: {
      GET: {
        credential: NONE,
        cache: DOCS_CACHE,
        doc: {
          operationId: 'getOpenApiDocument',
          summary: 'This OpenAPI 3.1 description of the API',
          tags: ['Public'],
          responses: { 200: { description: 'The OpenAPI 3.1 document.', schema: z.record(z.string(), z.unknown()) } },
        },
      },
    },
  },
  '/api/v1/me': {
    ...REST,
    methods: {
      GET: accountRead({
        scope: 'profile:read',
        operationId: 'getProfile',
        summary: "The user's profile",
        body: profileBody,
        mcpTool: 'whoami',
      }),
    },
  },
  '/api/v1/me/apps': {
    ...REST,
    methods: {
      GET: {
        query: appsQuery,
        ...accountRead({
          scope: 'apps:read',
          operationId: 'listApps',
          summary: "The user's apps and ad placements",
          body: appsBody,
          mcpTool: 'list_my_apps',
        }),
      },
    },
  },
  '/api/v1/me/earnings': {
    ...REST,
    methods: {
      GET: {
        query: earningsQuery,
        ...accountRead({
          scope: 'earnings:read',
          operationId: 'getEarnings',
          summary: "The user's earnings and recent payouts",
          body: earningsBody,
          mcpTool: 'get_my_earnings',
        }),
      },
    },
  },
  '/api/v1/me/earnings/daily': {
    ...REST,
    methods: {
      GET: {
        query: dailyQuery,
        ...accountRead({
          scope: 'earnings:read',
          operationId: 'getDailyEarnings',
          summary: "The user's revenue, impressions and clicks per day over the last 7, 30 or 90 days",
          body: dailyBody,
          mcpTool: 'get_my_daily_earnings',
        }),
      },
    },
  },
  '/api/v1/me/api-keys': {
    ...REST,
    methods: {
      GET: {
        query: apiKeysQuery,
        ...accountRead({
          scope: 'api_keys:read',
          operationId: 'listApiKeys',
          summary: "The user's API keys, masked",
          body: apiKeysBody,
          mcpTool: 'list_my_api_keys',
        }),
      },
    },
  },
  '/api/v1/me/campaigns': {
    ...REST,
    methods: {
      GET: {
        query: campaignsQuery,
        ...accountRead({
          scope: 'campaigns:read',
          operationId: 'listCampaigns',
          summary: "The user's ad campaigns, their creatives and spend, and their advertiser balance",
          description:
            'Paged by `limit` and `cursor` like every list of the API; `status` narrows the campaigns, never the balance. A user who is not an advertiser gets no campaigns and a balance of 0. The scope `campaigns:read` is granted only to a client that asks for it: an authorization request without `scope` does not include it.',
          body: campaignsBody,
          mcpTool: 'list_my_campaigns',
        }),
      },
    },
  },
  '/api/v1/me/licenses': {
    ...REST,
    methods: {
      GET: {
        query: licensesQuery,
        ...accountRead({
          scope: 'licenses:read',
          operationId: 'listLicenses',
          summary: "The user's data licenses, newest first, and their funds as a data buyer",
          description:
            'Paged by `limit` and `cursor` like every list of the API; `status` narrows the licenses, never the funds. Each license counts the deletion notices naming it that are not acknowledged yet. A user who is not a data buyer gets no licenses and funds of 0. The scope `licenses:read` is granted only to a client that asks for it: an authorization request without `scope` does not include it.',
          body: licensesBody,
          mcpTool: 'list_my_licenses',
        }),
      },
    },
  },
  '/api/v1/batch': {
    ...REST,
    methods: {
      POST: {
        credential: { kind: 'forwarded-bearer', resource: 'api' },
        body: batchRequest,
        doc: {
          operationId: 'batch',
          summary: 'Run up to 20 GET requests in one call',
          description:
            'Sub-requests run in parallel through the same handlers, with the caller’s Authorization header; answers come back in request order. Each sub-request costs one unit of rate limit.',
          tags: ['Batch'],
          requestHeaders: [
            { name: 'Idempotency-Key', schema: idempotencyKeyHeader, description: 'A retry with the same key and body returns the original result.' },
          ],
          responses: {
            200: { description: 'The sub-responses in request order.', schema: batchBody, headers: { 'Idempotency-Key': 'The key, echoed.' } },
            400: { description: 'A malformed batch, or a reused Idempotency-Key with another body.', schema: apiErrorBody },
            401: {
              description: 'With an Idempotency-Key, a credential that is sent must be valid.',
              schema: apiErrorBody,
              headers: { 'WWW-Authenticate': 'A Bearer challenge with `resource_metadata`.' },
            },
            409: { description: 'A request with the same Idempotency-Key is still running.', schema: apiErrorBody },
          },
        },
      },
    },
  },

  // ── The SDK surface: /functions/v1, authenticated by an app's key in x-api-key ──────────────
  '/functions/v1/validate-key': {
    ...SDK,
    methods: {
      GET: {
        credential: APP_KEY,
        doc: {
          operationId: 'validateKey',
          summary: 'Check an API key, and see which app it belongs to',
          description:
            'Call it at start-up or in CI to catch a wrong or revoked key early. A missing, malformed or unknown key is a 401 `invalid_token`; a revoked key, or a key of an archived app, is a 403 `forbidden`.',
          tags: ['SDK'],
          responses: { 200: { description: 'The key is valid: its app, and the key, masked.', schema: validateKeyBody } },
        },
      },
    },
  },
  '/functions/v1/ads': {
    ...SDK,
    getRecords: true,
    methods: {
      GET: {
        credential: API_KEY,
        query: adsQuery,
        doc: {
          operationId: 'getAd',
          summary: "Get an ad for one placement of the key's app",
          description:
            'Picks an ad of the placement\'s format from the campaigns that can serve now. Every request counts in the placement\'s fill rate, filled or not. Render the ad with its "Sponsored" label, send its impression once it has been viewable, and open `click_url` on a click.',
          tags: ['SDK'],
          responses: {
            200: { description: 'An ad, its decision token and its click URL.', schema: adBody },
            204: { description: NO_FILL, headers: NO_FILL_HEADERS },
            404: { description: "The key's app has no placement with this id (`not_found`).", schema: apiErrorBody },
          },
        },
      },
      POST: {
        credential: APP_KEY,
        body: adsRequest,
        bodyType: 'json',
        doc: {
          operationId: 'getAdForConversation',
          summary: 'Get an ad that fits a conversation',
          description:
            "The `GET` with the conversation the ad will sit beside (at most 6 messages and 4,000 characters). The conversation is read for this one decision and dropped: it is never written to the database, a log or a report; the decision keeps only the relevance of the ad and the advertiser's hints that matched. A sensitive conversation (health, mental health, sexual content, politics, a user who appears to be a child) gets no ad; otherwise only campaigns whose context hints fit it at the placement's `min_relevance` are drawn, weighed by relevance and budget. An app's server may ask instead, with its server key as `Authorization: Bearer sk_…` and the end user's `client`: the ad is then bound to that client, whose browser counts its impression.",
          tags: ['SDK'],
          responses: {
            200: { description: 'An ad that fits the conversation, with its `relevance` and `why.matched`.', schema: adBody },
            204: { description: NO_FILL, headers: NO_FILL_HEADERS },
            400: {
              description:
                'The body is not a valid request: too many messages or characters, a bad role, a `client` that is not an address and a user agent, or a server key without `client` (`invalid_request`).',
              schema: apiErrorBody,
            },
            403: {
              description:
                'The key has been revoked or its app archived; a publishable key from a web origin the app has not allowed, or naming a `client` (only a server key may); a server key from a web page (`forbidden`).',
              schema: apiErrorBody,
            },
            404: { description: "The key's app has no placement with this id (`not_found`).", schema: apiErrorBody },
            503: {
              description: 'The campaigns changed three times while this request was being decided (`unavailable`): try again after `Retry-After` seconds.',
              schema: apiErrorBody,
              headers: { 'Retry-After': 'Seconds to wait.' },
            },
          },
        },
      },
    },
  },
  '/functions/v1/events': {
    ...SDK,
    methods: {
      POST: {
        credential: API_KEY_OR_TOKENS,
        body: eventsRequest,
        bodyType: 'beacon',
        doc: {
          operationId: 'recordEvents',
          summary: 'Record impressions and clicks',
          description:
            'Up to 100 events, each with your id for it and the token of its ad. Send it as JSON with `x-api-key`, or as the `text/plain` body of `navigator.sendBeacon`, which cannot send headers: the tokens then authenticate the events. Sending a batch again changes nothing. Each event answers `recorded`, `duplicate`, `invalid` (recorded as invalid traffic, never billed) or `rejected` (not recorded), with the reason.',
          tags: ['SDK'],
          responses: { 200: { description: 'What was recorded, and why anything was not.', schema: eventsBody } },
        },
      },
    },
  },
  '/functions/v1/conversions': {
    ...REST,
    cors: 'none',
    methods: {
      POST: {
        credential: CONVERSION_KEY,
        body: conversionRequest,
        doc: {
          operationId: 'recordConversion',
          summary: 'Record a conversion (advertisers, from a server)',
          description:
            "A sign-up or a sale that followed a click on your ad, with the click's `mclid` from your landing page's URL, from your server with a conversions key (`Authorization: Bearer ck_live_…`, made in the advertiser console). Sending an `event_id` again changes nothing. A conversion counts only for a click that counted, on your own campaign, within the campaign's attribution window (1 to 30 days, 7 by default), once per click and name; any other is kept as `invalid` with its reason and never counted. A revoked key's conversion is kept as invalid (`revoked_key`) and answered 403.",
          tags: ['Advertisers'],
          responses: {
            200: { description: 'What was recorded.', schema: conversionBody },
            403: { description: 'A revoked key (the conversion was kept as invalid), or a request from a web page (`forbidden`).', schema: apiErrorBody },
          },
        },
      },
    },
  },
  '/functions/v1/conversions/tag': {
    ...REST,
    getRecords: true,
    methods: {
      POST: {
        credential: NONE,
        body: conversionTagRequest,
        bodyType: 'beacon',
        doc: {
          operationId: 'recordTagConversion',
          summary: 'Record a conversion (advertisers, from the conversion tag on their pages)',
          description:
            "What the conversion tag sends from your page: your public tag id (`ct_…`), the click's `mclid` it kept from your landing page, and the conversion's name. JSON, or the `text/plain` body of `navigator.sendBeacon`. Without an `event_id`, one conversion per click and name. The same rules as `POST /functions/v1/conversions`, occurring now; a click id of another advertiser's campaign is `foreign_click`.",
          tags: ['Advertisers'],
          responses: {
            200: { description: 'What was recorded.', schema: conversionBody },
            404: { description: 'A tag id nobody has (`not_found`).', schema: apiErrorBody },
          },
        },
      },
      GET: {
        credential: NONE,
        query: conversionTagQuery,
        cache: 'no-store',
        doc: {
          operationId: 'recordTagConversionImage',
          summary: 'Record a conversion with an image tag (advertisers, pages without scripts)',
          description:
            'The same as the POST, as the query of an `<img>`: answers a 1×1 transparent GIF, whatever was recorded (an invalid query or an unknown tag id is an error, as JSON).',
          tags: ['Advertisers'],
          responses: {
            200: { description: 'A 1×1 transparent GIF.', contentType: 'image/gif' },
            404: { description: 'A tag id nobody has (`not_found`).', schema: apiErrorBody },
          },
        },
      },
    },
  },
  '/functions/v1/click': {
    ...SDK,
    getRecords: true,
    methods: {
      GET: {
        credential: NONE,
        query: clickQuery,
        doc: {
          operationId: 'followAdClick',
          summary: "An ad's click URL: count the click, go to the advertiser",
          description:
            "The `click_url` of an ad. Records the click by the same rules as `POST /functions/v1/events` and redirects to the landing page of the ad's creative, and nowhere else. An expired token still redirects, without counting.",
          tags: ['SDK'],
          responses: {
            302: { description: "To the advertiser's landing page.", headers: { Location: 'The landing URL of the ad.' } },
            404: { description: 'A token this service did not sign, or an ad that no longer exists (`not_found`).', schema: apiErrorBody },
            503: {
              description: 'The database cannot be reached (`unavailable`): the click cannot be recorded or its page found; retry.',
              schema: apiErrorBody,
              headers: { 'Retry-After': 'Seconds to wait.' },
            },
          },
        },
      },
    },
  },
  '/functions/v1/consents': {
    ...SDK,
    methods: {
      GET: {
        credential: API_KEY,
        query: consentQuery,
        doc: {
          operationId: 'getConsent',
          summary: "A subject's current consent",
          description:
            "Needs the subject's consent proof in `x-consent-proof`. Without it, or with a wrong one, the answer is the 404 of a subject without a consent: the publishable key alone does not tell whether a user consented.",
          tags: ['SDK'],
          requestHeaders: [CONSENT_PROOF],
          responses: {
            200: { description: 'The current consent.', schema: consentBody },
            404: {
              description: 'No current consent for this subject and consent proof (`not_found`): none recorded, withdrawn, or no proof or a wrong one.',
              schema: apiErrorBody,
            },
          },
        },
      },
      POST: {
        credential: API_KEY,
        body: consentRequest,
        doc: {
          operationId: 'recordConsent',
          summary: 'Record what a user agreed to',
          description:
            "A subject's first consent needs only the key, and answers the subject's consent proof (`consent_proof`): keep it with the user. A new consent for a subject that has one (more or fewer purposes, a new policy, consent again after a withdrawal) needs that proof in `x-consent-proof`; it is recorded as a new row that supersedes the current one, and purposes it no longer lists lose their unsold data at once. New subjects are bounded per client address and hour (429).",
          tags: ['SDK'],
          requestHeaders: [CONSENT_PROOF],
          responses: {
            200: { description: "The consent as recorded, with the subject's consent proof.", schema: recordedConsentBody },
            400: {
              description: `A malformed or invalid body, or a \`consented_at\` more than ${CONSENT_CLOCK_SKEW_MINUTES} minutes ahead of the service's clock or more than ${CONSENT_MAX_AGE_DAYS} days ago (\`invalid_request\`).`,
              schema: apiErrorBody,
            },
            403: {
              description:
                "The subject already has a consent with this app and the request lacks its consent proof, or has a wrong one (`forbidden`), besides the key's own 403s.",
              schema: apiErrorBody,
            },
            429: {
              description:
                'The rate limit, or a new subject past the new subjects its client address may bring to this app in an hour (`rate_limited`): wait `Retry-After` seconds.',
              schema: apiErrorBody,
              headers: { 'Retry-After': 'Seconds to wait.' },
            },
          },
        },
      },
      DELETE: {
        credential: API_KEY,
        query: consentQuery,
        doc: {
          operationId: 'withdrawConsent',
          summary: "Withdraw a subject's consent",
          description:
            "Needs the subject's consent proof in `x-consent-proof`. Ends the current consent (a withdrawal, recorded after it) and deletes the subject's unsold data at once. Sending it again is harmless. The proof stays valid: the user may consent again with it.",
          tags: ['SDK'],
          requestHeaders: [CONSENT_PROOF],
          responses: {
            200: { description: 'What was withdrawn and deleted.', schema: withdrawalBody },
            403: {
              description:
                "No subject with this consent proof (`forbidden`): one that never consented, or a request without the proof or with a wrong one, besides the key's own 403s.",
              schema: apiErrorBody,
            },
          },
        },
      },
    },
  },
  '/functions/v1/data': {
    ...SDK,
    methods: {
      POST: {
        credential: API_KEY,
        body: dataRequest,
        maxBodyBytes: MAX_DATA_BODY_BYTES,
        doc: {
          operationId: 'submitData',
          summary: 'Submit consented data',
          description:
            "AI-interaction rows or UX-session recordings of one subject, stored only when the subject's current consent covers their purpose and the request carries the subject's consent proof in `x-consent-proof`. A record whose id this subject stored before for its kind is kept as it was. Daily quotas per subject and per app bound what is stored (429).",
          tags: ['SDK'],
          requestHeaders: [CONSENT_PROOF],
          responses: {
            200: { description: 'What was stored.', schema: dataBody },
            403: {
              description: "No current consent covering this kind of data for this subject and consent proof (`forbidden`), besides the key's own 403s.",
              schema: apiErrorBody,
            },
            429: {
              description:
                "The rate limit, or the day's quota of the subject or of the app (`rate_limited`): nothing of the request was stored; wait `Retry-After` seconds.",
              schema: apiErrorBody,
              headers: { 'Retry-After': 'Seconds to wait.' },
            },
          },
        },
      },
    },
  },

  // ── OAuth 2.0 authorization server ───────────────────────────────────────────────────────
  '/oauth/authorize': {
    ...OAUTH,
    rateLimit: true,
    cors: 'none',
    methods: {
      GET: { credential: NONE },
      POST: { credential: NONE, body: consentDecisionForm, bodyType: 'form' },
    },
  },
  '/oauth/token': { ...OAUTH, rateLimit: true, methods: { POST: { credential: NONE, body: tokenForm, bodyType: 'form' } } },
  '/oauth/register': { ...OAUTH, rateLimit: true, methods: { POST: { credential: NONE, body: registrationRequest } } },
  '/.well-known/oauth-authorization-server': { ...OAUTH, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/.well-known/oauth-protected-resource/api/v1': { ...OAUTH, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/.well-known/oauth-protected-resource/mcp': { ...OAUTH, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/.well-known/jwks.json': { ...OAUTH, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  /**
   * Stripe's webhook (lib/money/stripe/rail.ts): authenticated by its signature; rate limited per
   * address like every path under /api (a stranger may post to it; Stripe retries a 429 with
   * backoff, for days); no CORS (no browser calls it). 404 when Stripe is not configured.
   */
  '/api/webhooks/stripe': { errors: 'api', rateLimit: true, cors: 'none', apiVersion: false, methods: { POST: { credential: NONE } } },
  /**
   * The scheduler's call of the data buyers' background work (lib/routes/cron.ts): authenticated
   * by the deployment's CRON_SECRET as a bearer token, checked by the handler; rate limited per
   * address like every path under /api; no CORS. 404 when CRON_SECRET is not set.
   */
  '/api/cron/data-jobs': { errors: 'api', rateLimit: true, cors: 'none', apiVersion: false, methods: { GET: { credential: NONE } } },
  /** next-auth's own endpoints: sign-in callbacks, CSRF token, session, sign-out. */
  '/api/auth/[...nextauth]': { ...OAUTH, rateLimit: true, cors: 'none', methods: { GET: { credential: NONE }, POST: { credential: NONE } } },

  // ── Agents ───────────────────────────────────────────────────────────────────────────────
  /** The account tools; each tool's scope is checked per call (MCP step-up authorization). */
  '/mcp': { ...AGENT, methods: { POST: { credential: bearer('mcp') } } },
  '/docs/mcp': { ...AGENT, methods: { POST: { credential: NONE } } },
  '/ask': {
    ...AGENT,
    methods: {
      // The answer depends only on the docs, which change with a deployment.
      GET: { credential: NONE, query: askQuery, cache: DOCS_CACHE },
      POST: { credential: NONE, body: askRequest },
    },
  },
  '/a2a': { ...AGENT, methods: { POST: { credential: NONE } } },
  '/.well-known/agent-card.json': { ...SITE, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  /**
   * Anonymous agent registration, in the OAuth error shape (its answer is a credential for the
   * token endpoint). Rate limited: it is unauthenticated and signs something on every call. The
   * body is read by the handler, after the on/off check, so that "off" is a 404 whatever the body.
   */
  '/agent/identity': { ...OAUTH, rateLimit: true, methods: { POST: { credential: NONE } } },

  // ── The public site's machine-readable documents ────────────────────────────────────────
  /** Markdown twins: `<path>.md` and `Accept: text/markdown` are rewritten here (next.config.ts). */
  '/markdown/[[...slug]]': { ...SITE, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/llms.txt': { ...SITE, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/llms-full.txt': { ...SITE, methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/sitemap.xml': { ...SITE, cors: 'none', methods: { GET: { credential: NONE, cache: DOCS_CACHE } } },
  '/robots.txt': { ...SITE, cors: 'none', methods: { GET: { credential: NONE, cache: 'public, max-age=3600' } } },
  /**
   * Uploaded media: advertisers' images and videos (lib/routes/media.ts), which publishers' pages
   * on any origin embed through the SDK. Not rate limited (every visitor of those pages loads
   * them, like the SDK's script), readable from any origin, cached for good: a key is random and
   * never reused, so what it names never changes.
   */
  '/media/[[...key]]': { ...SITE, methods: { GET: { credential: NONE, cache: 'public, max-age=31536000, immutable' } } },
  /**
   * An advertiser's report as CSV (lib/ads/advertisers/report-download.ts): for the signed-in user of
   * the console's session cookie only (403 otherwise), never cached, read by no other origin.
   */
  '/dashboard/ads/reports/report.csv': { ...SITE, cors: 'none', methods: { GET: { credential: NONE, cache: 'no-store' } } },
  /**
   * A creative's words and files, new or edited, from the advertiser console's form
   * (lib/ads/advertisers/creative-upload.ts): the one console form whose body may be large (an image
   * of 2 MB and a video of 10 MB), so a route of its own and not a server action, which take at
   * most 1 MB (next.config.ts). For the signed-in user of the console's session cookie, posted
   * from our own pages only, within the consoles' budget of forms (a refusal of which is the
   * form's answer, as an action's is, not the API's 429: this is no API surface); never cached,
   * read by no other origin.
   */
  '/dashboard/ads/creatives/upload': {
    ...SITE,
    cors: 'none',
    methods: { POST: { credential: NONE, maxBodyBytes: CREATIVE_UPLOAD_MAX_BYTES, cache: 'no-store' } },
  },
  /**
   * The demo chat's answer (lib/demo/chat.ts): a canned answer streamed as text, with the ad the
   * demo's server asked for beside it, appended as the last chunk by @monetize/server. Posted by
   * our own demo page; limited per address like the API; never cached, read by no other origin.
   */
  '/api/demo/chat': {
    ...SITE,
    rateLimit: true,
    cors: 'none',
    methods: { POST: { credential: NONE, body: demoChatRequest, bodyType: 'json', cache: 'no-store' } },
  },
  /**
   * A data buyer's licensed files (lib/data/buyers/downloads.ts): by a short-lived link signed for
   * the signed-in buyer of the console's session cookie only (403 otherwise), never cached, read
   * by no other origin.
   */
  '/downloads/[exportId]/[format]': { ...SITE, cors: 'none', methods: { GET: { credential: NONE, cache: 'no-store' } } },
  // ── Paths under the API's prefixes that no route above has: a 404 in the envelope, with each
  // surface's headers, never the site's HTML (lib/routes/not-found.ts). No operations: nothing to
  // document or list. ──────────────────────────────────────────────────────────────────────────
  '/api/v1/[...unknown]': { ...REST, methods: {} },
  '/functions/v1/[[...unknown]]': { ...REST, methods: {} },
  '/oauth/[[...unknown]]': { ...REST, apiVersion: false, methods: {} },
  '/mcp/[...unknown]': { ...AGENT, methods: {} },
  '/docs/mcp/[...unknown]': { ...AGENT, methods: {} },
  '/a2a/[...unknown]': { ...AGENT, methods: {} },
  '/ask/[...unknown]': { ...AGENT, methods: {} },
});

export type Routes = typeof ROUTES;
export type RoutePath = keyof Routes;

/** One operation of the table: a route's method. */
export interface Operation {
  method: DeclarableMethod;
  path: RoutePath;
  route: RouteDeclaration;
  declaration: OperationDeclaration;
}

export function operations(): Operation[] {
  return Object.values(ROUTES).flatMap((route: RouteDeclaration) =>
    (Object.entries(route.methods) as [DeclarableMethod, OperationDeclaration][]).map(([method, declaration]) => ({
      method,
      path: route.path as RoutePath,
      route,
      declaration,
    })),
  );
}

/** The REST operations: every route that sends `API-Version` (the OpenAPI document's, the index's). */
export function restOperations(): Operation[] {
  return operations().filter((op) => op.route.apiVersion);
}

/** The GET operations a batch may run (in table order). */
export type BatchPath = {
  [P in RoutePath]: Routes[P]['methods'] extends { GET: { batch: true } } ? P : never;
}[RoutePath];

export function batchPaths(): BatchPath[] {
  return operations()
    .filter((op) => op.method === 'GET' && op.declaration.batch)
    .map((op) => op.path as BatchPath);
}

/** Operations that need an access token (the shared bad-credential matrix runs on each). */
export function protectedOperations(): (Operation & { credential: Extract<Credential, { kind: 'bearer' }> })[] {
  return operations().flatMap((op) => (op.declaration.credential.kind === 'bearer' ? [{ ...op, credential: op.declaration.credential }] : []));
}

/** Operations that need an app's SDK key (the shared bad-key matrix runs on each). */
export function apiKeyOperations(): Operation[] {
  return operations().filter((op) => op.declaration.credential.kind === 'api-key' || op.declaration.credential.kind === 'app-key');
}

/** The operations that also take an app's server key as a bearer (`app-key`). */
export function serverKeyOperations(): Operation[] {
  return operations().filter((op) => op.declaration.credential.kind === 'app-key');
}

/**
 * The paths the markdown-twin rewrite leaves alone (next.config.ts): every route's path and the
 * paths below it, a dynamic route's from its static part on (`/api/auth/[...nextauth]` is
 * `/api/auth`). Paths with a dot are left out: the rewrite never matches a dot.
 */
export function nonPagePaths(): string[] {
  return Object.keys(ROUTES)
    .map((p) => p.replace(/\/\[.*$/, ''))
    .filter((p) => !p.includes('.'));
}
