import { z } from 'zod';
import { sandboxMarker } from './common';

/** `GET /api/v1`: what the API offers, and what the presented token is. */

export const indexBody = z.object({
  name: z.string(),
  version: z.string(),
  openapi: z.string().url(),
  auth: z.string().url().describe('The authorization server metadata (RFC 8414).'),
  public_endpoints: z.array(z.object({ method: z.string(), path: z.string(), description: z.string() })),
  account_endpoints: z.array(z.object({ method: z.string(), path: z.string(), scope: z.string() })),
  sdk_endpoints: z
    .array(z.object({ method: z.string(), path: z.string(), description: z.string() }))
    .describe(
      'The SDK surface: an app calls it with its API key in `x-api-key`; an ad’s events and click can also be sent with the ad’s token alone. An advertiser’s server sends conversions with its conversions key, its pages with the conversion tag.',
    ),
  token: z
    .object({ scopes: z.array(z.string()), expires_at: z.number().int() })
    .optional()
    .describe('Describes the presented token.'),
  error: z.object({ status: z.number().int(), code: z.string(), message: z.string() }).optional().describe('Present on a 401.'),
  sandbox: sandboxMarker,
});
