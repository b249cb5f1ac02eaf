import { z } from 'zod';
import { json, method, type RouteSpec } from '../http/kernel';
import { NO_STORE_HEADERS } from '../http/responses';
import { idempotencyKey, idempotentResponse } from '../idempotency';
import { registerClient, validateRegistration } from './clients';
import { requireOAuthSecrets } from './secrets';

/**
 * POST /oauth/register: dynamic client registration (RFC 7591 §3). With `Idempotency-Key`, a
 * retry with the same body returns the same client (and secret); another body is refused.
 */
export const registerRoute: RouteSpec = {
  name: 'oauth-register',
  errors: 'oauth',
  rateLimit: true,
  cors: 'public',
  methods: {
    POST: method({
      body: z.unknown(),
      handler: async ({ request, body, clientIp }) => {
        await requireOAuthSecrets();
        const key = idempotencyKey(request);
        const input = validateRegistration(body);
        if (key === null) return json(await registerClient(input), { status: 201, headers: NO_STORE_HEADERS });
        return idempotentResponse({
          scope: 'oauth_register',
          principal: clientIp,
          key,
          fingerprint: JSON.stringify(input),
          run: async () => ({ status: 201, body: JSON.stringify(await registerClient(input)) }),
          what: 'registration',
          headers: NO_STORE_HEADERS,
        });
      },
    }),
  },
};
