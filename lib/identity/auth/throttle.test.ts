import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../platform/http/rate-limit';
import {
  allowAttempt,
  ATTEMPTS_PER_ACCOUNT,
  ATTEMPTS_PER_ACCOUNT_AND_IP,
  ATTEMPTS_PER_DEVICE,
  ATTEMPTS_PER_IP,
  settleSignIn,
  SIGN_IN_WINDOW_S,
  SLOW_LANE_S,
  type AttemptLimiters,
} from './throttle';

const window = SIGN_IN_WINDOW_S;
let clock = Date.now();
const now = () => clock;
function limiters(maxKeys = 100_000): Record<keyof AttemptLimiters, MemoryRateLimiter> {
  return {
    pair: new MemoryRateLimiter({ max: ATTEMPTS_PER_ACCOUNT_AND_IP, windowSeconds: window }, now, maxKeys, 'refuse'),
    ip: new MemoryRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: window }, now, maxKeys, 'refuse'),
    account: new MemoryRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: window }, now, maxKeys, 'refuse'),
    slow: new MemoryRateLimiter({ max: 1, windowSeconds: SLOW_LANE_S }, now, maxKeys, 'refuse'),
    device: new MemoryRateLimiter({ max: ATTEMPTS_PER_DEVICE, windowSeconds: window }, now, maxKeys, 'refuse'),
  };
}
/** One attempt with the wrong password (or, `right`, the right one); answers whether it was allowed to run. */
const attempt = async (l: AttemptLimiters, email: string, ip: string, { right = false, device = null as string | null } = {}) => {
  const a = await allowAttempt(l, 'signin', email, ip, clock, device);
  if (a.allowed) await settleSignIn(l, email, ip, a, right);
  return a.allowed;
};
const fail = (l: AttemptLimiters, email: string, ip: string) => attempt(l, email, ip);

describe('sign-in throttle', () => {
  it('refuses the 11th failure for one account from anywhere in one IPv6 /64', async () => {
    const l = limiters();
    for (let i = 1; i <= ATTEMPTS_PER_ACCOUNT_AND_IP; i++) expect(await fail(l, 'a@example.com', `2001:db8:1:2::${i.toString(16)}`)).toBe(true);
    expect(await fail(l, 'a@example.com', '2001:db8:1:2:ffff::1')).toBe(false);
    expect(await fail(l, 'a@example.com', '2001:db8:1:3::1')).toBe(true);
  });

  it('gives back the units an attempt took before the budget that refused it', async () => {
    const l = limiters();
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) await fail(l, 'b@example.com', '198.51.100.1');
    // Refused by the pair: the address's budget is not charged for it.
    for (let i = 0; i < 100; i++) expect(await fail(l, 'b@example.com', '198.51.100.1')).toBe(false);
    expect(l.ip.consume('signin:198.51.100.1', 0).remaining).toBe(ATTEMPTS_PER_IP - ATTEMPTS_PER_ACCOUNT_AND_IP);
  });

  it('does not forget an account’s failures when a flood of made-up accounts fills the limiter', async () => {
    const l = limiters(200);
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT; i++) await fail(l, 'victim@example.com', `10.0.${i >> 8}.${i & 255}`);
    expect(l.account.consume('signin:victim@example.com', 0).remaining).toBe(0);
    // Hundreds of failures at random accounts, from many addresses: the maps fill up...
    for (let i = 0; i < 1000; i++) await fail(l, `random-${i}@example.com`, `172.16.${i >> 8}.${i & 255}`);
    // ...and the victim's account still has its failures: a full limiter refuses new keys instead.
    expect(l.account.consume('signin:victim@example.com', 0).remaining).toBe(0);
  });

  it('a success gives the attempt back and forgets the pair’s failures', async () => {
    const l = limiters();
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP - 1; i++) await fail(l, 'c@example.com', '198.51.100.2');
    expect(await attempt(l, 'c@example.com', '198.51.100.2', { right: true })).toBe(true);
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) expect(await fail(l, 'c@example.com', '198.51.100.2')).toBe(true);
  });

  it('cannot be turned against the publisher: ten guesses from each of ten addresses slow the account, they do not lock it', async () => {
    const l = limiters();
    for (let a = 0; a < 10; a++) for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) await fail(l, 'owner@example.com', `203.0.113.${a}`);
    // The account's ceiling is reached: from a new address the right password still gets in, at once...
    expect(await attempt(l, 'owner@example.com', '198.51.100.50', { right: true })).toBe(true);
    // ...while a guesser gets one try per address per minute.
    expect(await fail(l, 'owner@example.com', '198.51.100.60')).toBe(true);
    expect(await fail(l, 'owner@example.com', '198.51.100.60')).toBe(false);
    clock += SLOW_LANE_S * 1000;
    expect(await fail(l, 'owner@example.com', '198.51.100.60')).toBe(true);
  });

  it('counts a browser that signed in before on its own budget, out of strangers’ reach', async () => {
    const l = limiters();
    for (let a = 0; a < 12; a++) for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) await fail(l, 'kept@example.com', `192.0.2.${a}`);
    // The owner's own address is spent too (a guesser behind the same office address).
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) await fail(l, 'kept@example.com', '198.51.100.7');
    expect(await fail(l, 'kept@example.com', '198.51.100.7')).toBe(false);
    // The owner's browser, known by its device cookie, tries and gets in.
    expect(await attempt(l, 'kept@example.com', '198.51.100.7', { device: 'nonce-1', right: true })).toBe(true);
    // A device has its own ten.
    for (let i = 0; i < ATTEMPTS_PER_DEVICE; i++) expect(await attempt(l, 'kept@example.com', '198.51.100.7', { device: 'nonce-2' })).toBe(true);
    expect(await attempt(l, 'kept@example.com', '198.51.100.7', { device: 'nonce-2' })).toBe(false);
  });

  it('takes nothing for an attempt the address refuses: a flood from one sender costs that sender', async () => {
    const l = limiters();
    for (let i = 0; i < ATTEMPTS_PER_IP; i++) await fail(l, `junk-${i}@example.com`, '2001:db8:5:5::1');
    for (let i = 0; i < 500; i++) expect(await fail(l, `more-${i}@example.com`, `2001:db8:5:5::${(i + 2).toString(16)}`)).toBe(false);
    // Refused by the sender's budget, those attempts charged no account and no pair.
    expect(l.account.consume('signin:more-0@example.com', 0).remaining).toBe(ATTEMPTS_PER_ACCOUNT);
    expect(l.pair.consume('signin:more-0@example.com:2001:db8:5:5::/64', 0).remaining).toBe(ATTEMPTS_PER_ACCOUNT_AND_IP);
  });
});
