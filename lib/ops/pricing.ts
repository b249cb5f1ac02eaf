import { z } from 'zod';
import { asStaff } from '../identity/auth/staff';
import type { SignedInUser } from '../identity/auth/users';
import type { Database } from '../platform/db/roles';
import { call, type Refusals } from '../platform/kit/call';
import { sql } from '../platform/db/sql';
import { micro, microAsUsd, MICRO_PER_USD, usdToMicro } from '../platform/kit/micro';
import { DATA_MARKET_FIELDS, PRICING_FIELDS, type PricingColumn, type PricingColumns, type PricingField } from './pricing-fields';

export { DATA_MARKET_FIELDS, PRICING_FIELDS, type PricingColumns, type PricingField };

/**
 * The operator's pricing (/ops): the values in force and the scheduled changes, and the act of
 * scheduling one: every value, effective now or from a later time (never an earlier one), with
 * its reason. The database checks the values again, applies a change effective now at once and
 * audits it (public.staff_pricing_schedule, migration 20261213000100_pricing_in_production); a
 * later one goes into force at the first run of the server's timer after its time
 * (lib/ads/serving/rollup.ts, applyDuePricing). The money functions read the values in force when they bill and keep
 * what they billed, so no change reaches what was billed before it. The data market's settings
 * (the share caps of a license, the sellers' minimum age and days of ads, the claw-back window)
 * are values of a change like the prices (migration 20261213001100_pricing_data_settings).
 * The database keeps prices and minimums in micro-dollars (migration
 * 20261214001000_money_in_micro_dollars); the form and the console give them in dollars, so the
 * values cross here, exactly, both ways.
 */

const SHARES: readonly PricingField[] = ['publisher_ad_revenue_share', 'platform_ad_fee', 'publisher_data_revenue_share'];
const labelOf = (name: string) => PRICING_FIELDS.find((f) => f.name === name)?.label.replace(/ \(.*$/, '') ?? name;
/** A value kept in micro-dollars, typed and shown in dollars. */
const inDollars = (f: (typeof PRICING_FIELDS)[number]) => f.column !== f.name;

/** What a data market setting may be, in words: the form's check and the database's refusal say the same. */
function dataMarketBounds(f: (typeof DATA_MARKET_FIELDS)[number]): string {
  return f.decimals > 0 ? `${labelOf(f.name)} is a share: more than 0, at most ${f.most}.` : `${labelOf(f.name)}: a whole number from ${f.least} to ${f.most}.`;
}

/** A row of `pricing_settings` or `pricing_changes`, by column: prices and minimums in micro-dollars. */
const columns = z.object(Object.fromEntries(PRICING_FIELDS.map((f) => [f.column, z.coerce.number()])) as Record<PricingColumn, z.ZodCoercedNumber>);
/** A row's values by field, as the form and the console give them: prices and minimums in dollars, exactly. */
const values = columns.transform(
  (row) => Object.fromEntries(PRICING_FIELDS.map((f) => [f.name, inDollars(f) ? microAsUsd(micro(row[f.column])) : row[f.column]])) as PricingColumns,
);
const when = z.coerce.date();
const view = z.object({
  current: z.intersection(values, z.object({ updated_at: when })).nullable(),
  changes: z.array(
    z.intersection(
      values,
      z.object({
        id: z.number(),
        effective_at: when,
        reason: z.string(),
        scheduled_at: when,
        scheduled_by_email: z.string().nullable(),
        applied_at: when.nullable(),
      }),
    ),
  ),
});
export type StaffPricing = z.infer<typeof view>;

/** The values in force and the latest scheduled changes, newest first. */
export async function staffPricing(db: Database, staff: SignedInUser, limit = 50): Promise<StaffPricing> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_pricing(${limit}::integer) as v`, z.object({ v: view }));
  return row!.v;
}

/**
 * A change's values by column, as public.staff_pricing_schedule takes them: dollars in
 * micro-dollars, exactly. A figure finer than a micro-dollar goes as it is (a fraction of one),
 * for the database to refuse as too precise rather than have it rounded here.
 */
function inColumns(input: Partial<PricingColumns>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of PRICING_FIELDS) {
    const v = input[f.name];
    if (v === undefined) continue;
    if (!inDollars(f)) {
      out[f.column] = v;
      continue;
    }
    const m = usdToMicro(v);
    out[f.column] = microAsUsd(m) === v ? m : v * MICRO_PER_USD;
  }
  return out;
}

export type PricingScheduled = { ok: true; effectiveAt: Date; applied: boolean } | { ok: false; error: string };

/**
 * A refusal's facts: the value it is about (`field`), when it is about one. The database names
 * the value by its column (`min_payout_micro`); the form and these words, by its field
 * (`min_payout_usd`).
 */
const refusalFacts = z
  .object({ field: z.string().optional() })
  .transform((a) => ({ field: PRICING_FIELDS.find((f) => f.column === a.field)?.name ?? a.field }));
type RefusalFacts = z.infer<typeof refusalFacts>;
const nameOf = (a: RefusalFacts) => labelOf(a.field ?? '');

/** What a data market setting refused may be: the bounds of the field named, which the database only refuses that way. */
function bounds(a: RefusalFacts): string {
  const field = DATA_MARKET_FIELDS.find((f) => f.name === a.field);
  if (!field) throw new Error(`public.staff_pricing_schedule refused ${a.field ?? 'no field'} as a data market setting`);
  return dataMarketBounds(field);
}
/** A refusal of any value, in words; for a data market setting, its bounds (the form's check says the same). */
const marketOr = (words: (a: RefusalFacts) => string) => (a: RefusalFacts) => (DATA_MARKET_FIELDS.some((f) => f.name === a.field) ? bounds(a) : words(a));

/** public.staff_pricing_schedule's refusals, in words for the form (`field` names the value). */
const SCHEDULE_REFUSALS: Refusals<
  | 'reason_required'
  | 'missing_value'
  | 'negative'
  | 'not_whole_number'
  | 'too_precise'
  | 'share_above_one'
  | 'too_large'
  | 'shares_must_add_up'
  | 'multiplier_below_one'
  | 'share_not_positive'
  | 'records_below_one'
  | 'price_not_positive'
  | 'in_the_past',
  RefusalFacts
> = {
  missing_value: (a) => `${nameOf(a)}: give a number.`,
  negative: (a) => `${nameOf(a)} cannot be negative.`,
  too_precise: (a) => `${nameOf(a)}: at most ${PRICING_FIELDS.find((f) => f.name === a.field)?.decimals ?? 2} decimals.`,
  too_large: marketOr((a) => `${nameOf(a)} is too large.`),
  share_above_one: marketOr((a) => `${nameOf(a)} is a share: between 0 and 1.`),
  // Only the data market's settings are whole numbers, or shares that must be above 0, or a count of records.
  not_whole_number: bounds,
  share_not_positive: bounds,
  records_below_one: bounds,
  price_not_positive: (a) => `${nameOf(a)} is more than 0.`,
  shares_must_add_up: 'The publisher ad revenue share and the platform ad fee must add up to 1.',
  multiplier_below_one: 'The exclusive license multiplier is at least 1.',
  in_the_past: 'A change takes effect now or later, never in the past: what was billed keeps its price.',
  reason_required: 'Say why the prices change: the audit log keeps it.',
};

/** Schedules `values` from `effectiveAt` (null: now), with the reason the audit log keeps. */
export async function schedulePricing(
  db: Database,
  staff: SignedInUser,
  input: { values: PricingColumns; effectiveAt: Date | null; reason: string },
): Promise<PricingScheduled> {
  const result = await call(
    asStaff(db, staff),
    sql`select public.staff_pricing_schedule(${JSON.stringify(inColumns(input.values))}::jsonb, ${input.effectiveAt?.toISOString() ?? null}::timestamptz, ${input.reason}) as v`,
    z.object({ effective_at: when, applied: z.boolean() }),
    SCHEDULE_REFUSALS,
    { facts: refusalFacts },
  );
  return result.ok ? { ok: true, effectiveAt: result.value.effective_at, applied: result.value.applied } : result;
}

/** A decimal of at most `decimals` places (none: a whole number), never negative, as typed in the form. */
const decimal = (name: PricingField, decimals: number) =>
  z
    .string(`${labelOf(name)}: give a number.`)
    .trim()
    .regex(
      decimals > 0 ? new RegExp(`^[0-9]{1,8}(\\.[0-9]{1,${decimals}})?$`) : /^[0-9]{1,8}$/,
      decimals > 0 ? `${labelOf(name)}: a number, not negative, with at most ${decimals} decimals.` : `${labelOf(name)}: a whole number, not negative.`,
    )
    .transform(Number);

/** A time typed as UTC (`datetime-local`, which carries no zone: the form says UTC). */
const utcTime = z
  .string()
  .trim()
  .regex(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2})?$/, 'Give the time it takes effect, in UTC.')
  .transform((v) => new Date(`${v.length === 16 ? `${v}:00` : v}Z`))
  .refine((d) => !Number.isNaN(d.getTime()), 'Give the time it takes effect, in UTC.');

/** When a later change takes effect: `effective_at` whole, or the console's day and time (UTC) apart. */
const effectiveAt = (v: { effective_at?: string; effective_day?: string; effective_time?: string }) =>
  v.effective_at || (v.effective_day && v.effective_time ? `${v.effective_day}T${v.effective_time}` : '');

/** The pricing form's fields: every value, when (`now`, or `later` at `effective_at`), and why. */
export const pricingChange = z
  .object({
    ...(Object.fromEntries(PRICING_FIELDS.map((f) => [f.name, decimal(f.name, f.decimals)])) as Record<PricingField, ReturnType<typeof decimal>>),
    when: z.enum(['now', 'later'], 'Say when it takes effect.'),
    effective_at: z.string().optional(),
    effective_day: z.string().optional(),
    effective_time: z.string().optional(),
    reason: z.string().trim().min(3, 'Say why the prices change: the audit log keeps it.').max(1000, 'At most 1000 characters.'),
  })
  .superRefine((v, ctx) => {
    for (const share of SHARES) {
      if (v[share] > 1) ctx.addIssue({ code: 'custom', message: `${labelOf(share)} is a share: between 0 and 1.` });
    }
    // In ten-thousandths, the shares' unit, so that no binary fraction decides it.
    if (Math.round(v.publisher_ad_revenue_share * 10_000) + Math.round(v.platform_ad_fee * 10_000) !== 10_000) {
      ctx.addIssue({ code: 'custom', message: 'The publisher ad revenue share and the platform ad fee must add up to 1.' });
    }
    if (v.exclusive_license_multiplier < 1) ctx.addIssue({ code: 'custom', message: 'The exclusive license multiplier is at least 1.' });
    for (const f of DATA_MARKET_FIELDS) {
      if (v[f.name] < f.least || v[f.name] > f.most) ctx.addIssue({ code: 'custom', message: dataMarketBounds(f) });
    }
    if (v.when === 'later' && !utcTime.safeParse(effectiveAt(v)).success) {
      ctx.addIssue({ code: 'custom', message: 'Give the time it takes effect, in UTC.' });
    }
  })
  .transform(({ when: at, effective_at, effective_day, effective_time, reason, ...values }) => ({
    values: values as PricingColumns,
    effectiveAt: at === 'later' ? utcTime.parse(effectiveAt({ effective_at, effective_day, effective_time })) : null,
    reason,
  }));
