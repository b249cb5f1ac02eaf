import { json, method, type RouteSpec } from '../http/kernel';
import { pricingBody, pricingQuery } from '../schemas/pricing';
import { loadLivePricing, pricingFor } from './index';

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
