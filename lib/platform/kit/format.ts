/** How the console writes numbers, money and times: the same on the server and in the browser (en-US, UTC). */

const money = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });
const count = new Intl.NumberFormat('en-US');
const percent = new Intl.NumberFormat('en-US', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
const day = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
const shortDay = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
const moment = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

export const formatUsd = (usd: number): string => money.format(usd);
export const formatCount = (n: number): string => count.format(n);
/** A count and its noun, singular for 1 ("1 impression", "2,310 impressions"). */
export const countOf = (n: number, noun: string, plural = `${noun}s`): string => `${count.format(n)} ${n === 1 ? noun : plural}`;
/** A fraction (0.0512) as a percentage ("5.1%"). */
export const formatPercent = (fraction: number): string => percent.format(fraction);
/** A day without its zone, where the zone is said once beside it (a chart's title, a column's heading). */
export const formatDayOnly = (iso: string): string => day.format(new Date(iso));
/** A day, with the zone it is a day in: every day the console shows is a UTC day unless it says otherwise ("Sep 3, 2025 UTC"). */
export const formatDay = (iso: string): string => `${day.format(new Date(iso))} UTC`;
/** A day without its year ("Nov 20"), for a chart's axis. */
export const formatShortDay = (iso: string): string => shortDay.format(new Date(iso));
export const formatMoment = (iso: string | null): string => (iso === null ? 'never' : moment.format(new Date(iso)));
/** A status or kind stored as an identifier, as a word people read ("in_review" is "in review"). */
export const wordOf = (identifier: string): string => identifier.replaceAll('_', ' ');
/** Clicks per impression; 0 without impressions. */
export const clickThroughRate = (clicks: number, impressions: number): number => (impressions === 0 ? 0 : clicks / impressions);
