import { z } from 'zod';
import { asConsoleUser } from '../../identity/console';
import type { Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { micro, type Micro } from '../../platform/kit/micro';
import { CONVERSION_REASONS, CONVERSION_SOURCES, type ConversionReason } from '../../schemas/conversions';

/** What each reason a conversion was not counted means, for the advertiser. */
export const CONVERSION_REASON_TEXT: Record<ConversionReason, string> = {
  revoked_key: 'sent with a revoked key',
  invalid_click_id: 'a click id we did not make',
  unknown_click: 'no such click (or older than 35 days)',
  foreign_click: "another advertiser's click",
  click_not_counted: 'its click was not counted',
  outside_window: "outside the campaign's attribution window",
  already_converted: 'this click already has a conversion of this name',
  too_many_for_click: 'this click already has five conversions',
};

export interface RecentConversion {
  id: string;
  event_id: string;
  name: string;
  source: 'api' | 'tag';
  campaign: string | null;
  value: Micro;
  occurred_at: Date;
  valid: boolean;
  reason: ConversionReason | null;
}

const row = z.object({
  id: z.string(),
  event_id: z.string(),
  name: z.string(),
  source: z.enum(CONVERSION_SOURCES),
  campaign: z.string().nullable(),
  value_micro: z.number().int().transform(micro),
  occurred_at: z.coerce.date(),
  valid: z.boolean(),
  invalid_reason: z.enum(CONVERSION_REASONS).nullable(),
});

/** The advertiser's last `limit` conversions received, counted or not, newest first (its own rows only: row-level security). */
export async function recentConversions(db: Database, userId: string, limit = 25): Promise<RecentConversion[]> {
  const rows = await asConsoleUser(db, userId).query(
    sql`select v.id, v.event_id, v.name, v.source, c.name as campaign, v.value_micro, v.occurred_at, v.valid, v.invalid_reason
        from public.conversions v left join public.campaigns c on c.id = v.campaign_id
        where v.advertiser_id = ${userId}::uuid
        order by v.received_at desc, v.id desc limit ${limit}`,
    row,
  );
  return rows.map((r) => ({
    id: r.id,
    event_id: r.event_id,
    name: r.name,
    source: r.source,
    campaign: r.campaign,
    value: r.value_micro,
    occurred_at: r.occurred_at,
    valid: r.valid,
    reason: r.invalid_reason,
  }));
}
