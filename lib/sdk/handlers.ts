import { defineRoute, json } from '../http/kernel';
import { ROUTES } from '../registry';
import { validateKeyBody } from '../schemas/sdk';

/**
 * The SDK surface (`/functions/v1/*`). The kernel's credential step has checked the key in
 * `x-api-key` before a handler runs (lib/sdk/keys.ts): a handler is given the key's app.
 */

/** GET /functions/v1/validate-key: the key is valid; which app it belongs to. */
export const validateKeyRoute = defineRoute(ROUTES['/functions/v1/validate-key'], {
  GET: ({ principal }) =>
    json(
      validateKeyBody.parse({
        valid: true,
        app: { id: principal.appId, name: principal.appName },
        key: { id: principal.keyId, name: principal.keyName, environment: principal.environment, masked_key: principal.maskedKey },
      }),
    ),
});
