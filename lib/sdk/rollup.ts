import { z } from 'zod';
import { asService, type Database } from '../platform/db/roles';
import { sql } from '../platform/db/sql';
import { describeError, log } from '../platform/log';

/**
 * The roll-up (migration 20261125000000, `public.roll_up_ad_traffic`): adds the ad requests and
 * events recorded since the last run to the placements' totals, the daily stats, the campaigns'
 * spend and the keys' last use. Reports read those, never the raw rows, so a read costs the
 * same however much traffic there was. A long-running server runs it every ROLLUP_INTERVAL_S
 * seconds (10 by default); where instances do not stay up (Vercel), pg_cron runs the same
 * function in the database (ARCHITECTURE.md, Money path).
 */

const counted = z.object({ decisions: z.number(), events: z.number() });

/** One run; answers how many ad requests and events it counted. */
export async function rollUp(db: Database): Promise<{ decisions: number; events: number }> {
  const rows = await asService(db).query(sql`select * from public.roll_up_ad_traffic()`);
  return counted.parse(rows[0]);
}

/**
 * Runs the roll-up every `intervalMs` until stopped. A run that fails is logged and the next one
 * tries again; runs never overlap. The timer does not keep the process alive.
 */
export function scheduleRollUps(database: () => Promise<Database>, intervalMs: number): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    database()
      .then(rollUp)
      .then((n) => {
        if (n.decisions + n.events > 0) log.debug('ad traffic rolled up', n);
      })
      .catch((err) => log.error('ad traffic roll-up failed', describeError(err)))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
