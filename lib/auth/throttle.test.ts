import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../http/rate-limit';
import { allowAttempt, ATTEMPTS_PER_ACCOUNT, ATTEMPTS_PER_ACCOUNT_AND_IP, ATTEMPTS_PER_IP, senderOf, settleSignIn, SIGN_IN_WINDOW_S, type AttemptLimiters } from './throttle';

const window = SIGN_IN_WINDOW_S;
function limiters(maxKeys = 100_000): Record<keyof AttemptLimiters, MemoryRateLimiter> {
  return {
    pair: new MemoryRateLimiter({ max: ATTEMPTS_PER_ACCOUNT_AND_IP, windowSeconds: window }, Date.now, maxKeys, 'refuse'),
    ip: new MemoryRateLimiter({ max: ATTEMPTS_PER_IP, windowSeconds: window }, Date.now, maxKeys, 'refuse'),
    account: new MemoryRateLimiter({ max: ATTEMPTS_PER_ACCOUNT, windowSeconds: window }, Date.now, maxKeys, 'refuse'),
  };
}
const fail = async (l: AttemptLimiters, email: string, ip: string) => {
  const attempt = await allowAttempt(l, 'signin', email, ip);
  if (attempt.allowed) await settleSignIn(l, email, ip, false);
  return attempt.allowed;
};

describe('sign-in throttle', () => {
  it('counts an IPv6 sender by its /64 network, and an IPv4 sender by its address', () => {
    expect(senderOf('203.0.113.5')).toBe('203.0.113.5');
    expect(senderOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(senderOf('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(senderOf('2001:0db8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(senderOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(senderOf('unknown')).toBe('unknown');
  });

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
    expect(await fail(l, 'victim@example.com', '10.9.9.9')).toBe(false);
    // Hundreds of failures at random accounts, from many addresses: the maps fill up...
    for (let i = 0; i < 1000; i++) await fail(l, `random-${i}@example.com`, `172.16.${i >> 8}.${i & 255}`);
    // ...and the victim's account is still locked: a full limiter refuses new keys instead.
    expect(await fail(l, 'victim@example.com', '10.9.9.10')).toBe(false);
  });

  it('a success gives the attempt back and forgets the pair’s failures', async () => {
    const l = limiters();
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP - 1; i++) await fail(l, 'c@example.com', '198.51.100.2');
    expect((await allowAttempt(l, 'signin', 'c@example.com', '198.51.100.2')).allowed).toBe(true);
    await settleSignIn(l, 'c@example.com', '198.51.100.2', true);
    for (let i = 0; i < ATTEMPTS_PER_ACCOUNT_AND_IP; i++) expect(await fail(l, 'c@example.com', '198.51.100.2')).toBe(true);
  });
});
