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
