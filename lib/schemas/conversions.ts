import { z } from 'zod';

/**
 * Conversions (issue 44): what an advertiser sends back when a click became a sign-up or a sale,
 * from its server (`POST /functions/v1/conversions`, a conversions key) or its pages (the
 * conversion tag, `/functions/v1/conversions/tag`). content/docs/conversions.md shows them.
 */

/** Why a conversion is recorded but not counted, in the order the checks run (public.conversion_record). */
export const CONVERSION_REASONS = [
  'revoked_key',
  'invalid_click_id',
  'unknown_click',
  'foreign_click',
  'click_not_counted',
  'outside_window',
  'already_converted',
  'too_many_for_click',
] as const;
export type ConversionReason = (typeof CONVERSION_REASONS)[number];

export const CONVERSION_STATUSES = ['recorded', 'duplicate', 'invalid'] as const;

/** Where a conversion came from: the advertiser's server (a conversions key) or its pages (the tag). */
export const CONVERSION_SOURCES = ['api', 'tag'] as const;

/** The most conversions one click counts (of different names). */
export const MAX_CONVERSIONS_PER_CLICK = 5;

/** The most a conversion may be worth, in dollars. */
export const MAX_CONVERSION_VALUE_USD = 1_000_000;

/** Text PostgreSQL can store, trimmed, of `max` characters at most. */
const text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((s) => !s.includes('\0'), 'must not contain NUL');

const conversionName = text(100).describe('What happened, in your words: `signup`, `purchase`, `trial_started`. One per click and name counts.');
const clickId = z.string().min(1).max(200).describe('The `mclid` query parameter your landing page was opened with.');
const valueUsd = z
  .number()
  .min(0)
  .max(MAX_CONVERSION_VALUE_USD)
  .refine((v) => Math.abs(v * 1e6 - Math.round(v * 1e6)) < 1e-3, 'at most six decimal places')
  .describe('What the conversion was worth to you, in US dollars (optional; at most six decimal places).');

export const conversionRequest = z
  .object({
    event_id: text(200).describe('Your id for this conversion (an order id, a sign-up id): sending it again changes nothing.'),
    click_id: clickId,
    name: conversionName,
    value_usd: valueUsd.optional(),
    occurred_at: z.iso
      .datetime({ offset: true })
      .describe("When it happened (RFC 3339). Counted only within the campaign's attribution window after the click."),
  })
  .strict();
export type ConversionRequest = z.output<typeof conversionRequest>;

export const conversionTagRequest = z
  .object({
    tag: z
      .string()
      .regex(/^ct_[A-Za-z0-9]{24}$/, 'a conversion tag id is ct_ followed by 24 letters and digits')
      .describe('Your conversion tag id, from the console.'),
    click_id: clickId,
    name: conversionName,
    value_usd: valueUsd.optional(),
    event_id: text(190)
      .optional()
      .describe('Your id for this conversion, kept apart from your server’s ids (as `tag:` and this id); without one, one conversion per click and name.'),
  })
  .strict();
export type ConversionTagRequest = z.output<typeof conversionTagRequest>;

/** The image tag's query: the same fields, as text. */
export const conversionTagQuery = z
  .object({
    tag: conversionTagRequest.shape.tag,
    click_id: clickId,
    name: conversionName,
    value_usd: z
      .string()
      .regex(/^\d{1,7}(\.\d{1,6})?$/, 'a number of dollars, at most six decimal places')
      .transform(Number)
      .pipe(valueUsd)
      .optional(),
    event_id: text(190).optional(),
  })
  .strict();

export const conversionBody = z.object({
  conversion: z.object({
    id: z.string().describe('Our id for it.'),
    event_id: z.string(),
    status: z
      .enum(CONVERSION_STATUSES)
      .describe('`recorded` (counted), `duplicate` (this event id was sent before: nothing changed) or `invalid` (kept, never counted).'),
    reason: z.enum(CONVERSION_REASONS).nullable().describe('Why an invalid conversion is not counted.'),
  }),
});
export type ConversionBody = z.output<typeof conversionBody>;
