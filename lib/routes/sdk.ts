import { json, type JsonReply } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';
import { adBody, consentBody, dataBody, eventsBody, recordedConsentBody, validateKeyBody, withdrawalBody } from '../schemas/sdk';
import { askingClient, serveAd, type AdAnswer } from '../ads/serving/ads';
import { followClick } from '../ads/serving/click';
import { currentConsent, recordConsent, submitData, withdrawConsent } from '../data/records';
import { recordEvents } from '../ads/serving/events';
import { presentedProof } from '../data/subjects';

/**
 * The SDK surface (`/functions/v1/*`). The kernel's credential step has checked the key in
 * `x-api-key` (and the browser's origin) before a handler runs (lib/identity/keys/directory.ts): a handler is
 * given the key's app. The work is in this folder's modules; answers are parsed through their
 * schema, so no field leaks.
 */

/** GET /functions/v1/validate-key: the key is valid; which app it belongs to. */
export const validateKeyRoute = defineRoute(ROUTES['/functions/v1/validate-key'], {
  GET: ({ principal }) =>
    json(
      validateKeyBody.parse({
        valid: true,
        app: { id: principal.appId, name: principal.appName },
        key: { id: principal.keyId, name: principal.keyName, kind: principal.keyKind, environment: principal.environment, masked_key: principal.maskedKey },
      }),
    ),
});

/** GET /functions/v1/ads: an ad for the placement, or 204. */
export const adsRoute = defineRoute(ROUTES['/functions/v1/ads'], {
  GET: async ({ principal, query, request, clientIp, services }) =>
    adAnswer(
      await serveAd(
        principal,
        { placementId: query.placement_id, sessionId: query.session_id, keywords: query.keywords },
        { ip: clientIp, userAgent: request.headers.get('user-agent') },
        services,
      ),
    ),
  POST: async ({ principal, body, request, clientIp, services }) =>
    adAnswer(
      await serveAd(
        principal,
        { placementId: body.placement_id, sessionId: body.session_id, keywords: body.keywords, context: body.context },
        askingClient(principal, body.client, { userAgent: request.headers.get('user-agent'), ip: clientIp }),
        services,
      ),
    ),
});

/** The ad (200), or nothing (204) with why in `No-Fill-Reason`. */
function adAnswer(answer: AdAnswer): JsonReply | Response {
  return answer.ad ? json(adBody.parse(answer.ad)) : new Response(null, { status: 204, headers: { 'no-fill-reason': answer.reason } });
}

/** POST /functions/v1/events: impressions and clicks, keyed or by beacon. */
export const eventsRoute = defineRoute(ROUTES['/functions/v1/events'], {
  POST: async ({ principal, body, request, clientIp, services }) =>
    json(eventsBody.parse(await recordEvents(body, { principal, headers: request.headers, clientIp }, services))),
});

/** GET /functions/v1/click: count the click, redirect to the ad's landing page. */
export const clickRoute = defineRoute(ROUTES['/functions/v1/click'], {
  GET: async ({ query, request, clientIp, services }) => {
    const location = await followClick(query.token, { headers: request.headers, clientIp }, services);
    return new Response(null, { status: 302, headers: { location, 'referrer-policy': 'no-referrer-when-downgrade' } });
  },
});

/** Who asks about a subject: the consent proof the request presents (lib/data/subjects.ts), and its address. */
const askerOf = (request: Request, clientIp: string) => ({ proof: presentedProof(request.headers), clientIp });

/** /functions/v1/consents: read, record and withdraw a subject's consent, its proof in `x-consent-proof`. */
export const consentsRoute = defineRoute(ROUTES['/functions/v1/consents'], {
  GET: async ({ principal, query, request, clientIp, services }) =>
    json(consentBody.parse(await currentConsent(principal, query.subject_id, askerOf(request, clientIp), services))),
  POST: async ({ principal, body, request, clientIp, services }) =>
    json(recordedConsentBody.parse(await recordConsent(principal, body, askerOf(request, clientIp), services))),
  DELETE: async ({ principal, query, request, clientIp, services }) =>
    json(withdrawalBody.parse(await withdrawConsent(principal, query.subject_id, askerOf(request, clientIp), services))),
});

/** POST /functions/v1/data: consented records of one subject, its proof in `x-consent-proof`. */
export const dataRoute = defineRoute(ROUTES['/functions/v1/data'], {
  POST: async ({ principal, body, request, clientIp, services }) =>
    json(dataBody.parse(await submitData(principal, body, askerOf(request, clientIp), services))),
});
