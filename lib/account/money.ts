/**
 * Money and rates as the account API reports them. Amounts are rounded to cents once, per item,
 * and totals are sums of those rounded items in whole cents, so a total always equals the sum
 * of the parts a client can see.
 */

export function toCents(usd: number): number {
  return Math.round(usd * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}

export function roundUsd(usd: number): number {
  return fromCents(toCents(usd));
}

export function sumUsd(amounts: readonly number[]): number {
  return fromCents(amounts.reduce((total, a) => total + toCents(a), 0));
}

/** Revenue per 1,000 impressions, in dollars and cents; 0 without impressions. */
export function rpmUsd(revenueUsd: number, impressions: number): number {
  return impressions > 0 ? roundUsd((revenueUsd / impressions) * 1000) : 0;
}

/** Events refused as invalid traffic, per event received (billed or refused): a fraction from 0 to 1 (4 decimals); 0 without events. */
export function invalidShare(invalid: number, billed: number): number {
  const received = invalid + billed;
  return received > 0 ? Math.round((invalid / received) * 10_000) / 10_000 : 0;
}

/** Ad requests that got an ad, per ad request: a fraction from 0 to 1 (4 decimals); 0 without requests. */
export function fillRate(fills: number, adRequests: number): number {
  if (adRequests <= 0) return 0;
  return Math.round(Math.min(1, fills / adRequests) * 10_000) / 10_000;
}
