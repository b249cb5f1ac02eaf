import { createRateLimiter, type RateLimiter } from '../http/rate-limit';

/**
 * Brute-force protection for sign-in and sign-up (RFC 9700 asks the authorization server to
 * resist credential guessing; so do we). Attempts are counted per account and per client IP,
 * whether they succeed or not, in the same store as the API rate limit (memory, or Upstash
 * across instances).
 */

export const SIGN_IN_WINDOW_S = 15 * 60;
/** Guesses at one account, from anywhere. */
export const ATTEMPTS_PER_ACCOUNT = 10;
/** Attempts from one address, at any accounts. */
export const ATTEMPTS_PER_IP = 50;

let limiters: { account: RateLimiter; ip: RateLimiter } | undefined;

function get() {
  limiters ??= {
    account: createRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: SIGN_IN_WINDOW_S }, 'monetize:signin:account'),
    ip: createRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: SIGN_IN_WINDOW_S }, 'monetize:signin:ip'),
  };
  return limiters;
}

/** Counts one attempt; false when the account or the address has used up its attempts. */
export async function allowAttempt(kind: 'signin' | 'signup', email: string, ip: string): Promise<{ allowed: boolean; retryAfterS: number }> {
  const { account, ip: byIp } = get();
  const [a, b] = await Promise.all([account.consume(`${kind}:${email.trim().toLowerCase()}`), byIp.consume(`${kind}:${ip}`)]);
  const allowed = a.allowed && b.allowed;
  const resetAt = Math.max(a.allowed ? 0 : a.resetAt, b.allowed ? 0 : b.resetAt);
  return { allowed, retryAfterS: allowed ? 0 : Math.max(1, Math.ceil((resetAt - Date.now()) / 1000)) };
}

/** Tests: start counting afresh. */
export function resetThrottle(): void {
  limiters = undefined;
}
