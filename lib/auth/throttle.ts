import { createRateLimiter, type RateLimiter } from '../http/rate-limit';

/**
 * Brute-force protection for sign-in and sign-up (RFC 9700 asks the authorization server to
 * resist credential guessing; so do we). Attempts are counted per account and per client IP,
 * whether they succeed or not, in the same store as the API rate limit (memory, or Upstash
 * across instances).
 */

export const SIGN_IN_WINDOW_S = 15 * 60;
/**
 * Guesses at one account from one address. Keyed by both, so that a stranger cannot lock a
 * publisher out with ten wrong passwords from their own address.
 */
export const ATTEMPTS_PER_ACCOUNT_AND_IP = 10;
/** Attempts from one address, at any accounts. */
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

/** Counts one attempt; false when the pair, the address or the account has used up its attempts. */
export async function allowAttempt(
  limiters: AttemptLimiters,
  kind: 'signin' | 'signup',
  email: string,
  ip: string,
  now = Date.now(),
): Promise<{ allowed: boolean; retryAfterS: number }> {
  const who = email.trim().toLowerCase();
  const results = await Promise.all([
    limiters.pair.consume(`${kind}:${who}:${ip}`),
    limiters.ip.consume(`${kind}:${ip}`),
    limiters.account.consume(`${kind}:${who}`),
  ]);
  const refused = results.filter((r) => !r.allowed);
  const resetAt = Math.max(0, ...refused.map((r) => r.resetAt));
  return { allowed: refused.length === 0, retryAfterS: refused.length === 0 ? 0 : Math.max(1, Math.ceil((resetAt - now) / 1000)) };
}
