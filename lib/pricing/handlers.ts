import { defineRoute, json } from '../http/kernel';
import { ROUTES } from '../registry';
import { pricingBody } from '../schemas/pricing';
import { loadLivePricing, pricingFor } from './settings';

/** GET /api/v1/pricing: the live values, or the defaults with `live: false` (still 200). */
export const pricingRoute = defineRoute(ROUTES['/api/v1/pricing'], {
  GET: async ({ query }) => json(pricingBody.parse(pricingFor(await loadLivePricing(), query.audience))),
});
