import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter, writeRateLimitHeaders, type RateLimitConfig, type RateLimitResult } from './rate-limit';

function rateLimitHeaders(r: RateLimitResult, config: RateLimitConfig, now: number): Record<string, string> {
  const headers: Record<string, string> = {};
  writeRateLimitHeaders(headers, r, config, now);
  return headers;
}

describe('memory rate limiter', () => {
  it('allows max requests per window, refuses the next, and opens a new window after reset', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter({ max: 120, windowSeconds: 60 }, () => now);
    for (let i = 1; i <= 120; i++) {
      const r = await limiter.consume('a');
      expect(r).toMatchObject({ allowed: true, remaining: 120 - i });
    }
    const refused = await limiter.consume('a');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetAt: 1_000_000 + 60_000 });
    now += 59_999;
    expect((await limiter.consume('a')).allowed).toBe(false);
    now += 1;
    expect(await limiter.consume('a')).toMatchObject({ allowed: true, remaining: 119 });
  });

  it('takes several units at once, or none when they do not fit', async () => {
    const limiter = new MemoryRateLimiter({ max: 10, windowSeconds: 60 }, () => 0);
    expect(await limiter.consume('a', 8)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await limiter.consume('a', 3)).toMatchObject({ allowed: false, remaining: 2 });
    expect(await limiter.consume('a', 2)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('stays bounded when flooded with keys', async () => {
    const limiter = new MemoryRateLimiter({ max: 1, windowSeconds: 60 }, () => 0, 100);
    for (let i = 0; i < 1000; i++) await limiter.consume(`k${i}`);
    expect((limiter as unknown as { windows: Map<string, unknown> }).windows.size).toBeLessThanOrEqual(100);
  });

  it('when full, forgets the oldest window, or refuses new keys and keeps counting the old ones', async () => {
    const forgetting = new MemoryRateLimiter({ max: 1, windowSeconds: 60 }, () => 0, 2);
    const refusing = new MemoryRateLimiter({ max: 1, windowSeconds: 60 }, () => 0, 2, 'refuse');
    for (const limiter of [forgetting, refusing]) for (const key of ['a', 'b']) expect(limiter.consume(key).allowed).toBe(true);
    expect(forgetting.consume('c').allowed).toBe(true);
    expect(forgetting.consume('a').allowed).toBe(true); // 'a' was forgotten
    expect(refusing.consume('c').allowed).toBe(false);
    expect(refusing.consume('a').allowed).toBe(false); // 'a' is still counted
  });

  it('gives units back, and a window refunded to nothing takes no room', async () => {
    const limiter = new MemoryRateLimiter({ max: 2, windowSeconds: 60 }, () => 0, 1, 'refuse');
    limiter.consume('a', 2);
    limiter.refund('a', 1);
    expect(limiter.consume('a')).toMatchObject({ allowed: true, remaining: 0 });
    limiter.refund('a', 2);
    expect(limiter.consume('b').allowed).toBe(true);
    limiter.reset('b');
    expect(limiter.consume('c').allowed).toBe(true);
  });
});

describe('rate-limit headers', () => {
  const config = { max: 120, windowSeconds: 60 };

  it('match the documented RateLimit-Policy, RateLimit and X-RateLimit-* headers to the character', () => {
    const h = rateLimitHeaders({ allowed: true, limit: 120, remaining: 117, resetAt: 1_700_000_042_500 }, config, 1_700_000_000_000);
    expect(h).toEqual({
      'ratelimit-policy': '"default";q=120;w=60',
      ratelimit: '"default";r=117;t=43',
      'x-ratelimit-limit': '120',
      'x-ratelimit-remaining': '117',
      'x-ratelimit-reset': '1700000043',
    });
  });

  it('add Retry-After in whole seconds, at least 1, when refused', () => {
    const h = rateLimitHeaders({ allowed: false, limit: 120, remaining: 0, resetAt: 1_000 }, config, 1_000);
    expect(h['retry-after']).toBe('1');
    const later = rateLimitHeaders({ allowed: false, limit: 120, remaining: 0, resetAt: 31_200 }, config, 1_000);
    expect(later['retry-after']).toBe('31');
  });

  it('state the limit in force', () => {
    const h = rateLimitHeaders({ allowed: true, limit: 5, remaining: 4, resetAt: 10_000 }, { max: 5, windowSeconds: 10 }, 0);
    expect(h['ratelimit-policy']).toBe('"default";q=5;w=10');
  });
});
