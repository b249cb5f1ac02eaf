/**
 * `npm run staff:unlock -- <email> [reason…]`: unlocks the second factor of a staff account whose
 * budget of wrong codes was spent (lib/identity/auth/staff.ts, STAFF_FACTOR_BUDGET), against the configured
 * database: DATABASE_URL when set, otherwise the embedded PGlite under PGLITE_DATA_DIR (stop
 * `npm run dev` first: one process may open it at a time). It forgets the wrong codes counted and
 * writes a line in the staff audit log, with the reason. A lock means someone typed the right
 * password with wrong codes: treat that password as known.
 */
import { openPglite, openPostgres } from '../lib/platform/db/engine';
import { env } from '../lib/platform/env';
import { staffCommand } from '../lib/identity/auth/staff-command';

async function main(args: string[]): Promise<void> {
  const { DATABASE_URL, PGLITE_DATA_DIR } = env();
  const engine = DATABASE_URL ? await openPostgres(DATABASE_URL) : await openPglite({ dataDir: PGLITE_DATA_DIR });
  try {
    const { code, message } = await staffCommand(args, engine);
    (code === 0 ? console.log : console.error)(message);
    process.exitCode = code;
  } finally {
    await engine.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
