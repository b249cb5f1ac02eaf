import { z } from 'zod';
import { IDEMPOTENCY_KEY, sandboxMarker } from './common';

export const batchRequest = z.object({
  requests: z
    .array(
      z.object({
        path: z.string().min(1).describe('An API v1 path with its query string, e.g. /api/v1/search?q=payout.'),
        method: z.literal('GET').default('GET'),
        id: z.union([z.string(), z.number().int()]).optional().describe('A label echoed back; defaults to the index.'),
      }),
    )
    .min(1, { message: 'must hold 1 to 20 requests' })
    .max(20, { message: 'must hold 1 to 20 requests' }),
});

export const batchBody = z.object({
  responses: z.array(
    z.object({
      id: z.union([z.string(), z.number().int()]),
      status: z.number().int(),
      body: z.unknown(),
    }),
  ),
  sandbox: sandboxMarker,
});

export const idempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY, { message: 'must be 1 to 255 visible ASCII characters' })
  .describe('Makes a retry return the original result.');
