import { json, method, type RouteSpec } from '../http/kernel';
import { pricingBody, pricingQuery } from '../schemas/pricing';
import { loadLivePricing, pricingFor } from './index';
import { badRequest } from '../http/responses';
import { operationsOf } from '../openapi/operations';

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
      handler: async ({ query }) => json(pricingBody.parse(pricingFor(await loadLivePricing(), query.audience))),
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
