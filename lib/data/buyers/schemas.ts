import { z } from 'zod';
import { typedNumber } from '../../platform/kit/typed-number';

/**
 * What the data-buyer side sells and what a buyer submits, checked before anything is written
 * (the database holds wider bounds of its own: migration 20261209000000_data_buyers).
 *
 * Three listings, one per unit the pricing sells (`dataset_prices_usd`): AI-interaction rows,
 * UX-session recordings, and GB bundles of both. Each says what its records hold, field by field,
 * as an export delivers them.
 */

/** The version of the data license terms (content/docs/data-buyers.md, Terms) a buyer accepts; a license keeps the one in force when bought. */
export const DATA_TERMS_VERSION = '2026-11-27';

export const LISTING_IDS = ['ai_interactions', 'ux_sessions', 'gb_bundles'] as const;
export type ListingId = (typeof LISTING_IDS)[number];

export interface ListingField {
  name: string;
  type: 'string' | 'timestamp' | 'number' | 'json';
  nullable: boolean;
  meaning: string;
}

export interface Listing {
  id: ListingId;
  title: string;
  summary: string;
  /** The unit priced: one row, one recording, or one GB. */
  unit: 'row' | 'recording' | 'GB';
  /** The price setting it sells at (`dataset_prices_usd`). */
  priceKey: 'per_ai_interaction_row' | 'per_ux_session_recording' | 'per_gb_bundle';
  /** Whether the model filter applies (AI interactions say which model answered). */
  hasModels: boolean;
  fields: readonly ListingField[];
}

const COMMON: readonly ListingField[] = [
  { name: 'record_id', type: 'string', nullable: false, meaning: 'The record, as deletion notices name it.' },
  {
    name: 'subject',
    type: 'string',
    nullable: false,
    meaning: 'Who the record is about, as a pseudonym of this license alone: the same person within it, never joinable with another license.',
  },
  { name: 'app_categories', type: 'json', nullable: false, meaning: 'The categories of the app the record came from (an array of strings).' },
  { name: 'received_at', type: 'timestamp', nullable: false, meaning: 'When the platform received the record.' },
];

export const LISTINGS: Record<ListingId, Listing> = {
  ai_interactions: {
    id: 'ai_interactions',
    title: 'AI-interaction rows',
    summary: 'Prompts people sent to AI features of apps, and the answers they got, with the consent of each person.',
    unit: 'row',
    priceKey: 'per_ai_interaction_row',
    hasModels: true,
    fields: [
      ...COMMON,
      { name: 'occurred_at', type: 'timestamp', nullable: true, meaning: 'When the interaction happened, as the app said.' },
      { name: 'model', type: 'string', nullable: true, meaning: 'The model that answered, as the app named it.' },
      { name: 'prompt', type: 'string', nullable: false, meaning: 'What the person asked (up to 8,000 characters).' },
      { name: 'response', type: 'string', nullable: false, meaning: 'What the AI answered (up to 8,000 characters).' },
    ],
  },
  ux_sessions: {
    id: 'ux_sessions',
    title: 'UX-session recordings',
    summary: 'How people moved through apps: the timed events of a session, as the app recorded them (a type and a target), with consent.',
    unit: 'recording',
    priceKey: 'per_ux_session_recording',
    hasModels: false,
    fields: [
      ...COMMON,
      { name: 'started_at', type: 'timestamp', nullable: false, meaning: 'When the session started.' },
      { name: 'duration_seconds', type: 'number', nullable: false, meaning: 'How long it lasted.' },
      {
        name: 'events',
        type: 'json',
        nullable: false,
        meaning: 'Its events in order: `t` (seconds from the start), `type`, and `target` when the app gave one.',
      },
    ],
  },
  gb_bundles: {
    id: 'gb_bundles',
    title: 'GB bundles',
    summary: 'Records of both kinds, newest first, sold by size: for training and analysis at volume.',
    unit: 'GB',
    priceKey: 'per_gb_bundle',
    hasModels: true,
    fields: [
      ...COMMON,
      { name: 'kind', type: 'string', nullable: false, meaning: '`ai_interaction` or `ux_session`.' },
      { name: 'data', type: 'json', nullable: false, meaning: "The record's content, as in the listing of its kind." },
    ],
  },
};

/** A day as the forms send it (YYYY-MM-DD), or none. */
const day = z
  .string()
  .trim()
  .transform((v) => (v === '' ? null : v))
  .pipe(
    z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, 'Give dates as YYYY-MM-DD.')
      .nullable(),
  )
  .refine((v) => v === null || !Number.isNaN(Date.parse(`${v}T00:00:00Z`)), 'Give a real date.');

/** Words a list filter holds: trimmed, lowercase for categories, no repeats, at most 20. */
const words = (lowercase: boolean) =>
  z
    .array(z.string().trim().max(100, 'A filter value takes at most 100 characters.'))
    .max(20, 'Choose at most 20 values.')
    .transform((values) => [...new Set(values.map((v) => (lowercase ? v.toLowerCase() : v)).filter((v) => v !== ''))]);

/** The most days old a buyer may ask the apps to be (ten years). */
export const MAX_APP_AGE_DAYS = 3650;

/**
 * Only apps at least this many days old (issue 39: a buyer may keep new apps out), as a form sends
 * it (digits, or nothing) or as a number; nothing or 0 is any age.
 */
const minAppAge = z.preprocess(
  (v) => (typeof v === 'string' ? (v.trim() === '' ? null : v.trim()) : v),
  z.coerce
    .number({ message: 'Give the apps’ age as a whole number of days.' })
    .int('Give the apps’ age as a whole number of days.')
    .min(0, 'Give the apps’ age as a whole number of days.')
    .max(MAX_APP_AGE_DAYS, `At most ${MAX_APP_AGE_DAYS.toLocaleString('en-US')} days.`)
    .nullable()
    .transform((n) => (n === 0 ? null : n)),
);

export const catalogFilter = z
  .object({
    categories: words(true).default([]),
    from: day.default(null),
    to: day.default(null),
    models: words(false).default([]),
    min_app_age_days: minAppAge.default(null),
  })
  .refine((f) => f.from === null || f.to === null || f.from <= f.to, { message: 'The first day comes before the last.', path: ['to'] });
export type CatalogFilter = z.output<typeof catalogFilter>;

/** How many units: a whole number of rows or recordings, or GB to the MB. */
export function quantityInput(listing: ListingId) {
  // Read as every amount is (lib/platform/kit/typed-number.ts): `1,5` GB is refused, never 15 GB.
  return (
    listing === 'gb_bundles'
      ? typedNumber({
          maxWholeDigits: 4,
          maxDecimals: 3,
          malformed: 'Give the size in GB, such as 2 or 0.5 (to the MB).',
          comma: 'Give the size in GB with a point before the decimals, such as 0.5: a comma only separates thousands.',
        })
      : typedNumber({
          maxWholeDigits: 7,
          maxDecimals: 0,
          malformed: 'Give a whole number of records, such as 1000.',
          comma: 'Give a whole number of records, such as 1000 or 1,000: a comma only separates thousands.',
        })
  )
    .transform(Number)
    .refine((n) => n > 0, 'Ask for more than nothing.');
}

export const buyerProfileInput = z.object({
  company: z.string().trim().min(1, 'Give the company name.').max(100, 'The company name takes at most 100 characters.'),
  intended_use: z
    .string()
    .trim()
    .min(10, 'Say in a sentence or two what you will use the data for (at least 10 characters).')
    .max(1000, 'The intended use takes at most 1,000 characters.'),
  billing_email: z.string().trim().toLowerCase().email('Give the email address invoices go to.').max(254),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{2}$/, 'Give the country as its two-letter code, such as US or DE.'),
  accept_terms: z.literal(true, { message: 'Accept the data license terms to buy data.' }),
});
export type BuyerProfileInput = z.output<typeof buyerProfileInput>;
