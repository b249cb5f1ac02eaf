import { defineRoute, json, type JsonReply } from '../http/kernel';
import type { Principal } from '../oauth/bearer';
import { ROUTES } from '../registry';
import { getEarnings, getProfile, listApiKeys, listApps } from './operations';

/**
 * GET /api/v1/me, /me/apps, /me/earnings, /me/api-keys. The kernel has checked the bearer and
 * its scope (before the parameters); the read runs as the user, or on the sandbox's demo data.
 */

function reply(principal: Principal, body: object): JsonReply {
  // Sandbox answers are marked in the body (`sandbox: true`) and by this header.
  return json(body, principal.kind === 'sandbox' ? { headers: { 'Service-Sandbox': 'true' } } : {});
}

export const profileRoute = defineRoute(ROUTES['/api/v1/me'], {
  GET: async ({ principal }) => reply(principal, await getProfile(principal)),
});

export const appsRoute = defineRoute(ROUTES['/api/v1/me/apps'], {
  GET: async ({ principal, query }) => reply(principal, await listApps(principal, query.placement_status)),
});

export const earningsRoute = defineRoute(ROUTES['/api/v1/me/earnings'], {
  GET: async ({ principal, query }) => reply(principal, await getEarnings(principal, query.payout_limit)),
});

export const apiKeysRoute = defineRoute(ROUTES['/api/v1/me/api-keys'], {
  GET: async ({ principal, query }) => reply(principal, await listApiKeys(principal, query.environment)),
});
