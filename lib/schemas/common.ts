import { z } from 'zod';

/**
 * Query-string integers: digits only ("1e1", "0x10", " 5" and "" are not integers), then range
 * checked. The JSON Schema of the OpenAPI document sees an integer with its bounds and default.
 */
export function intParam(min: number, max: number, fallback: number) {
  const range = `must be an integer from ${min} to ${max}`;
  return z
    .preprocess(
      (v) => (typeof v === 'string' && /^-?\d{1,12}$/.test(v) ? Number(v) : v),
      z.number({ message: range }).int({ message: range }).min(min, { message: range }).max(max, { message: range }),
    )
    .default(fallback)
    .meta({ default: fallback });
}

export const cursorParam = z
  .string()
  .min(1, { message: 'must not be empty' })
  .max(512, { message: 'is not a cursor this API issued' })
  .optional()
  .describe('Opaque: `pagination.next_cursor` of the previous page.');

export const pagination = z.object({
  next_cursor: z.string().nullable().describe('Pass back as `cursor`; null on the last page.'),
  has_more: z.boolean(),
  limit: z.number().int().describe('The page size applied.'),
});

/** The field that marks answers to the sandbox token. */
export const sandboxMarker = z.literal(true).optional().describe('Present, and true, on answers to the sandbox token.');

export const apiErrorBody = z.object({
  error: z.object({
    status: z.number().int(),
    code: z.string(),
    message: z.string(),
  }),
});

/** `Idempotency-Key`: 1 to 255 visible ASCII characters (0x21 to 0x7E), as content/docs/rate-limits.md says. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
