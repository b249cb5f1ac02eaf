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
    pair: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT_AND_IP, windowSeconds: window }, 'monetize:signin:pair', 'refuse'),
    ip: createRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: window }, 'monetize:signin:ip', 'refuse'),
    account: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: window }, 'monetize:signin:account', 'refuse'),
  };
}

type Kind = 'signin' | 'signup';
/** The budgets in the order an attempt takes them: the address first, so that attempts it refuses add nothing to the others. */
const BUDGETS = ['ip', 'pair', 'account'] as const;

/**
 * Who an attempt comes from: the address, or for IPv6 its /64 network, which is what one
 * subscriber usually holds (RFC 6177), so that a flood from one network counts as one sender.
 */
export function senderOf(ip: string): string {
  if (!ip.includes(':')) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((g) => (g || '0').replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The key of each budget for one attempt. */
function keysOf(kind: Kind, email: string, ip: string): Record<(typeof BUDGETS)[number], string> {
  const who = email.trim().toLowerCase();
  const from = senderOf(ip);
  return { pair: `${kind}:${who}:${from}`, ip: `${kind}:${from}`, account: `${kind}:${who}` };
}

/**
 * Takes one unit of each budget for an attempt, in turn; false when the address, the pair or the
 * account has used up its attempts. A refused attempt runs nothing: the units it took from the
 * budgets before the one that refused are given back.
 */
export async function allowAttempt(
  limiters: AttemptLimiters,
  kind: Kind,
  email: string,
  ip: string,
  now = Date.now(),
): Promise<{ allowed: boolean; retryAfterS: number }> {
  const keys = keysOf(kind, email, ip);
  for (const [i, budget] of BUDGETS.entries()) {
    const result = await limiters[budget].consume(keys[budget]);
    if (result.allowed) continue;
    await Promise.all(BUDGETS.slice(0, i).map((b) => limiters[b].refund(keys[b], 1)));
    return { allowed: false, retryAfterS: Math.max(1, Math.ceil((result.resetAt - now) / 1000)) };
  }
  return { allowed: true, retryAfterS: 0 };
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
