import { clientIp, senderOf } from '../http/client-ip';
import { createRateLimiter, retryAfterSeconds, type RateLimiter } from '../http/rate-limit';
import type { FormState } from './forms';

/**
 * The rate limit of the consoles' server actions (content/docs/rate-limits.md): every form a
 * signed-in account sends takes a unit of two budgets, the account's from this address and the
 * account's from everywhere, in the same store as the API's (memory, or Upstash across
 * instances). Past either, the action runs nothing and writes nothing, and the form says when to
 * try again. Address first, as the sign-in throttle does (lib/identity/auth/throttle.ts): a form the
 * address's budget refuses takes nothing from the account's. Addresses are counted by sender (an
 * IPv4 address, or an IPv6 /64).
 *
 * A person filling in forms sends a few a minute; a script making campaigns or replacing files
 * as fast as it can (issue 39: 374 campaigns in ten seconds) is held to these.
 */

export const ACTION_WINDOW_S = 60;
/** Forms one account sends from one address in a minute. */
export const ACTIONS_PER_ACCOUNT_AND_ADDRESS = 30;
/** Forms one account sends from all its addresses in a minute. */
export const ACTIONS_PER_ACCOUNT = 60;

export interface ActionLimiters {
  pair: RateLimiter;
  account: RateLimiter;
}

export function createActionLimiters(): ActionLimiters {
  return {
    pair: createRateLimiter({ max: ACTIONS_PER_ACCOUNT_AND_ADDRESS, windowSeconds: ACTION_WINDOW_S }, 'monetize:actions:pair'),
    account: createRateLimiter({ max: ACTIONS_PER_ACCOUNT, windowSeconds: ACTION_WINDOW_S }, 'monetize:actions:account'),
  };
}

/** What a refused form says. */
export function tooManyActions(retryAfterS: number): string {
  return `You sent too many forms in a short time, so this one was not saved: wait ${retryAfterS} second${retryAfterS === 1 ? '' : 's'} and send it again.`;
}

/** Takes a unit of each budget for one form of `userId` sent from `ip`; when one is used up, gives back what was taken and says when to try again. */
export async function allowAction(
  limiters: ActionLimiters,
  userId: string,
  ip: string,
  now = Date.now(),
): Promise<{ allowed: true } | { allowed: false; retryAfterS: number }> {
  const pairKey = `action:${userId}:${senderOf(ip)}`;
  const pair = await limiters.pair.consume(pairKey);
  if (!pair.allowed) return { allowed: false, retryAfterS: retryAfterSeconds(pair.resetAt, now) };
  const account = await limiters.account.consume(`action:${userId}`);
  if (account.allowed) return { allowed: true };
  await limiters.pair.refund(pairKey, 1);
  return { allowed: false, retryAfterS: retryAfterSeconds(account.resetAt, now) };
}

/** Runs the form `run` of `userId`, sent with `headers`, when the budgets allow it; otherwise the refusal, and nothing run. */
export async function limitedAction<T extends FormState>(
  services: { readonly actionLimits: ActionLimiters },
  userId: string,
  headers: Headers,
  run: () => Promise<T>,
): Promise<T | FormState> {
  const verdict = await allowAction(services.actionLimits, userId, clientIp(headers));
  if (!verdict.allowed) return { error: tooManyActions(verdict.retryAfterS) };
  return run();
}
