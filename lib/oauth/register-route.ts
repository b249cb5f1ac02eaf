import { z } from 'zod';
import { OAuthError } from '../http/errors';
import { json, jsonText, method, type RouteSpec } from '../http/kernel';
import { IDEMPOTENCY_KEY, idempotent } from '../idempotency';
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
        const key = request.headers.get('idempotency-key');
        const input = validateRegistration(body);
        const created = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
        if (key === null) return json(await registerClient(input), { status: 201, headers: created });
        if (!IDEMPOTENCY_KEY.test(key)) {
          throw new OAuthError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
        }
        const outcome = await idempotent({
          scope: 'oauth_register',
          principal: clientIp,
          key,
          fingerprint: JSON.stringify(input),
          run: async () => ({ status: 201, body: JSON.stringify(await registerClient(input)) }),
        });
        if (outcome.kind === 'mismatch') {
          throw new OAuthError('invalid_request', 'This Idempotency-Key was used with another registration; use a new key.');
        }
        if (outcome.kind === 'in_progress') {
          throw new OAuthError('invalid_request', 'A registration with this Idempotency-Key is still running; retry in a moment.', 409);
        }
        const headers: Record<string, string> = { ...created, 'Idempotency-Key': key };
        if (outcome.kind === 'replayed') headers['Idempotent-Replayed'] = 'true';
        return jsonText(outcome.answer.body, { status: outcome.answer.status, headers });
      },
    }),
  },
};
