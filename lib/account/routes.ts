import type { z } from 'zod';
import { json, jsonText, method, type RouteSpec } from '../http/kernel';
import { authenticate, requireScope, type Principal } from '../oauth/bearer';
import { apiKeysQuery, appsQuery, earningsQuery, type Scope } from '../schemas/account';
import { getEarnings, getProfile, listApiKeys, listApps } from './index';

/**
 * GET /api/v1/me, /me/apps, /me/earnings, /me/api-keys: the bearer is checked (and its scope)
 * before the parameters, then the read runs as the user (or on the sandbox's demo data).
 */

const serialized = new WeakMap<object, string>();

/** Marks the sandbox's answers (spec: Sandbox). */
const SANDBOX_HEADERS: Readonly<Record<string, string>> = { 'Service-Sandbox': 'true' };

function accountRoute<Q extends z.ZodObject | undefined>(
  name: string,
  scope: Scope,
  query: Q,
  read: (principal: Principal, query: Q extends z.ZodObject ? z.output<Q> : undefined) => Promise<object>,
): RouteSpec {
  return {
    name,
    rateLimit: true,
    cors: 'public',
    apiVersion: true,
    methods: {
      GET: method({
        query,
        authorize: async (request) => {
          const principal = await authenticate(request, 'api');
          requireScope(principal, scope, 'api');
          return principal;
        },
        handler: async ({ auth, query: q }) => {
          const principal = auth as Principal;
          const body = await read(principal, q as never);
          if (principal.kind !== 'sandbox') return json(body);
          // The sandbox's answers are fixed objects: serialise each once.
          let text = serialized.get(body);
          if (text === undefined) serialized.set(body, (text = JSON.stringify(body)));
          return jsonText(text, { headers: SANDBOX_HEADERS });
        },
      }),
    },
  };
}

export const profileRoute = accountRoute('me', 'profile:read', undefined, (p) => getProfile(p));
export const appsRoute = accountRoute('me-apps', 'apps:read', appsQuery, (p, q) => listApps(p, q.placement_status));
export const earningsRoute = accountRoute('me-earnings', 'earnings:read', earningsQuery, (p, q) => getEarnings(p, q.payout_limit));
export const apiKeysRoute = accountRoute('me-api-keys', 'api_keys:read', apiKeysQuery, (p, q) => listApiKeys(p, q.environment));
