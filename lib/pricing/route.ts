import { jsonText, method, type RouteSpec } from '../http/kernel';
import { pricingBody, pricingQuery, type Audience } from '../schemas/pricing';
import { livePricingNow, loadLivePricing, pricingFor } from './index';
import type { PricingValues } from './defaults';
import { badRequest } from '../http/responses';
import { operationsOf } from '../openapi/operations';

/**
 * The serialised answer for each audience, for as long as the same read of the settings is in
 * use (loadLivePricing hands back the same object until it reads again).
 */
const serialised = new WeakMap<PricingValues, Map<Audience, string>>();

function bodyFor(values: PricingValues | null, audience: Audience): string {
  const fresh = () => JSON.stringify(pricingBody.parse(pricingFor(values, audience)));
  // The defaults (a failed read) are not kept: the next read may succeed.
  if (!values) return fresh();
  let byAudience = serialised.get(values);
  if (!byAudience) serialised.set(values, (byAudience = new Map()));
  let body = byAudience.get(audience);
  if (body === undefined) byAudience.set(audience, (body = fresh()));
  return body;
}

/** GET /api/v1/pricing: the live values, or the defaults with `live: false` (still 200). */
export const pricingRoute: RouteSpec = {
  name: 'pricing',
  rateLimit: true,
  cors: 'public',
  apiVersion: true,
  methods: {
    GET: method({
      query: pricingQuery,
      cache: 'public, max-age=60',
      handler: ({ query }) => {
        const now = livePricingNow();
        if (now) return jsonText(bodyFor(now.values, query.audience));
        return loadLivePricing().then((values) => jsonText(bodyFor(values, query.audience)));
      },
    }),
  },
};

export const pricingOperations = operationsOf('/api/v1/pricing', pricingRoute, {
  GET: {
    operationId: 'getPricing',
    summary: 'Current pricing',
    description:
      '`audience` narrows the optional fields: `publisher` adds `min_payout_usd`; `advertiser` adds `advertiser_cpm_usd`; `data_buyer` adds `dataset_prices_usd` and `exclusive_license_multiplier`; `all` (default) adds all of them.',
    tags: ['Public'],
    security: 'none',
    responses: {
      200: { description: 'The live values, or the defaults with `live: false` when they could not be read.', schema: pricingBody },
      400: badRequest,
    },
  },
});
