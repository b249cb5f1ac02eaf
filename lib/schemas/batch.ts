import { z } from 'zod';
import { IDEMPOTENCY_KEY } from './common';

export const BATCH_PATHS = [
  '/api/v1/search',
  '/api/v1/pricing',
  '/api/v1/pages',
  '/api/v1/me',
  '/api/v1/me/apps',
  '/api/v1/me/earnings',
  '/api/v1/me/api-keys',
] as const;

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
});

export const idempotencyKeyHeader = z
  .string()
  .regex(IDEMPOTENCY_KEY, { message: 'must be 1 to 255 visible ASCII characters' })
  .describe('Makes a retry return the original result.');
