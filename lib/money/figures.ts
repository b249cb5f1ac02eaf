import { micro, microAsUsd, microToUsd, sumMicro, usdToMicro, type Micro } from '../platform/kit/micro';

/**
 * Money and rates as the account API reports them. The database keeps every amount exactly, in
 * integer micro-dollars (lib/platform/kit/micro.ts); each figure shown is rounded to the cent
 * once, at the end. An item is its own exact amount rounded, and a total is the exact sum of its
 * items rounded, never a sum of rounded items: so a total may differ by a cent or so from the sum
 * of the rounded items beside it, and never drifts from what was earned however many small items
 * there are.
 */

/** The exact sum of amounts in micro-dollars, rounded once to the cent. */
export function exactSumUsd(amounts: Iterable<Micro>): number {
  return microToUsd(sumMicro(amounts));
}

/**
 * Revenue per 1,000 impressions, in dollars and cents; 0 without impressions. Computed as it was
 * when revenue was kept in dollars (the revenue per impression in dollars, times 1,000, to the
 * micro-dollar, then to the cent), so that no figure already published moves by a cent.
 */
export function rpmUsd(revenue: Micro, impressions: number): number {
  return impressions > 0 ? microToUsd(usdToMicro((microAsUsd(revenue) / impressions) * 1000)) : 0;
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
export function ecpmUsd(spend: Micro, impressions: number): number {
  return impressions > 0 ? microToUsd(micro(Math.round((spend * 1000) / impressions))) : 0;
}
