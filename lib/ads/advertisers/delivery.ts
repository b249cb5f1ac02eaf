import { z } from 'zod';
import { asConsoleUser } from '../../identity/console';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { micro, microAmount, type Micro } from '../../platform/kit/micro';
import { PLACEMENT_FORMATS, type PlacementFormat } from '../../schemas/account';
import type { Campaign } from './account';

const count = z.coerce.number().int().nonnegative();

/** public.advertiser_campaign_delivery's answer: today's figures (UTC), the market's rounded. */
export const deliveryRow = z.object({
  day: z.string(),
  /** Ad requests today on the placements the campaign targets now (rounded). */
  requests: count,
  /** Of those, the ones no campaign was given, by why (rounded). */
  unfilled: z.object({ sensitive: count, below_relevance: count, blocked: count, no_eligible_campaign: count }),
  /** Requests it won today: exact. */
  won: count,
  daily_budget_micro: z.coerce.number().pipe(microAmount),
  spent_micro: z.coerce.number().pipe(microAmount),
  /** Requests on the same placements over the last seven full days (rounded). */
  week_requests: count,
  /** The daily budgets of the other running campaigns buying its formats (rounded). */
  competing_budget_micro: z.coerce.number().pipe(microAmount),
  /** The formats it has an approved creative in. */
  creative_formats: z.array(z.enum(PLACEMENT_FORMATS)),
});
export type Delivery = z.output<typeof deliveryRow>;

/** How the caller's campaign delivers today (null for a campaign not theirs). */
export async function campaignDelivery(db: Database, userId: string, campaignId: string): Promise<Delivery | null> {
  const [row] = await asConsoleUser(db, userId).query(
    sql`select public.advertiser_campaign_delivery(${campaignId}::uuid) as v`,
    z.object({ v: deliveryRow.nullable() }),
  );
  return row?.v ?? null;
}

export interface DeliveryReport {
  /** What keeps it from every draw now; empty when it takes part. */
  blockers: string[];
  /** Its daily budget's share of all the daily budgets drawn from for its formats (0 to 1). */
  share: number;
  /** Today's requests on what it targets that another campaign won, by difference (never below 0). */
  wonByOthers: number;
  /** Today's requests on what it targets that no campaign was given. */
  unfilled: number;
  /** Before it runs, or while it does: what a day is likely to bring, from the last week. */
  estimate: { requestsPerDay: number; winsPerDay: number; costPerDayMicro: Micro };
}

/**
 * What the delivery panel says, from the campaign, its delivery figures, the advertiser's balance
 * and the CPMs of its formats (micro-dollars per thousand): why it cannot take part in the draw now
 * (status, creatives, balance, today's budget), the share of the draw its budget buys, where today's
 * requests went, and what a day is likely to bring (the last week's requests a day times its share,
 * its cost at the dearest of its formats' CPMs, at most its daily budget). An estimate, said as one.
 */
export function deliveryReport(
  campaign: Pick<Campaign, 'status' | 'formats' | 'starts_at'>,
  d: Delivery,
  balance: Micro,
  cpmMicro: Record<PlacementFormat, number>,
): DeliveryReport {
  const blockers: string[] = [];
  if (campaign.status === 'draft' || campaign.status === 'rejected') blockers.push('It is not approved yet: send it to review.');
  if (campaign.status === 'in_review') blockers.push('It waits for the operator’s review.');
  if (campaign.status === 'scheduled') blockers.push('It starts on its start date.');
  if (campaign.status === 'paused') blockers.push('It is paused.');
  if (campaign.status === 'completed') blockers.push('It is completed.');
  const formats = campaign.formats.length ? campaign.formats : PLACEMENT_FORMATS;
  if (!formats.some((f) => d.creative_formats.includes(f))) blockers.push('It has no approved creative in a format it buys.');
  if (balance <= 0) blockers.push('Your balance is empty.');
  if (d.spent_micro >= d.daily_budget_micro) blockers.push('Today’s budget is spent: it takes part again tomorrow (UTC).');
  const share = d.daily_budget_micro / (d.daily_budget_micro + d.competing_budget_micro);
  const unfilled = d.unfilled.sensitive + d.unfilled.below_relevance + d.unfilled.blocked + d.unfilled.no_eligible_campaign;
  const requestsPerDay = Math.round(d.week_requests / 7);
  const winsPerDay = Math.round(requestsPerDay * share);
  const cpm = Math.max(...formats.map((f) => cpmMicro[f]));
  const costPerDayMicro = micro(Math.min(d.daily_budget_micro, Math.round((winsPerDay * cpm) / 1000)));
  return { blockers, share, wonByOthers: Math.max(0, d.requests - d.won - unfilled), unfilled, estimate: { requestsPerDay, winsPerDay, costPerDayMicro } };
}
