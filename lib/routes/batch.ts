import { apiKeysRoute, appsRoute, campaignsRoute, dailyEarningsRoute, earningsRoute, licensesRoute, profileRoute } from './account';
import { pagesRoute } from './content';
import { sha256Hex } from '../platform/crypto';
import { env } from '../platform/env';
import { ApiError } from '../platform/http/errors';
import { jsonText, type Route } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { idempotencyKey, idempotentResponse, type StoredAnswer } from './idempotency';
import { authenticate, bearerToken, SANDBOX_TOKEN } from '../identity/oauth/bearer';
import { pricingRoute } from './pricing';
import { batchPaths, ROUTES, type BatchPath } from '../schemas/registry';
import { searchRoute } from './search';
import type { Services } from '../services';

/**
 * POST /api/v1/batch: 1 to 20 GET sub-requests, dispatched in process and in parallel to the
 * very routes their paths name, each with the caller's Authorization, answered in request order.
 * A batch saves round trips, not quota: one unit of rate limit per sub-request.
 */

/** The route of every path the registry lets a batch run (its type makes the list complete). */
const TARGETS: Record<BatchPath, Route> = {
  '/api/v1/search': searchRoute,
  '/api/v1/pricing': pricingRoute,
  '/api/v1/pages': pagesRoute,
  '/api/v1/me': profileRoute,
  '/api/v1/me/apps': appsRoute,
  '/api/v1/me/earnings': earningsRoute,
  '/api/v1/me/earnings/daily': dailyEarningsRoute,
  '/api/v1/me/api-keys': apiKeysRoute,
  '/api/v1/me/campaigns': campaignsRoute,
  '/api/v1/me/licenses': licensesRoute,
};

/** The paths a batch dispatches to, for a test to compare with the registry. */
export const BATCH_TARGETS: readonly string[] = Object.keys(TARGETS);

export interface BatchItem {
  id: string | number;
  /** The path and query as given. */
  path: string;
  route: BatchPath;
}

const ALLOWED: readonly string[] = batchPaths();

/** Checks every sub-request's path: an API v1 path this endpoint may dispatch to. */
export function planBatch(requests: { path: string; id?: string | number }[]): BatchItem[] {
  const allowed = ALLOWED;
  return requests.map((r, index) => {
    const where = `requests[${index}].path`;
    if (!r.path.startsWith('/api/v1/') && r.path !== '/api/v1') {
      throw new ApiError('invalid_request', `${where} must be an API v1 path such as /api/v1/me/apps.`);
    }
    let url: URL;
    try {
      url = new URL(r.path, 'http://batch.invalid');
    } catch {
      throw new ApiError('invalid_request', `${where} is not a valid path.`);
    }
    if (url.origin !== 'http://batch.invalid' || r.path.includes('#')) throw new ApiError('invalid_request', `${where} must be a path, not a URL.`);
    if (!allowed.includes(url.pathname)) {
      throw new ApiError('invalid_request', `${where} may not be ${url.pathname}; allowed: ${allowed.join(', ')}.`);
    }
    return { id: r.id ?? index, path: `${url.pathname}${url.search}`, route: url.pathname as BatchPath };
  });
}

/** One sub-response as JSON text: `{"id":…,"status":…,"body":…}`, the body spliced in as answered. */
async function dispatch(sub: BatchItem, from: Caller, services: Services): Promise<string> {
  const answer = await TARGETS[sub.route].dispatch({ url: `${env().PUBLIC_BASE_URL}${sub.path}`, headers: from.headers, clientIp: from.clientIp }, services);
  // A Response (no batchable route answers one today) is read and checked to be JSON.
  const text = answer instanceof Response ? JSON.stringify(JSON.parse((await answer.text()) || 'null')) : answer.text;
  return `{"id":${JSON.stringify(sub.id)},"status":${answer.status},"body":${text}}`;
}

/** Who sent the batch: its sub-requests carry the caller's Authorization, and nothing else of theirs. */
interface Caller {
  headers: Headers;
  clientIp: string;
}

export async function runBatch(subs: BatchItem[], from: Caller, sandbox: boolean, services: Services): Promise<StoredAnswer> {
  const responses = await Promise.all(subs.map((s) => dispatch(s, from, services)));
  return { status: 200, body: `{"responses":[${responses.join(',')}]${sandbox ? ',"sandbox":true' : ''}}` };
}

export const batchRoute = defineRoute(ROUTES['/api/v1/batch'], {
  POST: async ({ request, body, clientIp, charge, services }) => {
    const key = idempotencyKey(request);
    const subs = planBatch(body.requests);
    // The request itself paid one unit; the others are paid here, before anything runs.
    await charge(subs.length - 1);
    const authorization = request.headers.get('authorization');
    const from = { headers: new Headers(authorization === null ? {} : { authorization }), clientIp };
    const credential = bearerToken(request);
    const sandbox = credential.present && credential.token === SANDBOX_TOKEN;
    const headers: Record<string, string> = sandbox ? { 'Service-Sandbox': 'true' } : {};
    if (key === null) return jsonText((await runBatch(subs, from, sandbox, services)).body, { headers });

    // With a key, a credential that is present must be valid (else the 401 of the account
    // routes): a stored answer is never replayed to an expired or forged token.
    await authenticate(request, 'api', services, { required: false });
    return idempotentResponse({
      engine: await services.database(),
      now: services.now,
      scope: 'batch',
      // Keys belong to a credential (or, without one, to an address): never shared across callers.
      principal: sha256Hex(authorization ?? `anonymous ${clientIp}`),
      key,
      fingerprint: JSON.stringify(subs.map((s) => [s.id, s.path])),
      run: () => runBatch(subs, from, sandbox, services),
      what: 'batch',
      headers,
    });
  },
});
