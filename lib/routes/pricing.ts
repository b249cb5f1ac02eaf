import { jsonText } from '../platform/http/kernel';
import { defineRoute } from './kernel';
import { ROUTES } from '../schemas/registry';

/** GET /api/v1/pricing: the live values, or the defaults with `live: false` (still 200). */
export const pricingRoute = defineRoute(ROUTES['/api/v1/pricing'], {
  GET: async ({ query, services }) => jsonText(await services.pricing.answer(query.audience)),
});
