import { createHash, randomBytes } from 'node:crypto';
import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Engine } from '@/lib/platform/db/engine';
import { resetEnv } from '@/lib/platform/env';
import { senderOf } from '@/lib/platform/http/client-ip';
import { UpstashRateLimiter, type RateLimitConfig } from '@/lib/platform/http/rate-limit';
import { log } from '@/lib/platform/log';
import { openPgliteCopy } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices } from '../helpers/services';
import { findRedis, freePort, RedisConnection } from '../helpers/redis';
import { startUpstashBridge, type UpstashBridge } from '../helpers/upstash-bridge';

/**
 * The Upstash limiter (lib/platform/http/rate-limit.ts) with the real @upstash/ratelimit and
 * @upstash/redis, against a real redis-server behind the test-only REST bridge: instances that
 * share one Redis share one budget, and an unreachable Redis lets requests through.
 */

const redisServer = await findRedis();

/** Keys of this run: runs on one Redis (re-runs, parallel worktrees) must not see each other. */
const RUN = randomBytes(6).toString('hex');
const PREFIX = `test:ratelimit:${RUN}`;
const TOKEN = `bridge-${RUN}`;

/**
 * A client address for this run only. The route builds its limiter from the environment, with
 * the production prefix, so the address is what keeps this run's counter apart (an IPv6
 * documentation address, RFC 3849). The limit counts an IPv6 client by its /64, so the run's
 * own part is in the network's bits.
 */
const CLIENT_IP = `2001:db8:${RUN.slice(0, 4)}:${RUN.slice(4, 8)}::${RUN.slice(8, 12) || '1'}`;

/**
 * @upstash/ratelimit's sliding window keys a fixed window `floor(now / window)` and weighs in
 * part of the previous one. A test that straddles a boundary would see a different budget, so
 * start in a fresh window when the current one is nearly over.
 */
async function awayFromWindowEdge(windowSeconds: number, needMs = 5000): Promise<number> {
  const windowMs = windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 50));
  return Math.floor(Date.now() / windowMs);
}

const windowOf = (windowSeconds: number) => Math.floor(Date.now() / (windowSeconds * 1000));

describe.skipIf(!redisServer)(`Upstash rate limiting over a real Redis${redisServer ? '' : ' (skipped: no redis-server on this machine)'}`, () => {
  let bridge: UpstashBridge;
  let redis: RedisConnection;

  beforeAll(async () => {
    bridge = await startUpstashBridge({ redisHost: redisServer!.host, redisPort: redisServer!.port, token: TOKEN });
    redis = await RedisConnection.connect(redisServer!.host, redisServer!.port);
  });

  afterAll(async () => {
    await bridge?.close();
    if (redis) {
      // The counters expire by themselves (2 windows + 1 s); a shared Redis is tidier without them.
      for (const pattern of [`${PREFIX}:*`, `monetize:ratelimit:${CLIENT_IP}:*`, `test:bridge:${RUN}:*`]) {
        let cursor = '0';
        do {
          const [next, keys] = (await redis.command('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [Buffer, Buffer[]];
          if (keys.length) await redis.command('DEL', ...keys);
          cursor = next.toString();
        } while (cursor !== '0');
      }
      await redis.close();
    }
    await redisServer?.stop();
  });

  it('the bridge speaks the REST protocol @upstash/redis expects', async () => {
    const client = new Redis({ url: bridge.url, token: bridge.token });
    const key = `test:bridge:${RUN}:k`;
    // Non-ASCII and a value that is not valid base64: only right if the bridge encodes it.
    expect(await client.set(key, 'grüße ✓ é')).toBe('OK');
    expect(await client.get(key)).toBe('grüße ✓ é');
    // Nested arrays of strings (HGETALL is never auto-pipelined: it arrives on POST /).
    await client.hset(`${key}:h`, { a: 'x', b: 'ÿ' });
    expect(await client.hgetall(`${key}:h`)).toEqual({ a: 'x', b: 'ÿ' });
    const tx = client.multi();
    tx.incr(`${key}:n`);
    tx.incr(`${key}:n`);
    expect(await tx.exec()).toEqual([1, 2]);

    // The ratelimit library's scripts: EVAL strips the shebang stock Redis rejects, and
    // EVALSHA with the sha1 of the script as the client sent it then finds it.
    const script = '#!lua flags=allow-key-locking\nreturn {KEYS[1], ARGV[1], 7}';
    const sha = createHash('sha1').update(script).digest('hex');
    await expect(client.evalsha(sha, [key], ['v'])).rejects.toThrow(/NOSCRIPT/);
    expect(await client.eval(script, [key], ['v'])).toEqual([key, 'v', 7]);
    expect(await client.evalsha(sha, [key], ['w'])).toEqual([key, 'w', 7]);
    expect(await client.scriptLoad(script)).toBe(sha);

    const wrongToken = await fetch(bridge.url, { method: 'POST', headers: { Authorization: 'Bearer nope' }, body: '["PING"]' });
    expect(wrongToken.status).toBe(401);
  });

  it('two limiter instances with their own clients share one budget of 120 per 60 s', async () => {
    const config: RateLimitConfig = { max: 120, windowSeconds: 60 };
    const options = { url: bridge.url, token: bridge.token, prefix: `${PREFIX}:shared` };
    const a = new UpstashRateLimiter(config, options);
    const b = new UpstashRateLimiter(config, { ...options });
    const client = '198.51.100.20';

    const window = await awayFromWindowEdge(config.windowSeconds);
    for (let n = 1; n <= 60; n++) {
      expect(await a.consume(client)).toMatchObject({ allowed: true, limit: 120, remaining: 120 - n });
    }
    // B's first answer already counts A's 60: one budget, not one per instance.
    for (let n = 61; n <= 120; n++) {
      expect(await b.consume(client)).toMatchObject({ allowed: true, limit: 120, remaining: 120 - n });
    }
    const refusedByA = await a.consume(client);
    const refusedByB = await b.consume(client);
    expect(refusedByA).toMatchObject({ allowed: false, limit: 120, remaining: 0 });
    expect(refusedByB).toMatchObject({ allowed: false, limit: 120, remaining: 0 });
    expect(refusedByB.resetAt).toBe(refusedByA.resetAt);
    expect(refusedByA.resetAt).toBe((window + 1) * 60_000);
    expect(windowOf(config.windowSeconds)).toBe(window);

    // Refusals are not counted: Redis holds exactly the 120 that were let through.
    expect(String(await redis.command('GET', `${PREFIX}:shared:${client}:${window}`))).toBe('120');
  });

  describe('through the pricing route, as two app instances', () => {
    const VARS = ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN', 'RATE_LIMIT_MAX'] as const;
    const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));
    let engine: Engine;

    beforeAll(async () => {
      // One database for both instances below.
      engine = await openPgliteCopy();
      process.env.UPSTASH_REDIS_REST_URL = bridge.url;
      process.env.UPSTASH_REDIS_REST_TOKEN = bridge.token;
      process.env.RATE_LIMIT_MAX = '10';
      resetEnv();
    });

    afterAll(async () => {
      for (const v of VARS) {
        if (saved[v] === undefined) delete process.env[v];
        else process.env[v] = saved[v];
      }
      resetEnv();
      await engine?.close();
    });

    /**
     * An app instance: services of its own, made as a process makes them, with the rate limiter
     * the environment names (only the database is this suite's), and the route bound to them.
     */
    function appInstance() {
      const services = makeServices({ database: engine });
      return { services, route: handlersOf('/api/v1/pricing', services) };
    }

    it('the 11th request across both instances is refused with 429 and Retry-After', async () => {
      const first = appInstance();
      const second = appInstance();
      expect(second.services).not.toBe(first.services);

      const get = (instance: typeof first) =>
        instance.route.GET(new Request('http://localhost/api/v1/pricing', { headers: { 'x-forwarded-for': CLIENT_IP } }), {
          params: Promise.resolve({}),
        });

      const window = await awayFromWindowEdge(60);
      for (let n = 1; n <= 10; n++) {
        const res = await get(n % 2 ? first : second);
        expect(res.status, `request ${n}`).toBe(200);
        expect(res.headers.get('RateLimit-Policy')).toBe('"default";q=10;w=60');
        expect(res.headers.get('X-RateLimit-Remaining')).toBe(String(10 - n));
      }

      const refused = await get(first);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('Retry-After')).toMatch(/^[1-9]\d*$/);
      expect(Number(refused.headers.get('Retry-After'))).toBeLessThanOrEqual(60);
      expect(refused.headers.get('RateLimit-Policy')).toBe('"default";q=10;w=60');
      expect(refused.headers.get('X-RateLimit-Limit')).toBe('10');
      expect(refused.headers.get('X-RateLimit-Remaining')).toBe('0');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
      // The other instance refuses too: it asks Redis, which knows of all 10.
      expect((await get(second)).status).toBe(429);
      expect(windowOf(60)).toBe(window);

      // Each instance built its own limiter from the environment, and both are Upstash ones.
      const limiters = [first, second].map(({ services }) => services.rateLimiter);
      expect(limiters[0]).toBeInstanceOf(UpstashRateLimiter);
      expect(limiters[1]).toBeInstanceOf(UpstashRateLimiter);
      expect(limiters[0]).not.toBe(limiters[1]);
      expect(String(await redis.command('GET', `monetize:ratelimit:${senderOf(CLIENT_IP)}:${window}`))).toBe('10');
    });
  });

  describe('fails open', () => {
    const config: RateLimitConfig = { max: 1, windowSeconds: 60 };

    it('when Redis behind the REST endpoint is down', async () => {
      const deadRedis = await startUpstashBridge({ redisPort: await freePort(), token: TOKEN });
      const logged = vi.spyOn(log, 'error');
      try {
        const limiter = new UpstashRateLimiter(config, { url: deadRedis.url, token: TOKEN, prefix: `${PREFIX}:dead` });
        for (let i = 0; i < 3; i++) {
          await expect(limiter.consume('198.51.100.30')).resolves.toMatchObject({ allowed: true, limit: 1, remaining: 1 });
        }
        expect(logged).toHaveBeenCalledWith('rate limiter unavailable', expect.objectContaining({ error: 'UpstashError' }));
      } finally {
        logged.mockRestore();
        await deadRedis.close();
      }
    });

    it('when the REST endpoint refuses the token', async () => {
      const limiter = new UpstashRateLimiter(config, { url: bridge.url, token: 'not-the-token', prefix: `${PREFIX}:token` });
      for (let i = 0; i < 3; i++) {
        await expect(limiter.consume('198.51.100.31')).resolves.toMatchObject({ allowed: true });
      }
    });

    it('when nothing listens at the REST URL', async () => {
      // @upstash/redis retries a failed fetch for ~4 s; @upstash/ratelimit's `timeout` (2 s
      // here) answers first with `{success: true, remaining: 0, reset: 0, reason: 'timeout'}`.
      // So this path takes 2 s and never reaches UpstashRateLimiter's catch (nothing logged).
      const limiter = new UpstashRateLimiter(config, { url: `http://127.0.0.1:${await freePort()}`, token: TOKEN, prefix: `${PREFIX}:gone` });
      await expect(limiter.consume('198.51.100.32')).resolves.toMatchObject({ allowed: true });
    });
  });
});
