import { micro, microToUsd, type Micro } from '@/lib/platform/kit/micro';
import type { Campaign } from '@/lib/ads/advertisers/account';
import { formatUsd } from '@/lib/platform/kit/format';

/** Micro-dollars from the ledger, rounded once to the cent for display. */
export const usd = (amount: Micro) => formatUsd(microToUsd(amount));

/** Cost per 1,000 impressions, from what was spent (micro-dollars) and the impressions it bought; its fraction of a micro-dollar is rounded with it, to the cent. */
export const ecpm = (spent: Micro, impressions: number) => (impressions > 0 ? usd(((spent / impressions) * 1000) as Micro) : '—');

/** A campaign's budget not spent yet, in micro-dollars (never below zero). */
export const budgetLeftMicro = (c: Pick<Campaign, 'lifetime_budget_micro' | 'spent_micro'>) =>
  c.lifetime_budget_micro === null ? null : micro(Math.max(0, c.lifetime_budget_micro - c.spent_micro));

/** What a status means, in a line, for the advertiser. */
export function statusNote(c: Pick<Campaign, 'status' | 'pause_reason' | 'rejection_reason'>): string {
  switch (c.status) {
    case 'draft':
      return 'Not sent to review yet.';
    case 'in_review':
      return 'Waiting for the operator’s review.';
    case 'scheduled':
      return 'Approved: it starts on its start date.';
    case 'active':
      return 'Running: its delivery says what it wins.';
    case 'paused':
      if (c.pause_reason === 'out_of_funds') return 'Paused: your balance is used up. It resumes by itself after a top-up.';
      if (c.pause_reason === 'payment_reversed')
        return 'Paused: a payment of yours was refunded or disputed. It resumes once the operator has settled it with you.';
      return 'Paused by you.';
    case 'completed':
      return 'Completed: its end date passed or its budget is spent.';
    case 'rejected':
      return `Rejected: ${c.rejection_reason ?? 'no reason given'}. Edit it, and send it to review again.`;
  }
}
