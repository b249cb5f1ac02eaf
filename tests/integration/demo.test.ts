import { describe, expect, it } from 'vitest';
import { changePlacement, revokeApiKey } from '@/lib/publisher/writes';
import { demoSetup, type DemoSetup } from '@/lib/demo/page';
import { hashApiKey } from '@/lib/identity/keys/api-key';
import { suiteDatabase, testEngines } from '../helpers/db';
import { rawAsService } from '../helpers/roles';

/**
 * The demo page's setup (/demo, lib/demo/page.ts) on every engine: the seed gives the demo publisher's
 * app Quizly a key of its own and lists the service's origin; the page finds the key and one
 * active placement per format it shows, and says what to do when it cannot.
 */
for (const engine of testEngines()) {
  describe(`the demo page's setup on ${engine.name}`, () => {
    const suite = suiteDatabase(engine);

    it("is the seeded key of Quizly, active, and Quizly's active placements of each format", async () => {
      const setup = (await demoSetup(async () => suite.db)) as DemoSetup;
      expect(setup.appName).toBe('Quizly');
      expect(setup.key).toMatch(/^pk_test_[A-Za-z0-9]{32}$/);
      const [key] = await rawAsService(suite.db, (q) =>
        q.query<{ name: string; status: string; user_id: string; allowed_origins: string[] }>(
          'select k.name, k.status, k.user_id, a.allowed_origins from public.api_keys k join public.apps a on a.id = k.app_id where k.key_hash = $1',
          [hashApiKey(setup.key)],
        ),
      );
      expect(key).toMatchObject({
        name: 'Quizly demo page',
        status: 'active',
        user_id: suite.users.demo,
        allowed_origins: ['http://localhost:3000', 'http://127.0.0.1:3000'],
      });
      const placements = await suite.db.query<{ id: string; format: string; status: string; name: string }>(
        'select id, format, status, name from public.placements where id = any($1::uuid[])',
        [Object.values(setup.placements)],
      );
      expect(Object.fromEntries(placements.map((p) => [p.format, p.id]))).toEqual(setup.placements);
      for (const p of placements) expect(p.status).toBe('active');
    });

    it('says what to do when a placement is paused, the key revoked, or the key missing', async () => {
      const setup = (await demoSetup(async () => suite.db)) as DemoSetup;
      expect((await changePlacement(suite.db, suite.users.demo, setup.placements.sponsored_card, 'pause')).ok).toBe(true);
      expect(await demoSetup(async () => suite.db)).toEqual({ problem: expect.stringContaining('needs an active placement of each format') });
      expect((await changePlacement(suite.db, suite.users.demo, setup.placements.sponsored_card, 'resume')).ok).toBe(true);
      expect(await demoSetup(async () => suite.db)).toEqual(setup);

      const [key] = await rawAsService(suite.db, (q) => q.query<{ id: string }>('select id from public.api_keys where key_hash = $1', [hashApiKey(setup.key)]));
      expect((await revokeApiKey(suite.db, suite.users.demo, key!.id)).ok).toBe(true);
      expect(await demoSetup(async () => suite.db)).toEqual({ problem: expect.stringContaining('revoked') });

      await rawAsService(suite.db, (q) => q.query("delete from public.service_secrets where name = 'demo_page_key'"));
      expect(await demoSetup(async () => suite.db)).toEqual({ problem: expect.stringContaining('npm run db:reset') });
    });

    it('says the database cannot be reached when it cannot, instead of failing the page', async () => {
      const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      expect(await demoSetup(() => Promise.reject(down))).toEqual({ problem: expect.stringContaining('cannot be reached') });
    });
  });
}
