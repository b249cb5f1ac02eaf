import { json, jsonText, type JsonReply } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import type { Principal } from '../identity/oauth/bearer';
import { ROUTES } from '../schemas/registry';
import {
  accountSource,
  getDailyEarnings,
  getEarnings,
  getProfile,
  listApiKeys,
  listApps,
  listCampaigns,
  listLicenses,
  type AccountSource,
} from '../account/operations';
import type { Services } from '../services';
import { todayUtc } from '../account/views';

/**
 * GET /api/v1/me, /me/apps, /me/earnings, /me/api-keys, /me/campaigns, /me/licenses. The kernel
 * has checked the bearer and its scope (before the parameters); the read runs as the user, or on
 * the sandbox's demo data.
 */

/** Sandbox answers are marked in the body (`sandbox: true`) and by this header. */
const SANDBOX_HEADERS = { 'Service-Sandbox': 'true' };

type Caller = { principal: Principal; services: Services };

/**
 * The answer of `read` on the caller's account. The sandbox's answers are kept as sent in
 * `services.caches.sandboxReplies`: its data never changes, so each read and filter is built and
 * serialised once.
 */
async function reply({ principal, services }: Caller, key: string, read: (source: AccountSource) => Promise<object>): Promise<JsonReply> {
  const source = accountSource(principal, services.database, services.now, services.caches.accountAnswers);
  if (!source.sandbox) return json(await read(source));
  let text = services.caches.sandboxReplies.get(key);
  if (text === undefined) services.caches.sandboxReplies.set(key, (text = JSON.stringify(await read(source))));
  return jsonText(text, { headers: SANDBOX_HEADERS });
}

export const profileRoute = defineRoute(ROUTES['/api/v1/me'], {
  GET: (ctx) => reply(ctx, 'me', (source) => getProfile(source)),
});

export const appsRoute = defineRoute(ROUTES['/api/v1/me/apps'], {
  GET: (ctx) => reply(ctx, `apps ${ctx.query.placement_status}`, (source) => listApps(source, ctx.query.placement_status)),
});

export const earningsRoute = defineRoute(ROUTES['/api/v1/me/earnings'], {
  GET: (ctx) => reply(ctx, `earnings ${ctx.query.payout_limit}`, (source) => getEarnings(source, ctx.query.payout_limit)),
});

export const apiKeysRoute = defineRoute(ROUTES['/api/v1/me/api-keys'], {
  GET: (ctx) => reply(ctx, `api-keys ${ctx.query.environment}`, (source) => listApiKeys(source, ctx.query.environment)),
});

export const dailyEarningsRoute = defineRoute(ROUTES['/api/v1/me/earnings/daily'], {
  GET: (ctx) => {
    const today = todayUtc(ctx.services.now());
    const key = `daily ${ctx.query.days} ${ctx.query.app_id ?? '-'} ${ctx.query.placement_id ?? '-'} ${today}`;
    return reply(ctx, key, (source) => getDailyEarnings(source, ctx.query, today));
  },
});

export const campaignsRoute = defineRoute(ROUTES['/api/v1/me/campaigns'], {
  GET: (ctx) => {
    const { status, limit, cursor } = ctx.query;
    return reply(ctx, `campaigns ${status} ${limit} ${cursor ?? '-'}`, (source) => listCampaigns(source, ctx.query, ctx.services.cursorKey));
  },
});

export const licensesRoute = defineRoute(ROUTES['/api/v1/me/licenses'], {
  GET: (ctx) => {
    const { status, limit, cursor } = ctx.query;
    return reply(ctx, `licenses ${status} ${limit} ${cursor ?? '-'}`, (source) => listLicenses(source, ctx.query, ctx.services.cursorKey));
  },
});
