/**
 * `npm run money:check`: proves the money's invariants on the configured database (DATABASE_URL,
 * or the embedded PGlite under PGLITE_DATA_DIR: stop `npm run dev` first, one process may open it
 * at a time). Prints one line per check (lib/money/ledger-check.ts) and exits 1 when any fails.
 *
 * `--roll-up` runs the roll-up once first, as a running server's timer does every 10 seconds: what
 * was billed since its last run reaches the ledger then (lib/ads/serving/rollup.ts). The end-to-end
 * run uses it, since its servers stop within seconds of the last impression they billed.
 */
import { checkMoney, moneyReport } from '../lib/money/ledger-check';
import { rollUp } from '../lib/ads/serving/rollup';
import { openPglite, openPostgres } from '../lib/platform/db/engine';
import { env } from '../lib/platform/env';

async function main(): Promise<void> {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  try {
    if (process.argv.includes('--roll-up')) {
      const counted = await rollUp(engine);
      console.log(`Rolled up first: ${counted.decisions} ad requests and ${counted.events} events`);
    }
    const results = await checkMoney(engine);
    console.log(`Money check of ${DATABASE_URL ? `PostgreSQL at ${new URL(DATABASE_URL).host}` : `PGlite in ${PGLITE_DATA_DIR}`}`);
    console.log(moneyReport(results));
    if (results.some((r) => r.count > 0)) process.exitCode = 1;
  } finally {
    await engine.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
