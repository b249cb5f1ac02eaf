/**
 * For `npm run test:instances`: the Upstash-REST-compatible bridge of the integration tests
 * (tests/helpers/upstash-bridge.ts) in front of the local Redis, in a process of its own, run
 * with tsx (the orchestrator is plain .mjs; a child process also keeps the bridge's work off the
 * orchestrator's event loop, which runs the balancer and the browsers).
 *
 * Environment: BRIDGE_TOKEN (the bearer token the instances will send). Prints one line,
 * `{"url": …, "redis": "host:port"}`, once it listens. On SIGTERM or SIGINT it deletes the service's
 * keys again and exits.
 *
 * The Redis is the one answering on 127.0.0.1:6379, or a `redis-server` from PATH started for
 * the run (tests/helpers/redis.ts). Only keys under the service's own prefixes are deleted
 * (lib/platform/http/rate-limit.ts, lib/services.ts, lib/identity/auth/throttle.ts), before and after:
 * whatever else that Redis holds is left alone.
 */
import { findRedis, RedisConnection } from '../../tests/helpers/redis';
import { startUpstashBridge } from '../../tests/helpers/upstash-bridge';

const SERVICE_PREFIXES = ['monetize:ratelimit:', 'monetize:sdk-key:', 'monetize:signin:'];

/** Deletes every key under the service's prefixes (SCAN, then DEL in batches); answers how many. */
async function deleteServiceKeys(host: string, port: number): Promise<number> {
  const conn = await RedisConnection.connect(host, port);
  let deleted = 0;
  try {
    for (const prefix of SERVICE_PREFIXES) {
      let cursor = '0';
      do {
        const reply = await conn.command('SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (!Array.isArray(reply) || reply.length !== 2) throw new Error(`unexpected SCAN reply: ${String(reply)}`);
        cursor = String(reply[0]);
        const keys = (reply[1] as Buffer[]).map((k) => k.toString());
        if (keys.length > 0) deleted += Number(await conn.command('DEL', ...keys));
      } while (cursor !== '0');
    }
  } finally {
    await conn.close();
  }
  return deleted;
}

async function main(): Promise<void> {
  const token = process.env.BRIDGE_TOKEN;
  if (!token) throw new Error('BRIDGE_TOKEN is not set');
  const redis = await findRedis();
  if (!redis) throw new Error('no Redis on 127.0.0.1:6379 and no redis-server on PATH');
  const stale = await deleteServiceKeys(redis.host, redis.port);
  const bridge = await startUpstashBridge({ redisHost: redis.host, redisPort: redis.port, token });
  console.log(JSON.stringify({ url: bridge.url, redis: `${redis.host}:${redis.port}`, deletedAtStart: stale }));

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await bridge.close();
    const left = await deleteServiceKeys(redis.host, redis.port).catch(() => -1);
    console.log(JSON.stringify({ stopped: true, deletedAtEnd: left }));
    await redis.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
