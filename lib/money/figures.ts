/**
 * Money and rates as the account API reports them. The database keeps amounts exactly (the
 * ledger in integer micro-dollars, traffic figures to the millionth of a dollar); each figure
 * shown is rounded to the cent once, at the end. An item is its own exact amount rounded, and a
 * total is the exact sum of its items rounded, never a sum of rounded items: so a total may differ
 * by a cent or so from the sum of the rounded items beside it, and never drifts from what was
 * earned however many small items there are.
 */

/** The micro-dollars of an amount given in dollars to the millionth (as the database gives them): exact. */
export function toMicro(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** Micro-dollars in dollars, rounded once to the cent, half away from zero. */
export function microToUsd(micro: number): number {
  const cents = Math.round(Math.abs(micro) / 10_000);
  return cents === 0 ? 0 : (Math.sign(micro) * cents) / 100;
}

/** The exact sum of amounts given in dollars to the millionth, in micro-dollars. */
export function exactSumMicro(amounts: readonly number[]): number {
  return amounts.reduce((total, a) => total + toMicro(a), 0);
}

/** The exact sum of amounts given in dollars to the millionth, rounded once to the cent. */
export function exactSumUsd(amounts: readonly number[]): number {
  return microToUsd(exactSumMicro(amounts));
}

/** One amount given in dollars to the millionth, rounded once to the cent. */
export function roundUsd(usd: number): number {
  return microToUsd(toMicro(usd));
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

/** Clicks per impression: a fraction from 0 to 1 (4 decimals); 0 without impressions. */
export function clickThroughRate(clicks: number, impressions: number): number {
  if (impressions <= 0) return 0;
  return Math.round(Math.min(1, clicks / impressions) * 10_000) / 10_000;
}

/** What 1,000 impressions cost, from the exact spend in micro-dollars, rounded once to the cent; 0 without impressions. */
export function ecpmUsd(spendMicro: number, impressions: number): number {
  return impressions > 0 ? microToUsd(Math.round((spendMicro * 1000) / impressions)) : 0;
}
