import { z } from 'zod';
import type { SignedInUser } from '../identity/auth/users';
import { asStaff } from '../identity/auth/staff';
import type { Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';

/**
 * Each campaign's traffic quality over the last days, for the operator (public.staff_traffic_quality):
 * its counted and refused clicks, its counted and invalid conversions, with the reasons.
 */

const count = z.number().int();
const campaignTraffic = z.object({
  id: z.string(),
  name: z.string(),
  advertiser: z.string(),
  status: z.string(),
  clicks: count,
  invalid_clicks: count,
  click_reasons: z.record(z.string(), count),
  conversions: count,
  invalid_conversions: count,
  conversion_reasons: z.record(z.string(), count),
});
export type CampaignTraffic = z.output<typeof campaignTraffic>;

export async function trafficQuality(db: Database, staff: SignedInUser, days = 30): Promise<CampaignTraffic[]> {
  const [row] = await asStaff(db, staff).query(sql`select public.staff_traffic_quality(${days}::int, 100) as v`, z.object({ v: z.array(campaignTraffic) }));
  return row!.v;
}
