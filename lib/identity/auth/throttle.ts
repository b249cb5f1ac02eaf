import { senderOf } from '../../platform/http/client-ip';
import { createRateLimiter, retryAfterSeconds, type RateLimiter } from '../../platform/http/rate-limit';

/**
 * Brute-force protection for sign-in and sign-up (RFC 9700 asks the authorization server to
 * resist credential guessing; so do we), per account and address, per address, and per account,
 * in the same store as the API rate limit (memory, or Upstash across instances). Addresses are
 * counted by sender: an IPv4 address, or an IPv6 /64 network (lib/platform/http/client-ip.ts).
 *
 * Sign-in counts failed attempts only: an attempt takes its unit before the password is checked
 * (so a burst of parallel guesses cannot all pass a check made before any of them failed) and
 * gives it back when the password was right; a success also forgets the failures of that account
 * from that address. So fifty publishers behind one office address never lock each other out,
 * and ten wrong passwords for one account from one address still do. Sign-up counts every
 * attempt: each one creates or probes an account. The budgets are taken address first, so an
 * attempt the address's budget refuses costs the attacker and adds nothing to the others.
 *
 * None of this can be turned against the publisher:
 * - A browser that signed in to the account before (a device cookie, lib/identity/auth/device.ts) has
 *   a budget of its own and is not counted on the account's: strangers spending the account's
 *   budget from elsewhere do not reach it.
 * - The account's budget is a ceiling on guessing from everywhere, and past it an attempt is
 *   slowed, not refused: each address may still try once a minute (SLOW_LANE_S), so the right
 *   password from a new browser gets in within a minute while a distributed guesser is held to
 *   one guess per address per minute, on top of the pair's ten.
 */

export const SIGN_IN_WINDOW_S = 15 * 60;
/**
 * Guesses at one account from one address. Keyed by both, so that a stranger cannot lock a
 * publisher out with ten wrong passwords from their own address.
 */
export const ATTEMPTS_PER_ACCOUNT_AND_IP = 10;
/** Failed attempts from one address, at any accounts. */
export const ATTEMPTS_PER_IP = 50;
/** Guesses at one account from anywhere: a ceiling on distributed guessing, past which attempts are slowed. */
export const ATTEMPTS_PER_ACCOUNT = 100;
/** Past the account's ceiling, one attempt per address and account this often. */
export const SLOW_LANE_S = 60;
/** Failed attempts from a browser that signed in to the account before. */
export const ATTEMPTS_PER_DEVICE = 10;

export interface AttemptLimiters {
  pair: RateLimiter;
  ip: RateLimiter;
  account: RateLimiter;
  slow: RateLimiter;
  device: RateLimiter;
}

/** The three budgets, in the same store as the API rate limit. */
export function createAttemptLimiters(): AttemptLimiters {
  const window = SIGN_IN_WINDOW_S;
  return {
    pair: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT_AND_IP, windowSeconds: window }, 'monetize:signin:pair', 'refuse'),
    ip: createRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: window }, 'monetize:signin:ip', 'refuse'),
    account: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: window }, 'monetize:signin:account', 'refuse'),
    slow: createRateLimiter({ max: 1, windowSeconds: SLOW_LANE_S }, 'monetize:signin:slow', 'refuse'),
    device: createRateLimiter({ max: ATTEMPTS_PER_DEVICE, windowSeconds: window }, 'monetize:signin:device', 'refuse'),
  };
}

type Kind = 'signin' | 'signup';
/** The budgets in the order an attempt takes them: the address first, so that attempts it refuses add nothing to the others. */
const BUDGETS = ['ip', 'pair', 'account'] as const;

/** The key of each budget for one attempt. */
function keysOf(kind: Kind, email: string, ip: string): Record<(typeof BUDGETS)[number], string> {
  const who = email.trim().toLowerCase();
  const from = senderOf(ip);
  return { pair: `${kind}:${who}:${from}`, ip: `${kind}:${from}`, account: `${kind}:${who}` };
}

/** What an allowed attempt took, for `settleSignIn` to give back on a success. */
export type Taken = { kind: 'device'; key: string } | { kind: 'budgets'; budgets: (typeof BUDGETS)[number][] };

export type Attempt = { allowed: true; taken: Taken } | { allowed: false; retryAfterS: number };

/**
 * Takes what an attempt costs: from a trusted device (its nonce, lib/identity/auth/device.ts), a unit of
 * the device's budget; otherwise a unit of each budget in turn. Refused when the device's, the
 * address's or the pair's budget is used up, or when the account's is and this address has had
 * its attempt of the slow lane this minute. A refused attempt runs nothing and takes nothing:
 * the units it took before the budget that refused it are given back.
 */
export async function allowAttempt(
  limiters: AttemptLimiters,
  kind: Kind,
  email: string,
  ip: string,
  now = Date.now(),
  device: string | null = null,
): Promise<Attempt> {
  const refused = (resetAt: number): Attempt => ({ allowed: false, retryAfterS: retryAfterSeconds(resetAt, now) });
  if (kind === 'signin' && device) {
    const key = `signin:${device}`;
    const result = await limiters.device.consume(key);
    return result.allowed ? { allowed: true, taken: { kind: 'device', key } } : refused(result.resetAt);
  }
  const keys = keysOf(kind, email, ip);
  for (const [i, budget] of BUDGETS.entries()) {
    const result = await limiters[budget].consume(keys[budget]);
    if (result.allowed) continue;
    const before = BUDGETS.slice(0, i);
    if (budget === 'account' && kind === 'signin') {
      // Guessed at from everywhere: this address may still try, once a minute.
      const slow = await limiters.slow.consume(keys.pair);
      if (slow.allowed) return { allowed: true, taken: { kind: 'budgets', budgets: before } };
      await Promise.all(before.map((b) => limiters[b].refund(keys[b], 1)));
      return refused(slow.resetAt);
    }
    await Promise.all(before.map((b) => limiters[b].refund(keys[b], 1)));
    return refused(result.resetAt);
  }
  return { allowed: true, taken: { kind: 'budgets', budgets: [...BUDGETS] } };
}

/**
 * Called once the password of an allowed sign-in attempt has been checked: a success gives back
 * what the attempt took and forgets the earlier failures of the account from this address (or
 * this device); a failure keeps them.
 */
export async function settleSignIn(
  limiters: AttemptLimiters,
  email: string,
  ip: string,
  attempt: Extract<Attempt, { allowed: true }>,
  succeeded: boolean,
): Promise<void> {
  if (!succeeded) return;
  if (attempt.taken.kind === 'device') return limiters.device.reset(attempt.taken.key);
  const keys = keysOf('signin', email, ip);
  const taken = attempt.taken.budgets;
  await Promise.all([
    limiters.pair.reset(keys.pair),
    taken.includes('ip') ? limiters.ip.refund(keys.ip, 1) : undefined,
    taken.includes('account') ? limiters.account.refund(keys.account, 1) : undefined,
  ]);
}
