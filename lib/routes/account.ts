import { Lru } from '../cache/lru';
import { defineRoute, json, jsonText, type JsonReply } from '../http/kernel';
import type { Principal } from '../oauth/bearer';
import { ROUTES } from '../registry';
import { getDailyEarnings, getEarnings, getProfile, listApiKeys, listApps } from './operations';
import { todayUtc } from './views';

/**
 * GET /api/v1/me, /me/apps, /me/earnings, /me/api-keys. The kernel has checked the bearer and
 * its scope (before the parameters); the read runs as the user, or on the sandbox's demo data.
 */

/**
 * The sandbox's answers, as sent: its data never changes, so each read and filter is built and
 * serialised once (a few dozen answers at most). Kept because it pays: `npm run bench`
 * measures the sandbox's /me/apps about 10% slower without it.
 */
const sandboxReplies = new Lru<string, string>('sandbox', 100);

/** Sandbox answers are marked in the body (`sandbox: true`) and by this header. */
const SANDBOX_HEADERS = { 'Service-Sandbox': 'true' };

async function reply(principal: Principal, key: string, read: () => Promise<object>): Promise<JsonReply> {
  if (principal.kind !== 'sandbox') return json(await read());
  let text = sandboxReplies.get(key);
  if (text === undefined) sandboxReplies.set(key, (text = JSON.stringify(await read())));
  return jsonText(text, { headers: SANDBOX_HEADERS });
}

export const profileRoute = defineRoute(ROUTES['/api/v1/me'], {
  GET: ({ principal, services }) => reply(principal, 'me', () => getProfile(principal, services.database)),
});

export const appsRoute = defineRoute(ROUTES['/api/v1/me/apps'], {
  GET: ({ principal, query, services }) =>
    reply(principal, `apps ${query.placement_status}`, () => listApps(principal, services.database, query.placement_status)),
});

export const earningsRoute = defineRoute(ROUTES['/api/v1/me/earnings'], {
  GET: ({ principal, query, services }) =>
    reply(principal, `earnings ${query.payout_limit}`, () => getEarnings(principal, services.database, query.payout_limit)),
});

export const apiKeysRoute = defineRoute(ROUTES['/api/v1/me/api-keys'], {
  GET: ({ principal, query, services }) =>
    reply(principal, `api-keys ${query.environment}`, () => listApiKeys(principal, services.database, query.environment)),
});

export const dailyEarningsRoute = defineRoute(ROUTES['/api/v1/me/earnings/daily'], {
  GET: ({ principal, query, services }) => {
    const today = todayUtc(services.now());
    const key = `daily ${query.days} ${query.app_id ?? '-'} ${query.placement_id ?? '-'} ${today}`;
    return reply(principal, key, () => getDailyEarnings(principal, services.database, query, today));
  },
});
