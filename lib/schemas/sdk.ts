import { z } from 'zod';
import { KEY_ENVIRONMENTS } from './account';

/** The SDK surface (`/functions/v1/*`): its answers, as content/docs/sdk-integration.md shows them. */

/** `GET /functions/v1/validate-key`: the key is valid, and this is its app. */
export const validateKeyBody = z.object({
  valid: z.literal(true),
  app: z.object({
    id: z.string(),
    name: z.string(),
  }),
  key: z.object({
    id: z.string(),
    name: z.string(),
    environment: z.enum(KEY_ENVIRONMENTS).describe('A label only: both kinds of key serve live traffic.'),
    masked_key: z.string().describe('The prefix and the last 4 characters only.'),
  }),
});

export type ValidateKeyBody = z.output<typeof validateKeyBody>;
