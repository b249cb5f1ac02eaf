import { sha256Hex } from '../crypto';
import { apiKeysRoute, appsRoute, earningsRoute, profileRoute } from '../account/routes';
import { authenticate, bearerToken, SANDBOX_TOKEN } from '../oauth/bearer';
import { pagesRoute } from '../content/routes';
import { ApiError } from '../http/errors';
import { internalGet, internalRoute, jsonText, method, type InternalHandler, type RouteSpec } from '../http/kernel';
import { idempotencyKey, idempotentResponse, type StoredAnswer } from '../idempotency';
import { env } from '../env';
import { pricingRoute } from '../pricing/route';
import { BATCH_PATHS, batchRequest } from '../schemas/batch';
import { searchRoute } from '../search/route';

/**
 * POST /api/v1/batch (spec: Index and batch; DESIGN.md): 1 to 20 GET sub-requests, dispatched in
 * process and in parallel to the very handlers their paths name, each with the caller's
 * Authorization, answered in request order. One unit of rate limit per sub-request.
 */

type BatchPath = (typeof BATCH_PATHS)[number];

const SPECS: Record<BatchPath, RouteSpec> = {
  '/api/v1/search': searchRoute,
  '/api/v1/pricing': pricingRoute,
  '/api/v1/pages': pagesRoute,
  '/api/v1/me': profileRoute,
  '/api/v1/me/apps': appsRoute,
  '/api/v1/me/earnings': earningsRoute,
  '/api/v1/me/api-keys': apiKeysRoute,
};

let handlers: Record<BatchPath, InternalHandler> | undefined;
function handlerFor(path: BatchPath): InternalHandler {
  handlers ??= Object.fromEntries(BATCH_PATHS.map((p) => [p, internalRoute(SPECS[p])])) as Record<BatchPath, InternalHandler>;
  return handlers[path];
}

export interface SubRequest {
  id: string | number;
  /** The path and query as given. */
  path: string;
  route: BatchPath;
}

/** Checks every sub-request's path: an API v1 path this endpoint may dispatch to. */
export function planBatch(requests: { path: string; id?: string | number }[]): SubRequest[] {
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
    const route = url.pathname as BatchPath;
    if (!BATCH_PATHS.includes(route)) {
      throw new ApiError('invalid_request', `${where} may not be ${url.pathname}; allowed: ${BATCH_PATHS.join(', ')}.`);
    }
    return { id: r.id ?? index, path: `${url.pathname}${url.search}`, route };
  });
}

/** One sub-response as JSON text: `{"id":…,"status":…,"body":…}`, the body spliced in as sent. */
async function dispatch(sub: SubRequest, headers: Headers): Promise<string> {
  const request = internalGet(`${env().PUBLIC_BASE_URL}${sub.path}`, headers);
  const response = await handlerFor(sub.route)(request);
  // Handlers answer through json()/jsonText(), whose text is taken as it is: no stream to read
  // back and no second parse. A Response is read and checked to be JSON.
  let text: string;
  if (response instanceof Response) {
    const raw = await response.text();
    text = raw === '' ? 'null' : JSON.stringify(JSON.parse(raw));
  } else {
    text = response.jsonBody;
  }
  return `{"id":${JSON.stringify(sub.id)},"status":${response.status},"body":${text}}`;
}

export async function runBatch(subs: SubRequest[], authorization: string | null, sandbox: boolean): Promise<StoredAnswer> {
  // One set of headers for every sub-request: handlers only read them.
  const headers = new Headers(authorization === null ? undefined : { authorization });
  const responses = await Promise.all(subs.map((s) => dispatch(s, headers)));
  return { status: 200, body: `{"responses":[${responses.join(',')}]${sandbox ? ',"sandbox":true' : ''}}` };
}

export const batchRoute: RouteSpec = {
  name: 'batch',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    POST: method({
      body: batchRequest,
      handler: async ({ request, body, clientIp, charge }) => {
        const key = idempotencyKey(request);
        const subs = planBatch(body.requests);
        // The request itself paid one unit; the others are paid here, before anything runs.
        await charge(subs.length - 1);
        const authorization = request.headers.get('authorization');
        const credential = bearerToken(request);
        const sandbox = credential.present && credential.token === SANDBOX_TOKEN;
        const headers: Record<string, string> = sandbox ? { 'Service-Sandbox': 'true' } : {};
        if (key === null) return jsonText((await runBatch(subs, authorization, sandbox)).body, { headers });

        // With a key, a credential that is present must be valid (else the 401 of the account
        // routes): a stored answer is never replayed to an expired or forged token.
        await authenticate(request, 'api', { required: false });
        return idempotentResponse({
          scope: 'batch',
          // Keys belong to a credential (or, without one, to an address): never shared across callers.
          principal: sha256Hex(authorization ?? `anonymous ${clientIp}`),
          key,
          fingerprint: JSON.stringify(subs.map((s) => [s.id, s.path])),
          run: () => runBatch(subs, authorization, sandbox),
          what: 'batch',
          headers,
        });
      },
    }),
  },
};
