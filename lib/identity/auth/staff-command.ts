import type { Database } from '../../platform/db/roles';
import { unlockStaffFactor } from './users';

export const STAFF_COMMAND_USAGE = 'usage: npm run staff:unlock -- <email> [reason…]   (tsx scripts/staff.ts unlock <email> [reason…])';

/**
 * The staff command line (scripts/staff.ts): `unlock <email> [reason…]` unlocks the second
 * factor of that staff account (lib/identity/auth/staff.ts, STAFF_FACTOR_BUDGET), out of band: no route
 * can. Answers the exit code and the line to print.
 */
export async function staffCommand(args: readonly string[], db: Database): Promise<{ code: number; message: string }> {
  const [verb, email, ...reason] = args;
  if (verb !== 'unlock' || !email || email.startsWith('-')) return { code: 2, message: STAFF_COMMAND_USAGE };
  const why = reason.join(' ').trim() || 'Unlocked from the command line';
  const unlocked = await unlockStaffFactor(email, why.slice(0, 1000), db);
  if (!unlocked) return { code: 1, message: `${email}: no staff account has this email; nothing changed` };
  const forgotten = `${unlocked.wrongCodesForgotten} wrong code${unlocked.wrongCodesForgotten === 1 ? '' : 's'} forgotten`;
  return {
    code: 0,
    message: unlocked.wasLocked
      ? `Unlocked the second factor of ${email} (${forgotten}); written to the staff audit log. Whoever locked it typed the right password: treat that password as known.`
      : `${email} was not locked (${forgotten}); written to the staff audit log.`,
  };
}
