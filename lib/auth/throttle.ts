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

type Limiters = { pair: RateLimiter; ip: RateLimiter; account: RateLimiter };
let limiters: Limiters | undefined;

function get(): Limiters {
  const window = SIGN_IN_WINDOW_S;
  limiters ??= {
    pair: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT_AND_IP, windowSeconds: window }, 'monetize:signin:pair'),
    ip: createRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: window }, 'monetize:signin:ip'),
    account: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: window }, 'monetize:signin:account'),
  };
  return limiters;
}

/** Counts one attempt; false when the pair, the address or the account has used up its attempts. */
export async function allowAttempt(kind: 'signin' | 'signup', email: string, ip: string): Promise<{ allowed: boolean; retryAfterS: number }> {
  const { pair, ip: byIp, account } = get();
  const who = email.trim().toLowerCase();
  const results = await Promise.all([pair.consume(`${kind}:${who}:${ip}`), byIp.consume(`${kind}:${ip}`), account.consume(`${kind}:${who}`)]);
  const refused = results.filter((r) => !r.allowed);
  const resetAt = Math.max(0, ...refused.map((r) => r.resetAt));
  return { allowed: refused.length === 0, retryAfterS: refused.length === 0 ? 0 : Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)) };
}

/** Tests: start counting afresh. */
export function resetThrottle(): void {
  limiters = undefined;
}
