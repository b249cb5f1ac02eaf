import { z } from 'zod';

/**
 * Money on the server is a whole number of micro-dollars (millionths of a dollar): the unit the
 * database keeps every amount in, the ledger's and the traffic figures', budgets, payouts and
 * prices alike (migration 20261214001000_money_in_micro_dollars). `Micro` is that number with its
 * unit in its type, so that dollars cannot be passed where micro-dollars are meant, nor the other
 * way: a plain number becomes one only through the functions here.
 *
 * Dollars appear only at the edges: the public interface's `_usd` fields, the figures a page
 * shows, and the forms where people type dollars. An amount is rounded once, when it is shown
 * (`microToUsd`); sums are taken in micro-dollars, exactly, before that.
 */
export type Micro = number & { readonly __unit: 'micro-dollars' };

export const MICRO_PER_USD = 1_000_000;

/** An integer of micro-dollars as the database gives it (bigint columns arrive as numbers); anything else is a bug. */
export function micro(n: number): Micro {
  if (!Number.isSafeInteger(n)) throw new RangeError(`not a whole number of micro-dollars: ${n}`);
  return n as Micro;
}

/** A zod schema of a database's or the ledger's amount: an integer, read as micro-dollars. */
export const microAmount = z.number().int().transform(micro);

/**
 * Dollars in micro-dollars, exactly when the dollars are given to the millionth or coarser (a
 * constant of the code, a figure typed in a form, a price the pricing API published): what
 * floating point cannot hold of such a figure is far below half a micro-dollar, and rounding
 * gives it back.
 */
export function usdToMicro(usd: number): Micro {
  return Math.round(usd * MICRO_PER_USD) as Micro;
}

/** Micro-dollars in dollars, rounded once to the cent, half away from zero: what a figure shows. */
export function microToUsd(amount: Micro): number {
  const cents = Math.round(Math.abs(amount) / 10_000);
  return cents === 0 ? 0 : (Math.sign(amount) * cents) / 100;
}

/**
 * What of a balance can be paid out: its whole cents, never more than it holds (a payout is in
 * whole cents; under a cent stays in the balance). Not negative.
 */
export function wholeCents(amount: Micro): Micro {
  return Math.max(amount - (amount % 10_000), 0) as Micro;
}

/** Micro-dollars in dollars to the millionth, as the CSVs write money: exact, rounded nowhere. */
export function exactUsd(amount: Micro): string {
  return (amount / MICRO_PER_USD).toFixed(6);
}

/**
 * Micro-dollars in dollars, not rounded (to the millionth): a price finer than a cent, such as a
 * CPM or a data price, as the pricing API publishes it. The nearest number to the exact figure,
 * as `Number('0.0020')` reads it.
 */
export function microAsUsd(amount: Micro): number {
  return amount / MICRO_PER_USD;
}

/** The exact sum of amounts in micro-dollars. */
export function sumMicro(amounts: Iterable<Micro>): Micro {
  let total = 0;
  for (const a of amounts) total += a;
  return total as Micro;
}

/** What a conversion cost: the spend over the conversions, in micro-dollars (null without conversions). */
export function costPerConversion(spent: Micro, conversions: number): Micro | null {
  return conversions > 0 ? micro(Math.round(spent / conversions)) : null;
}

/** What a conversion cost in dollars, the exact ratio rounded to the cent once (null without conversions). */
export function costPerConversionUsd(spent: Micro, conversions: number): number | null {
  return conversions > 0 ? Math.round(spent / conversions / 10_000) / 100 : null;
}

/** Return on spend: what the conversions were worth for each dollar spent (null without spend). */
export function returnOnSpend(value: Micro, spent: Micro): number | null {
  return spent > 0 ? value / spent : null;
}
