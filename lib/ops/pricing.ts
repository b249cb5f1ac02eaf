import { z } from 'zod';
import { asStaff } from '../identity/auth/staff';
import type { SignedInUser } from '../identity/auth/users';
import type { Database } from '../platform/db/roles';
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
  const [row] = await asStaff(db, staff).query<{ v: unknown }>(sql`select public.staff_pricing(${limit}::integer) as v`);
  return view.parse(row!.v);
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

const answer = z.object({
  ok: z.boolean(),
  error: z.string().optional(),
  field: z.string().optional(),
  effective_at: when.optional(),
  applied: z.boolean().optional(),
});

export type PricingScheduled = { ok: true; effectiveAt: Date; applied: boolean } | { ok: false; error: string };

/** What the database's refusals mean, in words for the form (`column` names the value). */
function refusal(error: string | undefined, column: string | undefined): string {
  const field = PRICING_FIELDS.find((f) => f.column === column)?.name ?? column;
  const name = labelOf(field ?? '');
  const dataMarket = DATA_MARKET_FIELDS.find((f) => f.name === field);
  if (dataMarket && ['share_above_one', 'share_not_positive', 'records_below_one', 'too_large', 'not_whole_number'].includes(error ?? '')) {
    return dataMarketBounds(dataMarket);
  }
  switch (error) {
    case 'missing_value':
      return `${name}: give a number.`;
    case 'negative':
      return `${name} cannot be negative.`;
    case 'too_precise':
      return `${name}: at most ${PRICING_FIELDS.find((f) => f.name === field)?.decimals ?? 2} decimals.`;
    case 'too_large':
      return `${name} is too large.`;
    case 'share_above_one':
      return `${name} is a share: between 0 and 1.`;
    case 'shares_must_add_up':
      return 'The publisher ad revenue share and the platform ad fee must add up to 1.';
    case 'multiplier_below_one':
      return 'The exclusive license multiplier is at least 1.';
    case 'in_the_past':
      return 'A change takes effect now or later, never in the past: what was billed keeps its price.';
    case 'reason_required':
      return 'Say why the prices change: the audit log keeps it.';
    default:
      return 'Refused.';
  }
}

/** Schedules `values` from `effectiveAt` (null: now), with the reason the audit log keeps. */
export async function schedulePricing(
  db: Database,
  staff: SignedInUser,
  input: { values: PricingColumns; effectiveAt: Date | null; reason: string },
): Promise<PricingScheduled> {
  const [row] = await asStaff(db, staff).query<{ v: unknown }>(
    sql`select public.staff_pricing_schedule(${JSON.stringify(inColumns(input.values))}::jsonb, ${input.effectiveAt?.toISOString() ?? null}::timestamptz, ${input.reason}) as v`,
  );
  const a = answer.parse(row!.v);
  return a.ok ? { ok: true, effectiveAt: a.effective_at!, applied: a.applied ?? false } : { ok: false, error: refusal(a.error, a.field) };
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

/** The pricing form's fields: every value, when (`now`, or `later` at `effective_at`), and why. */
export const pricingChange = z
  .object({
    ...(Object.fromEntries(PRICING_FIELDS.map((f) => [f.name, decimal(f.name, f.decimals)])) as Record<PricingField, ReturnType<typeof decimal>>),
    when: z.enum(['now', 'later'], 'Say when it takes effect.'),
    effective_at: z.string().optional(),
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
    if (v.when === 'later' && !utcTime.safeParse(v.effective_at ?? '').success) {
      ctx.addIssue({ code: 'custom', message: 'Give the time it takes effect, in UTC.' });
    }
  })
  .transform(({ when: at, effective_at: time, reason, ...values }) => ({
    values: values as PricingColumns,
    effectiveAt: at === 'later' ? utcTime.parse(time) : null,
    reason,
  }));
