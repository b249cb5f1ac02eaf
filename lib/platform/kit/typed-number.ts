import { z } from 'zod';
import { micro } from './micro';

/**
 * A number as a person types it in one of our forms (a top-up, a budget, a quantity), read one
 * way only: digits, grouped by thousands with commas or not (`7,500`, `7500`), and a point before
 * the decimals (`75.00`, `7,500.00`). Half the world writes `75,00` for seventy-five and
 * `1.234,56` for a thousand and more; dropping the commas read those as $7,500 and $1.23456. So a
 * comma is taken only where it groups three digits of the whole part, and anything else with a
 * comma in it is refused with a message that says how to write it, never guessed.
 */

export type TypedNumber =
  | { ok: true; /** The whole part's digits, without commas. */ whole: string; /** The digits after the point ('' when none). */ decimals: string }
  | { ok: false; /** `comma`: a comma where only a point can be (`75,00`, `1.234,56`, `0,5`). */ reason: 'comma' | 'malformed' };

const WRITTEN = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/;

export function readTypedNumber(typed: string): TypedNumber {
  const m = WRITTEN.exec(typed);
  if (m) return { ok: true, whole: m[1]!.replaceAll(',', ''), decimals: m[2] ?? '' };
  return { ok: false, reason: /^[\d.,]*,[\d.,]*$/.test(typed) ? 'comma' : 'malformed' };
}

export interface TypedNumberRules {
  /** The most digits of the whole part. */
  maxWholeDigits: number;
  /** The most digits after the point (0: a whole number). */
  maxDecimals: number;
  /** What the form says of anything it cannot read (too many digits, letters, a second point). */
  malformed: string;
  /** What it says of a comma where the point belongs. */
  comma: string;
}

/**
 * A zod schema of a typed number under `rules`, giving its plain written form (`7500.00`): the
 * caller turns that into what it stores (micro-dollars, a quantity), exactly.
 */
export function typedNumber(rules: TypedNumberRules) {
  return z
    .string()
    .trim()
    .transform((text, ctx) => {
      const read = readTypedNumber(text);
      if (!read.ok) {
        ctx.addIssue({ code: 'custom', message: read.reason === 'comma' ? rules.comma : rules.malformed });
        return z.NEVER;
      }
      if (read.whole.length > rules.maxWholeDigits || read.decimals.length > rules.maxDecimals) {
        ctx.addIssue({ code: 'custom', message: rules.malformed });
        return z.NEVER;
      }
      return read.decimals ? `${read.whole}.${read.decimals}` : read.whole;
    });
}

/**
 * A price as typed, to the hundredth of a cent ("0.75", "$1.2550"), in micro-dollars: a bid per
 * click, kept as prices are (multiples of 100 micro-dollars).
 */
export const priceDollars = (what: string) =>
  z
    .string()
    .trim()
    .transform((v) => v.replace(/^\$/, ''))
    .pipe(
      typedNumber({
        maxWholeDigits: 2,
        maxDecimals: 4,
        malformed: `Give the ${what} in dollars, under $100 and to the hundredth of a cent at most, such as 0.75.`,
        comma: `Give the ${what} with a point before the cents, such as 0.75.`,
      }),
    )
    .transform((v) => micro(Math.round(Number(v) * 10_000) * 100));

/**
 * Dollars as typed ("250", "$1,000.50"; read by typedNumber above, so `75,00` is
 * refused, never read as 7,500), in micro-dollars; whole cents only.
 */
export const dollars = (what: string) =>
  z
    .string()
    .trim()
    .transform((v) => v.replace(/^\$/, ''))
    .pipe(
      typedNumber({
        maxWholeDigits: 9,
        maxDecimals: 2,
        malformed: `Give the ${what} in dollars, such as 250 or 99.50.`,
        comma: `Give the ${what} with a point before the cents, such as 75.00: a comma only separates thousands, as in 7,500.`,
      }),
    )
    .transform((v) => micro(Math.round(Number(v) * 100) * 10_000));
