import { ApiError } from '../platform/http/errors';
import { readText } from '../platform/http/input';
import { handleWebhook } from '../money/stripe/rail';
import { ROUTES } from '../schemas/registry';
import { defineRoute } from './kernel';

/**
 * POST /api/webhooks/stripe: Stripe's deliveries (`account.updated`), verified by their signature
 * over the raw body (read within the kernel's cap), each event handled once; 400 for a bad
 * signature (Stripe shows it in its dashboard and retries), 200 fast otherwise.
 */
export const stripeWebhookRoute = defineRoute(ROUTES['/api/webhooks/stripe'], {
  POST: async ({ request, services }) => {
    if (!services.stripe) throw new ApiError('not_found', 'Stripe is not configured on this server.');
    const outcome = await handleWebhook(services.stripe, await services.database(), await readText(request), request.headers.get('stripe-signature'));
    if (outcome.status === 400) throw new ApiError('invalid_request', `The webhook's signature does not verify: ${outcome.error}`);
    return Response.json({ received: true, handled: outcome.handled });
  },
});
