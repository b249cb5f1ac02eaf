import { createRateLimiter, type RateLimiter } from '../http/rate-limit';

/**
 * Brute-force protection for sign-in and sign-up (RFC 9700 asks the authorization server to
 * resist credential guessing; so do we), per account and address, per address, and per account,
 * in the same store as the API rate limit (memory, or Upstash across instances).
 *
 * Sign-in counts failed attempts only: an attempt takes its unit before the password is checked
 * (so a burst of parallel guesses cannot all pass a check made before any of them failed) and
 * gives it back when the password was right; a success also forgets the failures of that account
 * from that address. So fifty publishers behind one office address never lock each other out,
 * and ten wrong passwords for one account from one address still do. Sign-up counts every
 * attempt: each one creates or probes an account.
 */

export const SIGN_IN_WINDOW_S = 15 * 60;
/**
 * Guesses at one account from one address. Keyed by both, so that a stranger cannot lock a
 * publisher out with ten wrong passwords from their own address.
 */
export const ATTEMPTS_PER_ACCOUNT_AND_IP = 10;
/** Failed attempts from one address, at any accounts. */
export const ATTEMPTS_PER_IP = 50;
/** Guesses at one account from anywhere: a ceiling on distributed guessing. */
export const ATTEMPTS_PER_ACCOUNT = 100;

export interface AttemptLimiters {
  pair: RateLimiter;
  ip: RateLimiter;
  account: RateLimiter;
}

/** The three budgets, in the same store as the API rate limit. */
export function createAttemptLimiters(): AttemptLimiters {
  const window = SIGN_IN_WINDOW_S;
  return {
    pair: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT_AND_IP, windowSeconds: window }, 'monetize:signin:pair'),
    ip: createRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: window }, 'monetize:signin:ip'),
    account: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: window }, 'monetize:signin:account'),
  };
}

type Kind = 'signin' | 'signup';
const BUDGETS = ['pair', 'ip', 'account'] as const;

/** The key of each budget for one attempt. */
function keysOf(kind: Kind, email: string, ip: string): Record<(typeof BUDGETS)[number], string> {
  const who = email.trim().toLowerCase();
  return { pair: `${kind}:${who}:${ip}`, ip: `${kind}:${ip}`, account: `${kind}:${who}` };
}

/**
 * Takes one unit of each budget for an attempt; false when the pair, the address or the account
 * has used up its attempts. A refused attempt runs nothing, so it takes nothing from the others.
 */
export async function allowAttempt(
  limiters: AttemptLimiters,
  kind: Kind,
  email: string,
  ip: string,
  now = Date.now(),
): Promise<{ allowed: boolean; retryAfterS: number }> {
  const keys = keysOf(kind, email, ip);
  const results = await Promise.all(BUDGETS.map((b) => limiters[b].consume(keys[b])));
  const refused = results.filter((r) => !r.allowed);
  if (refused.length === 0) return { allowed: true, retryAfterS: 0 };
  await Promise.all(BUDGETS.map((b, i) => (results[i]!.allowed ? limiters[b].refund(keys[b], 1) : undefined)));
  const resetAt = Math.max(0, ...refused.map((r) => r.resetAt));
  return { allowed: false, retryAfterS: Math.max(1, Math.ceil((resetAt - now) / 1000)) };
}

/**
 * Called once the password of an allowed sign-in attempt has been checked: a success gives back
 * the attempt's units and forgets the earlier failures of the account from this address; a
 * failure keeps its units.
 */
export async function settleSignIn(limiters: AttemptLimiters, email: string, ip: string, succeeded: boolean): Promise<void> {
  if (!succeeded) return;
  const keys = keysOf('signin', email, ip);
  await Promise.all([limiters.pair.reset(keys.pair), limiters.ip.refund(keys.ip, 1), limiters.account.refund(keys.account, 1)]);
}
