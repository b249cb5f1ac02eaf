import { z } from 'zod';
import { asService, type Database } from '../../platform/db/roles';
import { sql } from '../../platform/db/sql';
import { describeError, log } from '../../platform/log';

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
 * The scheduled pricing changes whose time has come, put in force (migration
 * 20261213000100_pricing_in_production, `public.pricing_apply_due`): staff schedule new values from
 * /ops, effective now or later (lib/ops/pricing.ts); a change effective now is in force at once,
 * a later one from the first run of this after its time. The roll-up's timer runs it (below); on
 * Vercel, where no timer runs, the scheduler's call does (lib/routes/cron.ts). Answers how many
 * changes it applied.
 */
export async function applyDuePricing(db: Database): Promise<number> {
  const [row] = await asService(db).query(sql`select public.pricing_apply_due() as applied`, z.object({ applied: z.number().int() }));
  return row!.applied;
}

/**
 * Runs the roll-up every `intervalMs` until stopped, after the pricing changes that are due. A run
 * that fails is logged and the next one tries again; runs never overlap. The timer does not keep
 * the process alive.
 */
export function scheduleRollUps(database: () => Promise<Database>, intervalMs: number): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    database()
      .then(async (db) => {
        // Pricing changes whose time has come go into force first (applyDuePricing, above); a
        // failure there is logged and leaves the roll-up to run.
        await applyDuePricing(db)
          .then((applied) => {
            if (applied > 0) log.info('pricing changes applied', { applied });
          })
          .catch((err) => log.error('pricing changes not applied', describeError(err)));
        return rollUp(db);
      })
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
