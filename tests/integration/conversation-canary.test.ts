import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPlacement } from '@/lib/publisher/writes';
import { resetEnv } from '@/lib/platform/env';
import { log } from '@/lib/platform/log';
import { rollUp } from '@/lib/ads/serving/rollup';
import { suiteDatabase, testEngines } from '../helpers/db';
import { newApp, newKey, sdk, servedSecondsAgo } from '../helpers/sdk';

/**
 * What a page says about its conversation (the ad request's `keywords`) is used for the one
 * decision it was sent for: it reaches no table and no log line, on any engine, whether the
 * request fills, is billed, or is refused. A canary word is sent and then looked for in every
 * row of every table of the schemas `public` and `auth`, and in everything the server logged at
 * the debug level.
 */

const CANARY = 'zqxcanaryconversation';

for (const engine of testEngines()) {
  describe(`a conversation's words are never kept, on ${engine.name}`, () => {
    const suite = suiteDatabase(engine, { unlimited: true });
    const logged: string[] = [];
    const levelBefore = process.env.LOG_LEVEL;

    beforeAll(() => {
      process.env.LOG_LEVEL = 'debug';
      resetEnv();
      for (const method of ['log', 'error', 'warn', 'info', 'debug'] as const)
        vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    });
    afterAll(() => {
      vi.restoreAllMocks();
      if (levelBefore === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = levelBefore;
      resetEnv();
    });

    it('sends the canary with ad requests that fill, are billed and are refused, and finds it nowhere', async () => {
      const appId = await newApp(suite.db, suite.users.demo, 'Canary app');
      const made = await createPlacement(suite.db, suite.users.demo, { app_id: appId, name: 'Canary slot', format: 'inline_text' });
      if (!made.ok) throw new Error(made.error);
      const { key } = await newKey(suite.db, suite.users.demo, { appId });
      const words = `${CANARY},${CANARY} travel,learning`;
      const headers = { 'x-api-key': key, 'user-agent': 'Canary/1' };

      const served = await sdk(`/functions/v1/ads?placement_id=${made.value.id}&keywords=${encodeURIComponent(words)}`, { headers });
      expect([200, 204]).toContain(served.status);
      if (served.status === 200) {
        await servedSecondsAgo(suite.db, 5);
        const billed = await sdk('/functions/v1/events', {
          headers,
          body: {
            events: [
              { id: `${served.body.decision_id}.imp`, type: 'impression', token: served.body.token, viewability: { visible_share: 1, visible_seconds: 2.1 } },
            ],
          },
        });
        expect(billed.status, billed.text).toBe(200);
      }
      // Refused: too many words, and a placement that does not exist.
      const tooLong = await sdk(`/functions/v1/ads?placement_id=${made.value.id}&keywords=${encodeURIComponent(`${CANARY},`.repeat(20))}`, { headers });
      expect(tooLong.status).toBe(400);
      const unknown = await sdk(`/functions/v1/ads?placement_id=00000000-0000-4000-8000-000000000000&keywords=${CANARY}`, { headers });
      expect(unknown.status).toBe(404);
      await rollUp(suite.db);

      // Read as the database's owner: every row of every table, whatever its policies.
      const tables = await suite.db.query<{ name: string }>(
        "select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname in ('public', 'auth') order by 1",
      );
      expect(tables.length).toBeGreaterThan(20);
      const holding: string[] = [];
      for (const { name } of tables) {
        const [row] = await suite.db.query<{ n: number }>(`select count(*)::int as n from ${name} t where t::text ilike $1`, [`%${CANARY}%`]);
        if (row!.n > 0) holding.push(name);
      }
      expect(holding).toEqual([]);
      // The capture is live: a line the logger writes now is caught.
      log.debug('canary test: the log is captured');
      expect(logged.some((line) => line.includes('the log is captured'))).toBe(true);
      expect(logged.filter((line) => line.includes(CANARY))).toEqual([]);
    });
  });
}
